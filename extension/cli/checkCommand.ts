/**
 * `draftsmith check FILE ... | FOLDER`: the editor's prose checks from a terminal or CI, printed as
 * linters print (`FILE:LINE:COLUMN: severity rule: message`), or as JSON. Exit 1 when a finding is at
 * least as severe as --fail-on (default: an error), 0 otherwise, 2 on a bad command line (a name that
 * is not there, or nothing to check, included). --baseline reports only what is new (checkBaseline.ts).
 *
 * LINE counts in the file as given (a Markdown file's front matter and code included); COLUMN counts
 * UTF-16 code units from 1, as VS Code does. The personal dictionaries are the editor's: the working
 * folder's .draftsmith/dictionary.txt and ~/.draftsmith/dictionary.txt, and any --dictionary; and
 * each file's project word lists (Code Spell Checker's, Vale's), from its folder up to the git root
 * (outside a repository, up to the file system's root).
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { ProseChecker, type CheckFinding } from '../engine/checks/checker';
import { DICTIONARY_FILE, readDictionary, userDictionaryPath } from '../engine/checks/dictionary';
import { DIALECTS } from '../engine/checks/dialects';
import { imageDirFromEnvironment } from '../engine/checks/harperImage';
import { checkerConfigFrom } from '../engine/checks/options';
import { gitRoot, projectDialect, projectWords } from '../engine/checks/projectDictionaries';
import {
  FAMILIES,
  FAMILY_NAMES,
  SEVERITIES,
  type Family,
  type RuleSetting,
  type Severity,
} from '../engine/checks/rules';
import { EngineError } from '../engine/errors';
import { formatOf } from '../engine/text/markdown';
import { lineIndexOf, lineSpans } from '../engine/text/reader';
import { flag, type Args } from './args';
import { readTextFile } from './inputText';
import { Baseline, contextOf, GitRevision, isJsonBaseline, keyPath, readJsonBaseline } from './checkBaseline';
import { progressBar } from './progressBar';

const CHECKED = /\.(?:md|markdown|mdown|mkd|mdx|txt|text)$/i;

/**
 * The files to check: the files named, and the Markdown and text files under each folder named (not in
 * dot folders or node_modules).
 */
export function filesToCheck(names: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && CHECKED.test(e.name)) out.push(p);
    }
  };
  for (const name of names) {
    let folder: boolean;
    try {
      folder = statSync(name).isDirectory();
    } catch {
      throw new EngineError(
        'bad-request',
        /[*?[]/.test(name) ? `${name} matches no file` : `no such file or folder: ${name}`,
      );
    }
    if (folder) {
      const before = out.length;
      walk(name);
      if (out.length === before)
        throw new EngineError('bad-request', `${name} has no Markdown or text file to check (.md, .markdown, .txt)`);
    } else out.push(name);
  }
  return out;
}

/** Binary, as git decides it: a NUL byte in the first 8 KB. */
export function isBinaryFile(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(8192);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).includes(0);
  } finally {
    closeSync(fd);
  }
}

/** --fail-on: the least severe finding that fails the run ('never': none does). */
export function failOnLevel(value: string | undefined): Severity | 'never' {
  if (value === undefined) return 'error';
  if (value === 'never' || (SEVERITIES as readonly string[]).includes(value)) return value as Severity | 'never';
  throw new EngineError('bad-request', `--fail-on: "${value}" is not one of ${[...SEVERITIES, 'never'].join(', ')}`);
}

/** Whether a finding of `severity` fails a run with --fail-on `level`. */
export function fails(severity: Severity, level: Severity | 'never'): boolean {
  return level !== 'never' && SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(level);
}

/**
 * --rule: families or single rules ("grammar/AnA"); each family named is on (as a warning when it is off by default).
 */
export function ruleSelection(
  values: readonly string[],
): { families: Set<Family>; rules: Set<string>; grammarFamily: boolean } | undefined {
  const names = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (names.length === 0) return undefined;
  const families = new Set<Family>();
  const rules = new Set<string>();
  const grammarFamily = names.includes('grammar');
  for (const n of names) {
    if ((FAMILY_NAMES as string[]).includes(n)) families.add(n as Family);
    else if (/^grammar\/\w+$/.test(n)) {
      families.add('grammar');
      rules.add(n);
    } else
      throw new EngineError(
        'bad-request',
        `--rule: no rule "${n}"; the families are ${FAMILY_NAMES.join(', ')}, and single grammar rules are ` +
          `grammar/NAME`,
      );
  }
  return { families, rules, grammarFamily };
}

function position(lines: ReturnType<typeof lineSpans>, offset: number): { line: number; column: number } {
  const i = lineIndexOf(lines, offset);
  return { line: i + 1, column: offset - lines[i].start + 1 };
}

interface Reported {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** The finding's text and the words around it (what --baseline matches on). */
  context: string;
  finding: CheckFinding;
}

