// The prose checks on edited technical Markdown written by others (the docs that npm packages ship,
// pinned by package-lock.json): findings per 1,000 words, and how many of them are real, from the
// labels in test/fixtures/checks-technical-labels.tsv (file, rule, the finding's context as
// `draftsmith check --json` prints it, real|false, a note), every one given by reading the finding.
//
//   npm run build && node scripts/checks-technical.mjs [--set tune|report] [--families LIST] [--unlabelled]
//
// --families: the families counted (default: every family `draftsmith check` reports but spelling,
// which the cspell-based speller replaces). --unlabelled prints the findings no label covers, as TSV
// lines to label. Words: the prose words (code blocks, inline code, HTML, link targets, tables left out).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const nm = path.join(root, 'node_modules');

/** Tuned on (rules chosen by reading these findings), and reported on (never read before the rules were set). */
const SETS = {
  tune: ['undici/docs', 'unified/readme.md', 'semver/README.md'],
  report: [
    'commander/Readme.md',
    'glob/README.md',
    'micromatch/README.md',
    'minimatch/README.md',
    'picomatch/README.md',
    'fast-glob/README.md',
    'path-scurry/README.md',
    'yauzl/README.md',
    'cockatiel/readme.md',
  ],
};

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const sets = opt('--set') ? [opt('--set')] : Object.keys(SETS);
const families = opt('--families') ?? 'grammar,repeated-word,spacing,long-sentence';

const walk = (p) =>
  statSync(p).isDirectory()
    ? readdirSync(p)
        .sort()
        .flatMap((e) => walk(path.join(p, e)))
    : /\.md$/i.test(p)
      ? [p]
      : [];

const version = (entry) => {
  const pkg = entry.startsWith('@') ? entry.split('/').slice(0, 2).join('/') : entry.split('/')[0];
  return `${pkg}@${JSON.parse(readFileSync(path.join(nm, pkg, 'package.json'), 'utf8')).version}`;
};

/** Prose words: Markdown without fenced code, inline code, HTML, link targets and table rows. */
function proseWords(text) {
  const prose = text
    .replace(/^(```|~~~)[\s\S]*?^\1/gm, ' ')
    .replace(/`[^`\n]*`/g, ' ')
    .replace(/<[^>\n]+>/g, ' ')
    .replace(/\]\([^)\s]*\)/g, ']')
    .replace(/^\s*\|.*$/gm, ' ');
  return (prose.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).length;
}

const labels = new Map();
for (const line of readFileSync(path.join(root, 'test/fixtures/checks-technical-labels.tsv'), 'utf8').split('\n')) {
  if (!line.trim() || line.startsWith('#')) continue;
  const [file, rule, context, verdict] = line.split('\t');
  labels.set(`${file}\t${rule}\t${context}`, verdict);
}

for (const set of sets) {
  const files = SETS[set].flatMap((e) => walk(path.join(nm, e))).map((f) => path.relative(nm, f));
  const r = spawnSync(
    process.execPath,
    [
      path.join(root, 'dist/cli.js'),
      'check',
      ...files,
      '--json',
      '--fail-on',
      'never',
      '--rule',
      families,
      '--dialect',
      'American',
    ],
    { cwd: nm, encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  if (r.status !== 0) throw new Error(r.stderr);
  const findings = JSON.parse(r.stdout);
  const words = files.reduce((n, f) => n + proseWords(readFileSync(path.join(nm, f), 'utf8')), 0);
  let real = 0;
  let falseAlarms = 0;
  const unlabelled = [];
  const byRule = new Map();
  for (const f of findings) {
    const verdict = labels.get(`${f.file}\t${f.rule}\t${f.context}`);
    if (verdict === 'real') real++;
    else if (verdict === 'false') falseAlarms++;
    else unlabelled.push(`${f.file}\t${f.rule}\t${f.context}\t?\t${f.message}`);
    const c = byRule.get(f.rule) ?? { real: 0, false: 0 };
    if (verdict) c[verdict]++;
    byRule.set(f.rule, c);
  }
  console.log(`\n${set}: ${SETS[set].map(version).join(', ')}`);
  console.log(`  ${files.length} files, ${words} prose words; families: ${families}`);
  console.log(
    `  ${findings.length} findings = ${((findings.length / words) * 1000).toFixed(2)} per 1,000 words; ` +
      `${real} real, ${falseAlarms} false, ${unlabelled.length} unlabelled; ` +
      `real share of the labelled: ${real + falseAlarms ? ((100 * real) / (real + falseAlarms)).toFixed(0) : '-'} %`,
  );
  for (const [rule, c] of [...byRule].sort((a, b) => b[1].real + b[1].false - a[1].real - a[1].false))
    console.log(`    ${rule}: ${c.real} real, ${c.false} false`);
  if (args.includes('--unlabelled')) for (const u of unlabelled) console.log(u);
}
