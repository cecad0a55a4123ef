/**
 * Rewrite Selection's review under the prose checks: a paragraph put in the middle of this
 * project's user guide (technical Markdown, about 7,000 words), rewritten with nine changes, two of
 * which bring in a finding, and each change checked as the editor does (the document with that change
 * alone kept, under a document key so that each text is read as an edit of the last). Prints
 * numbers; asserts nothing.
 *   npm run build && node dist/bench/rewriteChecks.bench.js      (DOC=FILE.md for another document)
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { findingsAdded } from '../extension/engine/checks/changeFindings';
import { ProseChecker } from '../extension/engine/checks/checker';
import { offeredRewrite } from '../extension/engine/systems/rewriteText';
import { countWords } from '../extension/engine/text/words';
import { median, Reporter } from './report';

const DOC = process.env.DOC ?? path.resolve(__dirname, '..', '..', 'docs', 'user-guide.md');
const cpuMs = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};
const r = new Reporter('rewriteChecks');

const SOURCE =
  'The rewrite streams into a diff beside the text as it is written, and each change is a row of a ' +
  'list that you keep or drop one by one before anything is written to the document.';
const REPLY =
  'The rewrite streams into a diff next to the text while it is writen, and every change is a row in a ' +
  'list you keep or drop one at a time before the the text is written into the document.';

async function main(): Promise<void> {
  const doc = readFileSync(DOC, 'utf8');
  const middle = doc.indexOf('\n\n', doc.length >> 1) + 2;
  const document = `${doc.slice(0, middle)}${SOURCE}\n\n${doc.slice(middle)}`;
  const changes = offeredRewrite(SOURCE, REPLY, 'Make it simpler.').changes;
  r.section(
    `rewrite review: ${changes.length} changes checked in ${path.basename(DOC)} ` +
      `(${countWords(document).toLocaleString('en')} words)`,
  );
  const checker = await ProseChecker.create();
  await checker.check(document, 'markdown', undefined, 'editor');
  const check = async (text: string) => (await checker.check(text, 'markdown', undefined, 'rewrite'))?.findings;
  const walls: number[] = [];
  const cpus: number[] = [];
  let marked = 0;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const cpu = process.cpuUsage();
    const found = await findingsAdded(document, middle, changes, check);
    walls.push(performance.now() - t);
    cpus.push(cpuMs(cpu));
    marked = found?.filter((f) => f.length > 0).length ?? -1;
  }
  r.row(
    'all changes checked',
    median(walls),
    'ms',
    `median of 3: ${walls.map((x) => x.toFixed(0)).join(', ')}; CPU median ${median(cpus).toFixed(0)} ms; ` +
      `${marked} of ${changes.length} changes marked`,
  );
  r.row('per change (CPU)', median(cpus) / changes.length, 'ms');
  r.done();
}

if (require.main === module) void main();