export async function checkCommand(a: Args): Promise<number> {
  const names = a.positional.slice(1);
  if (names.length === 0) throw new EngineError('bad-request', 'check needs a FILE or FOLDER (or several)');
  const selection = ruleSelection(a.flags.get('rule') ?? []);
  const failOn = failOnLevel(flag(a, 'fail-on'));
  const baselineRef = flag(a, 'baseline');
  const jsonBaseline =
    baselineRef !== undefined && isJsonBaseline(baselineRef) ? readJsonBaseline(baselineRef) : undefined;
  const revision = baselineRef !== undefined && !jsonBaseline ? new GitRevision(baselineRef) : undefined;
  const files = filesToCheck(names).filter((file) => {
    if (!isBinaryFile(file)) return true;
    process.stderr.write(`skipped ${file}: a binary file, not text\n`);
    return false;
  });
  if (files.length === 0) throw new EngineError('bad-request', 'nothing to check: every file named is binary');
  const words = [
    ...readDictionary(userDictionaryPath()),
    ...readDictionary(path.join(process.cwd(), DICTIONARY_FILE)),
    ...(a.flags.get('dictionary') ?? []).flatMap((f) => {
      try {
        statSync(f);
      } catch {
        throw new EngineError('bad-request', `--dictionary: no such file: ${f}`);
      }
      return readDictionary(f);
    }),
  ];
  // By default what a CI job should see: every family whose default is not a hint (or off), and no
  // finding the checker is unsure of (a hint); --hints adds what the editor shows as hints.
  const hints = flag(a, 'hints') !== undefined;
  const raw: Record<string, RuleSetting> = {};
  for (const f of FAMILY_NAMES) {
    const d = FAMILIES[f].default as RuleSetting;
    raw[FAMILIES[f].setting] = selection
      ? selection.families.has(f)
        ? d === 'off' || d === 'hint'
          ? 'warning'
          : d
        : 'off'
      : d === 'hint' && !hints
        ? 'off'
        : d;
  }
  const dialect = flag(a, 'dialect');
  if (dialect !== undefined && !(DIALECTS as readonly string[]).includes(dialect))
    throw new EngineError('bad-request', `--dialect: no dialect "${dialect}"; the dialects are ${DIALECTS.join(', ')}`);
  const rootOf = (file: string) => gitRoot(path.dirname(file)) ?? path.parse(path.resolve(file)).root;
  // --dialect, else the English the project's Code Spell Checker config declares ("language": "en-GB").
  const config = (file?: string) =>
    checkerConfigFrom(
      { ...raw, dialect: dialect ?? (file ? projectDialect(file, rootOf(file)) : undefined) },
      file ? [...words, ...projectWords(file, rootOf(file)).words] : words,
    );
  // Harper's WebAssembly stays with V8's baseline compiler (Liftoff) unless a function runs a very long
  // time: its optimising compiler, at V8's default budget, spends more CPU on Harper's hot functions
  // than a run of a few files gains from them (3.1 against 0.9 s of CPU on a 5-word file, 8.9 against
  // 6.3 s on 50,000 words; docs/checks.md). Set before Harper's binary is compiled.
  v8.setFlagsFromString('--wasm-tiering-budget=2000000000');
  const checker = await ProseChecker.create(config(), { harper: { imageDir: imageDirFromEnvironment() } });
  const json = flag(a, 'json') !== undefined;
  const findingsOf = async (file: string, text: string): Promise<Reported[]> => {
    await checker.configure(config(file)); // the project's own word lists, found from the file's folder up
    const result = await checker.check(text, formatOf(file));
    const lines = lineSpans(text);
    const out: Reported[] = [];
    for (const f of result?.findings ?? []) {
      if (f.severity === 'hint' && !hints) continue;
      if (selection?.rules.size && f.family === 'grammar' && !selection.grammarFamily && !selection.rules.has(f.rule))
        continue;
      const start = position(lines, f.start);
      const end = position(lines, f.end);
      out.push({
        file,
        ...start,
        endLine: end.line,
        endColumn: end.column,
        context: contextOf(text, f.start, f.end),
        finding: f,
      });
    }
    return out;
  };
  const baseline = jsonBaseline ? new Baseline(jsonBaseline) : undefined;
  const report: Reported[] = [];
  let old = 0;
  // A bar on a terminal when the run is long enough to wonder about (logs and pipes stay clean).
  const bar = files.length >= 20 ? progressBar('checking') : undefined;
  for (const [n, file] of files.entries()) {
    bar?.update(n, files.length);
    const text = await readTextFile(file);
    let found = await findingsOf(file, text);
    const before = revision?.read(file);
    const since = revision
      ? new Baseline(before === undefined ? [] : (await findingsOf(file, before)).map((r) => keyFor(r)))
      : baseline;
    if (since) {
      const all = found.length;
      found = found.filter((r) => since.isNew(keyFor(r)));
      old += all - found.length;
    }
    for (const r of found) {
      report.push(r);
      if (!json)
        process.stdout.write(
          `${r.file}:${r.line}:${r.column}: ${r.finding.severity} ${r.finding.rule}: ${r.finding.message}\n`,
        );
    }
  }
  bar?.done();
  if (json)
    process.stdout.write(
      JSON.stringify(
        report.map((r) => ({
          file: r.file,
          line: r.line,
          column: r.column,
          endLine: r.endLine,
          endColumn: r.endColumn,
          ...r.finding,
          context: r.context,
        })),
        null,
        2,
      ) + '\n',
    );
  const count = report.length;
  const failing = report.filter((r) => fails(r.finding.severity, failOn)).length;
  process.stderr.write(
    `${count} ${baselineRef !== undefined ? 'new ' : ''}finding${count === 1 ? '' : 's'} in ${files.length} ` +
      `file${files.length === 1 ? '' : 's'}` +
      (baselineRef !== undefined ? ` (${old} already in ${baselineRef})` : '') +
      (count > 0 ? `; ${failing} at --fail-on ${failOn}${failOn === 'never' ? '' : ' or above'}` : '') +
      '\n',
  );
  await checker.dispose();
  return failing > 0 ? 1 : 0;
}

const keyFor = (r: Reported) => ({ file: keyPath(r.file), rule: r.finding.rule, context: r.context });
