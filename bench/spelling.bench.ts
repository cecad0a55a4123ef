/**
 * Spelling on text written by others: the unknown words each speller reports on edited technical
 * Markdown (the docs of packages this project installs: a tuning set and a report set, never tuned on)
 * and on JFLEG dev (learner English: erroneous sentences flagged, false flags per corrected sentence),
 * for today's nspell, Code Spell Checker's dictionaries, both together (a word is unknown only when
 * both reject it), and with British spellings accepted under American; the load of each; and, for a
 * word the document itself uses several times, how many flags it would remove. Prints the words so
 * that each can be labelled by reading; asserts nothing.
 *   npm run build && node dist/bench/spelling.bench.js   (JFLEG=path to jfleg_dev, default ../shared/data/jfleg_dev)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { unitsOf } from '../extension/engine/checks/checker';
import { CspellSpeller } from '../extension/engine/checks/cspellSpeller';
import { SpellChecker, type SpellFinding } from '../extension/engine/checks/spelling';
import { detokenize } from '../extension/engine/eval/checksEval';
import { enUsSpeller, type Speller } from '../extension/engine/metrics/nonwords';
import { Reporter } from './report';

const r = new Reporter('spelling');
const JFLEG = process.env.JFLEG ?? path.join('..', '..', 'shared', 'data', 'jfleg_dev');

const markdownUnder = (dir: string): string[] =>
  !existsSync(dir)
    ? []
    : readdirSync(dir).flatMap((f) => {
        const p = path.join(dir, f);
        return statSync(p).isDirectory() ? markdownUnder(p) : /\.md$/i.test(f) ? [p] : [];
      });
/** Tuned on: undici's docs and unified's readme. Reported: the others, read only for the numbers. */
const SETS = {
  tune: [...markdownUnder('node_modules/undici/docs'), 'node_modules/unified/readme.md'],
  report: [
    'node_modules/semver/README.md',
    'node_modules/commander/Readme.md',
    'node_modules/@huggingface/transformers/README.md',
    'node_modules/zod/README.md',
    'node_modules/markdown-it/README.md',
  ].filter((f) => existsSync(f)),
};

function timed<T>(what: string, make: () => T): T {
  const t = performance.now();
  const v = make();
  r.row(`load: ${what}`, Math.round(performance.now() - t), 'ms');
  return v;
}

const nspell = timed('nspell, hunspell en_US', () => {
  const s = enUsSpeller();
  s.correct('warm');
  return s;
});
const cspell = timed('cspell dictionaries, American', () => new CspellSpeller('American'));
const cspellGb = timed('cspell dictionaries, American and British', () => new CspellSpeller('American', ['British']));
const SPELLERS: Record<string, Speller> = {
  nspell,
  cspell,
  'both reject': { correct: (w) => nspell.correct(w) || cspell.correct(w) },
  'both accept, or a software term': {
    correct: (w) => (nspell.correct(w) && cspell.inLanguage(w)) || cspell.inTerms(w),
  },
  'cspell, British accepted': cspellGb,
};

/** The spelling findings of a document's prose, as the checker reads it (code, links and markup out). */
function findings(checker: SpellChecker, text: string, format: 'markdown' | 'plain'): SpellFinding[] {
  return unitsOf(text, format).flatMap((u) =>
    checker.check(u.key).filter((f) => !u.holes.some((h) => f.start < h.end && f.end > h.start)),
  );
}

/** Words the document writes at least `times` times in lower case: a name it uses (the measured rule). */
function usedAsName(text: string, word: string, times = 3): boolean {
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}_])`, 'gu');
  return word === word.toLowerCase() && (text.match(re)?.length ?? 0) >= times;
}

for (const [set, files] of Object.entries(SETS)) {
  const docs = files.map((f) => readFileSync(f, 'utf8'));
  const words = docs.reduce((a, d) => a + unitsOf(d, 'markdown').reduce((b, u) => b + u.key.split(/\s+/).length, 0), 0);
  r.section(`technical Markdown, ${set} set: ${files.length} files, ${words} words of prose`);
  for (const [name, speller] of Object.entries(SPELLERS)) {
    const checker = new SpellChecker(speller);
    const counts = new Map<string, number>();
    let names = 0;
    const t = performance.now();
    for (const d of docs)
      for (const f of findings(checker, d, 'markdown')) {
        counts.set(f.word, (counts.get(f.word) ?? 0) + 1);
        if (usedAsName(d, f.word) && f.suggestions.length === 0) names++;
      }
    const ms = performance.now() - t;
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    r.row(
      `${name}: unknown words`,
      total,
      '',
      `${((1000 * total) / words).toFixed(2)} per 1,000 words; ${ms.toFixed(0)} ms`,
    );
    r.row(`${name}: of them written 3+ times in lower case by their document, nothing one edit away`, names);
    const list = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    console.log(`    ${list.map(([w, n]) => (n > 1 ? `${w}×${n}` : w)).join(' ')}`);
  }
}

if (existsSync(path.join(JFLEG, 'dev.src'))) {
  const read = (n: string) =>
    readFileSync(path.join(JFLEG, n), 'utf8')
      .split('\n')
      .filter((l, i, a) => i < a.length - 1 || l);
  const src = read('dev.src');
  const refs = [0, 1, 2, 3].map((i) => read(`dev.ref${i}`));
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const erroneous = src.map((s, i) => refs.every((ref) => norm(ref[i]) !== norm(s)));
  const nErroneous = erroneous.filter(Boolean).length;
  r.section(`JFLEG dev: ${nErroneous} erroneous sentences, ${refs.length * src.length} corrected ones`);
  const srcText = src.map(detokenize);
  const asOne = srcText.join('\n\n');
  for (const [name, speller] of Object.entries(SPELLERS)) {
    const checker = new SpellChecker(speller);
    const flagged = srcText.filter((s, i) => erroneous[i] && checker.check(s).length > 0).length;
    const falseFlags = refs.flat().reduce((a, s) => a + checker.check(detokenize(s)).length, 0);
    // The sentences as one document: the misspellings a "used 3+ times" rule would hide.
    const all = srcText.flatMap((s) => checker.check(s));
    const hidden = all.filter((f) => usedAsName(asOne, f.word) && f.suggestions.length === 0).length;
    r.row(`${name}: erroneous sentences flagged`, `${((100 * flagged) / nErroneous).toFixed(1)} %`);
    r.row(`${name}: false flags per corrected sentence`, (falseFlags / (refs.length * src.length)).toFixed(3));
    r.row(`${name}: unknown words in the sources; hidden by the 3+ rule`, `${all.length}; ${hidden}`);
  }
}
r.done();
