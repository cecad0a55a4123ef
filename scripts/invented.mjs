// Invented names and numbers, and profanity, in dumped outputs (`draftsmith eval SYSTEM --dump F`):
// per file, the share of outputs with a name or number the input lacks, counted as
// extension/engine/metrics/faithfulness.ts counts them (capitalised words inside a sentence,
// numbers), and the outputs with a word of the guards' profanity list. One output per input: the
// first variant in the file.
//
//   node scripts/invented.mjs before-essay.jsonl after-essay.jsonl ...
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bundle = await build({
  stdin: {
    contents:
      "export { unsupportedItems } from './extension/engine/metrics/faithfulness';\nexport { PROFANITY } from " +
      "'./extension/engine/decode/bannedWords';",
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  write: false,
  logLevel: 'error',
});
const { unsupportedItems, PROFANITY } = await import(
  `data:text/javascript;base64,${Buffer.from(bundle.outputFiles[0].text).toString('base64')}`
);
for (const file of process.argv.slice(2)) {
  const rows = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const variant = rows[0]?.variant;
  const mine = rows.filter((r) => r.variant === variant);
  let invented = 0;
  let profane = 0;
  const examples = [];
  for (const r of mine) {
    const u = unsupportedItems(r.output, r.source);
    if (u.unsupported > 0) {
      invented++;
      if (examples.length < 5) examples.push(u.invented.join('|'));
    }
    if ((r.output.toLowerCase().match(/\p{L}+/gu) ?? []).some((w) => PROFANITY.has(w))) profane++;
  }
  const pct = ((100 * invented) / Math.max(1, mine.length)).toFixed(1);
  console.log(
    `${file}: ${variant}, ${mine.length} outputs; ${invented} (${pct} %) with an invented name or number; ` +
      `${profane} profane; e.g. ${examples.join(', ')}`,
  );
}
