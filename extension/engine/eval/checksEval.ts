/**
 * How well the prose checks do on JFLEG (learner sentences with errors, each with four fluent
 * corrections by different annotators): per rule family, the share of erroneous sentences it flags,
 * and how often it flags the corrected sentences, which have no error left (false flags).
 *
 * - An erroneous sentence is a source sentence that none of its four corrections leaves as it is.
 * - A corrected sentence is each of the four references (3,016 on the dev split); every finding on
 *   one counts as a false flag, though an annotator's correction is not always perfect English.
 * - JFLEG's text is tokenized ("technologies ." , "do n't"): it is put back as written first
 *   (detokenize), or every comma would be a spacing error.
 * Every family is on, whatever its default, so each is measured; the table sets the defaults
 * (rules.ts) and is in docs/checks.md.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ProseChecker, type CheckFinding, defaultCheckerConfig } from '../checks/checker';
import { DEFAULT_GRAMMAR_RULES_OFF, FAMILIES, FAMILY_NAMES } from '../checks/rules';

export interface ChecksEvalOptions {
  dataDir: string;
  limit?: number;
}

/** JFLEG's tokenized text as a writer would have typed it. */
export function detokenize(line: string): string {
  return line
    .trim()
    .replace(/``\s*|''\s*/g, '"')
    .replace(/\s+([.,!?;:%)\]}])/g, '$1')
    .replace(/([([{$])\s+/g, '$1')
    .replace(/\s+(n't|'s|'re|'ve|'m|'ll|'d)\b/gi, '$1')
    .replace(/"\s+([^"]*?)\s+"/g, '"$1"')
    .replace(/\s+/g, ' ');
}

const normal = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Each line's findings, when the lines are checked as paragraphs of one document. */
async function findingsPerLine(checker: ProseChecker, lines: readonly string[]): Promise<CheckFinding[][]> {
  const text = lines.join('\n\n');
  const starts: number[] = [];
  let at = 0;
  for (const l of lines) {
    starts.push(at);
    at += l.length + 2;
  }
  const result = await checker.check(text, 'plain');
  const out: CheckFinding[][] = lines.map(() => []);
  for (const f of result?.findings ?? []) {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= f.start) lo = mid;
      else hi = mid - 1;
    }
    out[lo].push(f);
  }
  return out;
}

export async function runChecksEval(o: ChecksEvalOptions, progress: (m: string) => void): Promise<string> {
  const read = (name: string) => {
    const lines = readFileSync(path.join(o.dataDir, name), 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    return o.limit ? lines.slice(0, o.limit) : lines;
  };
  const src = read('dev.src');
  const refs = [0, 1, 2, 3].map((i) => read(`dev.ref${i}`));
  if (refs.some((r) => r.length !== src.length))
    throw new Error(`${o.dataDir}: dev.src and dev.ref0-3 differ in length`);
  const erroneous = src.map((s, i) => refs.every((r) => normal(r[i]) !== normal(s)));

  const started = performance.now();
  const checker = await ProseChecker.create();
  const config = defaultCheckerConfig();
  for (const f of FAMILY_NAMES) config.rules[f] = 'warning';
  config.grammarRulesOff = [];
  await checker.configure(config);
  progress(`checking ${src.length} source sentences and ${src.length * 4} corrections…`);
  const srcFindings = await findingsPerLine(checker, src.map(detokenize));
  const refFindings = await findingsPerLine(checker, refs.flat().map(detokenize));
  const ms = performance.now() - started;

  const nErroneous = erroneous.filter(Boolean).length;
  const rows: string[] = [];
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  const row = (name: string, has: (f: CheckFinding) => boolean) => {
    const flagged = srcFindings.filter((fs, i) => erroneous[i] && fs.some(has)).length;
    const falseFlags = refFindings.reduce((a, fs) => a + fs.filter(has).length, 0);
    const refsFlagged = refFindings.filter((fs) => fs.some(has)).length;
    rows.push(
      `| ${name} | ${pct(flagged / nErroneous)} | ${(falseFlags / refFindings.length).toFixed(3)} | ` +
        `${pct(refsFlagged / refFindings.length)} |`,
    );
  };
  for (const f of FAMILY_NAMES) row(`${FAMILIES[f].title} (${f})`, (x) => x.family === f);
  // The speller's hints (another English's spellings, words made of known parts) are not warnings.
  row('Spelling, without its hints', (x) => x.family === 'spelling' && x.severity !== 'hint');
  const offByDefault = new Set(DEFAULT_GRAMMAR_RULES_OFF.map((r) => `grammar/${r}`));
  row('Grammar, without the rules off by default', (x) => x.family === 'grammar' && !offByDefault.has(x.rule));
  row('**all families, every rule**', () => true);
  const defaults = (x: CheckFinding) =>
    !['hint', 'off'].includes(FAMILIES[x.family].default) && x.severity !== 'hint' && !offByDefault.has(x.rule);
  row('**the defaults: warnings and information, default rules**', defaults);

  // The Harper rules that flag corrected sentences most: candidates for draftsmith.checks.grammarRulesOff.
  const perRule = new Map<string, { src: number; ref: number }>();
  srcFindings.forEach((fs, i) => {
    if (!erroneous[i]) return;
    for (const r of new Set(fs.filter((f) => f.family === 'grammar').map((f) => f.rule)))
      perRule.set(r, { src: (perRule.get(r)?.src ?? 0) + 1, ref: perRule.get(r)?.ref ?? 0 });
  });
  for (const fs of refFindings)
    for (const f of fs.filter((x) => x.family === 'grammar'))
      perRule.set(f.rule, { src: perRule.get(f.rule)?.src ?? 0, ref: (perRule.get(f.rule)?.ref ?? 0) + 1 });
  // Off by default: a rule that flags corrected sentences at least half as often as erroneous ones
  // (rates per sentence), counted over the rules with at least 5 false flags.
  const rate = (n: { src: number; ref: number }) => n.ref / refFindings.length / Math.max(1e-9, n.src / nErroneous);
  const worst = [...perRule.entries()].sort((a, b) => b[1].ref - a[1].ref).slice(0, 15);
  const off = [...perRule.entries()]
    .filter(([, n]) => n.ref >= 5 && rate(n) >= 0.5)
    .map(([r]) => r.slice('grammar/'.length));
  const unknown = new Map<string, number>();
  for (const fs of refFindings) for (const f of fs) if (f.word) unknown.set(f.word, (unknown.get(f.word) ?? 0) + 1);
  const words = [...unknown.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20);
  return [
    `JFLEG dev (${src.length} source sentences, ${nErroneous} erroneous; ${refFindings.length} corrected ` +
      `sentences), checked in ${(ms / 1000).toFixed(1)} s`,
    '',
    '| family | erroneous sentences flagged | false flags per corrected sentence | corrected sentences flagged |',
    '|---|---:|---:|---:|',
    ...rows,
    '',
    'Harper rules with the most false flags (erroneous sentences flagged, flags on corrected sentences, and ' +
      'the ratio of the two rates per sentence):',
    '',
    '| rule | erroneous flagged | false flags | false/true rate |',
    '|---|---:|---:|---:|',
    ...worst.map(([r, n]) => `| ${r} | ${n.src} | ${n.ref} | ${n.src === 0 ? '∞' : rate(n).toFixed(2)} |`),
    '',
    `Rules with at least 5 false flags and a ratio of 0.5 or more (off by default): ${off.sort().join(', ') || 'none'}`,
    '',
    `Words the speller flags most in corrected sentences: ${words.map(([w, n]) => `${w} (${n})`).join(', ')}`,
    '',
  ].join('\n');
}
