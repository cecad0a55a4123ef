/**
 * Summarize Document on long Markdown documents, read section by section: for a document
 * of 2,500 to 50,000 words (sections of CNN test articles under "##" headings, each with a code block
 * and a table the reader leaves out), the time to the first section done, the time to the end, the
 * time per 1,000 words (flat when the cost grows linearly), and the peak RSS. Extractive mode (the
 * default), one thread. Prints numbers; asserts nothing.
 *   npm run build && node dist/bench/longDocument.bench.js     (SIZES=2500,10000 to choose the lengths)
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SummarizeSystem } from '../extension/engine/systems/summarize';
import type { RunContext } from '../extension/engine/systems/context';
import { peakRssMB, Reporter } from './report';

const root = path.resolve(__dirname, '..', '..');
const sizes = (process.env.SIZES ?? '2500,5000,10000,20000,50000').split(',').map(Number);
const r = new Reporter('longDocument');
r.section('Summarize Document on a long Markdown document (extractive, section by section, threads 1)');

/**
 * A Markdown document of about `words` words: CNN test articles as "##" sections, each with a code block and a table.
 */
function document(articles: readonly string[], words: number): string {
  const parts = ['# A long document\n'];
  let n = 0;
  for (let i = 0; n < words; i++) {
    const body = articles[i % articles.length];
    const paragraphs = body.split(/(?<=[.!?]) (?=[A-Z])/).reduce<string[][]>((acc, s, k) => {
      if (k % 4 === 0) acc.push([]);
      acc[acc.length - 1].push(s);
      return acc;
    }, []);
    parts.push(
      `## Section ${i + 1}\n`,
      ...paragraphs.map((p) => `${p.join(' ')}\n`),
      '```sh\nnpm run build && node dist/cli.js summarize docs/\n```\n',
      '| key | value |\n|-----|-------|\n| a | 1 |\n',
    );
    n += body.split(/\s+/).length;
  }
  return parts.join('\n');
}

async function main(): Promise<void> {
  const data = path.join(root, '.data', 'summarize.test.jsonl');
  if (!existsSync(data)) {
    r.row(
      'long document',
      null,
      undefined,
      `skipped: no ${data} (models/train: python3 -m draftsmith_train.summarize prepare)`,
    );
    r.done();
    return;
  }
  const articles = readFileSync(data, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { domain: string; source: string })
    .filter((x) => x.domain === 'news')
    .map((x) => x.source);
  const t0 = performance.now();
  const s = await SummarizeSystem.load(path.join(root, 'models', 'summarize'), {
    device: 'cpu',
    threads: 1,
    log: () => {},
  });
  r.row('load', performance.now() - t0, 'ms');
  for (const words of sizes) {
    const text = document(articles, words);
    const counted = text.split(/\s+/).length;
    let first: number | undefined;
    const started = performance.now();
    const ctx: RunContext = {
      progress: (m) => {
        if (first === undefined && /^Sections done: [1-9]/.test(m)) first = performance.now() - started;
      },
      partial: () => {},
      checkCancelled: () => {},
    };
    const result = await s.run({ op: 'summarize', text, mode: 'extractive', format: 'markdown' }, ctx);
    const total = performance.now() - started;
    const sections = result.sections?.length ?? 0;
    r.row(
      `${words.toLocaleString('en')} words: first section`,
      first ?? null,
      'ms',
      `${counted.toLocaleString('en')} whitespace words with the markup, ${sections} sections`,
    );
    r.row(
      `${words.toLocaleString('en')} words: whole document`,
      total,
      'ms',
      `${(total / (words / 1000)).toFixed(0)} ms per 1,000 words; peak RSS so far ${peakRssMB().toFixed(0)} MB`,
    );
  }
  r.done();
}

void main();
