/**
 * `draftsmith check FILE ... | FOLDER`: the editor's prose checks from a terminal or CI, printed as
 * linters print (`FILE:LINE:COLUMN: severity rule: message`), or as JSON. Exit 1 when something was
 * found, 0 when nothing was, 2 on a bad command line (a name that is not there included).
 *
 * LINE counts in the file as given (a Markdown file's front matter and code included); COLUMN counts
 * UTF-16 code units from 1, as VS Code does. The personal dictionaries are the editor's: the working
 * folder's .draftsmith/dictionary.txt and ~/.draftsmith/dictionary.txt, and any --dictionary; and
 * each file's project word lists (Code Spell Checker's, Vale's), from its folder up to the git root
 * (outside a repository, up to the file system's root).
 */
import { readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ProseChecker, type CheckFinding } from '../engine/checks/checker';
import { DIALECTS } from '../engine/checks/dialects';
import { DICTIONARY_FILE, readDictionary, userDictionaryPath } from '../engine/checks/dictionary';
import { checkerConfigFrom } from '../engine/checks/options';
import { gitRoot, projectWords } from '../engine/checks/projectDictionaries';
import { FAMILIES, FAMILY_NAMES, type Family, type RuleSetting } from '../engine/checks/rules';
import { EngineError } from '../engine/errors';
import { formatOf } from '../engine/text/markdown';
import { lineIndexOf, lineSpans } from '../engine/text/reader';
import { flag, type Args } from './args';
import { readTextFile } from './inputText';

const CHECKED = /\.(?:md|markdown|mdown|mkd|mdx|txt|text)$/i;

/** The files to check: the files named, and the Markdown and text files under each folder named (not in dot folders or node_modules). */
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
      throw new EngineError('bad-request', `no such file or folder: ${name}`);
    }
    if (folder) walk(name);
    else out.push(name);
  }
  return out;
}

/** --rule: families or single rules ("grammar/AnA"); each family named is on (as a warning when it is off by default). */
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
        `--rule: no rule "${n}"; the families are ${FAMILY_NAMES.join(', ')}, and single grammar rules are grammar/NAME`,
      );
  }
  return { families, rules, grammarFamily };
}

function position(lines: ReturnType<typeof lineSpans>, offset: number): { line: number; column: number } {
  const i = lineIndexOf(lines, offset);
  return { line: i + 1, column: offset - lines[i].start + 1 };
}

export async function checkCommand(a: Args): Promise<number> {
  const names = a.positional.slice(1);
  if (names.length === 0) throw new EngineError('bad-request', 'check needs a FILE or FOLDER (or several)');
  const selection = ruleSelection(a.flags.get('rule') ?? []);
  const files = filesToCheck(names);
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
  // By default what a CI job should fail on: every family whose default is not a hint (or off).
  const raw: Record<string, RuleSetting> = {};
  for (const f of FAMILY_NAMES) {
    const d = FAMILIES[f].default as RuleSetting;
    raw[FAMILIES[f].setting] = selection
      ? selection.families.has(f)
        ? d === 'off' || d === 'hint'
          ? 'warning'
          : d
        : 'off'
      : d === 'hint'
        ? 'off'
        : d;
  }
  const dialect = flag(a, 'dialect');
  if (dialect !== undefined && !(DIALECTS as readonly string[]).includes(dialect))
    throw new EngineError('bad-request', `--dialect: no dialect "${dialect}"; the dialects are ${DIALECTS.join(', ')}`);
  const config = (file?: string) =>
    checkerConfigFrom(
      { ...raw, dialect },
      file
        ? [...words, ...projectWords(file, gitRoot(path.dirname(file)) ?? path.parse(path.resolve(file)).root).words]
        : words,
    );
  const checker = await ProseChecker.create(config());
  const json = flag(a, 'json') !== undefined;
  const report: {
    file: string;
    line: number;
    column: number;
    endLine: number;
    endColumn: number;
    finding: CheckFinding;
  }[] = [];
  let count = 0;
  for (const file of files) {
    const text = await readTextFile(file);
    await checker.configure(config(file)); // the project's own word lists, found from the file's folder up
    const result = await checker.check(text, formatOf(file));
    const lines = lineSpans(text);
    for (const f of result?.findings ?? []) {
      if (selection?.rules.size && f.family === 'grammar' && !selection.grammarFamily && !selection.rules.has(f.rule))
        continue;
      const start = position(lines, f.start);
      const end = position(lines, f.end);
      count++;
      if (json) report.push({ file, ...start, endLine: end.line, endColumn: end.column, finding: f });
      else process.stdout.write(`${file}:${start.line}:${start.column}: ${f.severity} ${f.rule}: ${f.message}\n`);
    }
  }
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
        })),
        null,
        2,
      ) + '\n',
    );
  process.stderr.write(
    `${count} finding${count === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}\n`,
  );
  await checker.dispose();
  return count > 0 ? 1 : 0;
}
