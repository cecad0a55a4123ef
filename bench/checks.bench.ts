/**
 * Prose checks: a 10,000-word Markdown document (headings, lists, links, inline code, code blocks,
 * a few errors of every family) checked in full, then re-checked after one-word edits, as the
 * editor does while a writer types; and the memory it takes. Targets: under 1 s in full, under
 * 100 ms for an edit. Prints numbers; asserts nothing.
 *   npm run build && node dist/bench/checks.bench.js      (WORDS=N for another length)
 */
import { ProseChecker } from '../extension/engine/checks/checker';
import { countWords } from '../extension/engine/text/words';
import { median, peakRssMB, Reporter } from './report';

const WORDS = Number(process.env.WORDS ?? 10_000);
/** CPU milliseconds (user + system) since `from`: on a shared machine, what the work costs a core of its own. */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};
const r = new Reporter('checks');

const SENTENCES = [
  'The committee approved the proposal after a short discussion.',
  'Writers keep a checker open while they draft long reports.',
  'Each paragraph is read again only when its text changes.',
  'The results were reviewed by the editors before the release.',
  'In order to finish on time, the team met every morning.',
  'She writes clear sentences and short paragraphs.',
  'This is is a sentence with a doubled word.',
  'He go to the library on Tuesdays.',
  'The report mentions a recieved parcel and a missing invoice.',
  'Run `npm test` before you open a pull request.',
  'See [the guide](https://example.com/guide) for the details.',
  'A reader can follow an argument that moves one step at a time.',
  'The figures in the appendix show the same trend as the tables.',
  'Most of the changes were small, but a few needed a second look.',
  'Their is a problem with the last chart.',
  'The draft was written quickly and revised slowly.',
];

/** A deterministic document of about `words` words whose paragraphs all differ. */
export function benchDocument(words: number): string {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const parts: string[] = ['---', 'title: Bench document', '---', ''];
  let n = 0;
  for (let p = 0; n < words; p++) {
    if (p % 8 === 0) parts.push(`## Section ${p / 8 + 1}`, '');
    if (p % 13 === 5) parts.push('```ts', 'const teh = recieve(x);', '```', '');
    const body = [`Paragraph ${p + 1} begins here.`];
    for (let i = 0; i < 5; i++) body.push(SENTENCES[Math.floor(rand() * SENTENCES.length)]);
    const para = p % 9 === 3 ? body.map((s) => `- ${s}`).join('\n') : body.join(' ');
    parts.push(para, '');
    n += countWords(para);
  }
  return parts.join('\n');
}

async function main(): Promise<void> {
  const text = benchDocument(WORDS);
  r.section(`prose checks: ${countWords(text).toLocaleString('en')}-word Markdown document`);
  const rss0 = process.memoryUsage().rss / 1e6;
  let t = performance.now();
  const checker = await ProseChecker.create();
  r.row('load (Harper binary, dictionary)', performance.now() - t, 'ms');
  t = performance.now();
  let cpu = process.cpuUsage();
  const first = await checker.check(text, 'markdown', undefined, 'bench');
  r.row(
    'first full check',
    performance.now() - t,
    'ms',
    `${cpuMs(cpu).toFixed(0)} ms CPU; ${first?.units} paragraphs, ${first?.findings.length} findings; Harper's ` +
      `first lint warms it up`,
  );

  t = performance.now();
  cpu = process.cpuUsage();
  const same = await checker.check(text, 'markdown', undefined, 'bench');
  r.row(
    're-check, nothing changed',
    performance.now() - t,
    'ms',
    `${cpuMs(cpu).toFixed(0)} ms CPU; ${same?.checked} paragraphs checked`,
  );

  const edits: number[] = [];
  const editsCpu: number[] = [];
  let edited = text;
  for (let i = 0; i < 7; i++) {
    // One word changed in a different paragraph each time, as typing does.
    const at = edited.indexOf(`Paragraph ${20 + i * 17} begins`);
    edited =
      edited.slice(0, at) +
      `Paragraph ${20 + i * 17} starts` +
      edited.slice(at + `Paragraph ${20 + i * 17} begins`.length);
    t = performance.now();
    cpu = process.cpuUsage();
    const res = await checker.check(edited, 'markdown', undefined, 'bench');
    edits.push(performance.now() - t);
    editsCpu.push(cpuMs(cpu));
    if (res?.checked !== 1) r.row('note', `edit ${i} re-checked ${res?.checked} paragraphs`);
  }
  r.row(
    're-check after a one-word edit',
    median(edits),
    'ms',
    `median of 7: ${edits.map((x) => x.toFixed(0)).join(', ')}; CPU median ${median(editsCpu).toFixed(0)} ms`,
  );
  const rss = process.memoryUsage().rss / 1e6;
  r.row(
    'resident memory',
    rss,
    'MB',
    `${(rss - rss0).toFixed(0)} MB more than before loading; peak ${peakRssMB().toFixed(0)} MB`,
  );
  r.row('JavaScript heap', process.memoryUsage().heapUsed / 1e6, 'MB');
  // A full check with a warm binary and an empty cache: what opening a second large document costs.
  // (After the memory is read: each checker holds a Harper linter of its own.)
  const fulls: number[] = [];
  const fullsCpu: number[] = [];
  for (let i = 0; i < 3; i++) {
    const c = await ProseChecker.create();
    t = performance.now();
    cpu = process.cpuUsage();
    await c.check(text, 'markdown');
    fulls.push(performance.now() - t);
    fullsCpu.push(cpuMs(cpu));
    await c.dispose();
  }
  r.row(
    'full check (warm binary, empty cache)',
    median(fulls),
    'ms',
    `median of 3: ${fulls.map((x) => x.toFixed(0)).join(', ')}; CPU median ${median(fullsCpu).toFixed(0)} ms`,
  );

  r.done();
}

if (require.main === module) void main();
