/**
 * The command table (commands.ts) as text: `draftsmith --help`, `draftsmith COMMAND --help`, and
 * docs/cli.md (written by `npm run docs`, checked by test/unit/docs.test.ts).
 */
import { COMMANDS, GENERAL_NOTES, spelled, type CommandSpec, type OptionSpec } from './commands';

const WIDTH = 110;
/** Where an option's description starts in COMMAND --help. */
const OPTION_COLUMN = 36;

/** The words of `text`, a bracketed group ("[--confidence [--confidence-n N]]") kept as one. */
function units(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let word = '';
  for (const ch of text) {
    if (ch === ' ' && depth === 0) {
      if (word) out.push(word);
      word = '';
      continue;
    }
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    word += ch;
  }
  if (word) out.push(word);
  return out;
}

/** `words` filled into lines of at most WIDTH characters (a longer word gets a line of its own). */
function fill(words: readonly string[], first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const w of words) {
    if (!empty && line.length + 1 + w.length > WIDTH) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line += (empty ? '' : ' ') + w;
    empty = false;
  }
  if (!empty) lines.push(line);
  return lines;
}

const prose = (text: string, first: string, rest = first) => (text ? fill(text.split(' '), first, rest) : []);

const optionHead = (o: OptionSpec) => `${spelled(o)}${o.value ? ` ${o.value}` : ''}${o.repeatable ? ' ...' : ''}`;
const optionText = (o: OptionSpec) => `${o.description}${o.default !== undefined ? ` (default ${o.default})` : ''}`;

const HEAD =
  '  draftsmith --help | -h | help: every command; draftsmith COMMAND --help: one command, each of its options ' +
  'described.';

/** A command's usage lines, each with its note (the first also with the command's summary). */
function synopses(c: CommandSpec): string[] {
  const hanging = ' '.repeat(2 + `draftsmith ${c.name} `.length);
  return c.usage.flatMap((u, i) => [
    ...fill(units(`draftsmith ${u.synopsis}`), '  ', hanging),
    ...prose([i === 0 ? `${c.summary}.` : '', u.note ?? ''].filter(Boolean).join(' '), '      '),
  ]);
}

/** Command names as a phrase: "summarize, essay and every eval". */
function commandList(names: readonly string[]): string {
  const evals = COMMANDS.filter((c) => c.name.startsWith('eval ')).map((c) => c.name);
  const everyEval = evals.every((e) => names.includes(e));
  const parts = [...names.filter((n) => !everyEval || !n.startsWith('eval ')), ...(everyEval ? ['every eval'] : [])];
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts.join('');
}

/** Options that several commands take alike (same name and description), with the commands. */
function sharedOptions(): { option: OptionSpec; commands: string[] }[] {
  const byKey = new Map<string, { option: OptionSpec; commands: string[] }>();
  for (const c of COMMANDS)
    for (const o of c.options) {
      const key = `${o.name}\n${o.description}`;
      const entry = byKey.get(key) ?? { option: o, commands: [] };
      entry.commands.push(c.name);
      byKey.set(key, entry);
    }
  return [...byKey.values()].filter((e) => e.commands.length > 1);
}

const notes = () => GENERAL_NOTES.flatMap((n) => prose(`${n.title}: ${n.text}`, '  ', '      '));

/** `draftsmith --help`: every command's usage, the options several share, and the notes. */
export function usageText(): string {
  return [
    'usage:',
    HEAD,
    ...COMMANDS.flatMap(synopses),
    '  Options several commands take (draftsmith COMMAND --help describes all of its own):',
    ...sharedOptions().flatMap(({ option, commands }) =>
      prose(`${optionHead(option)} (${commandList(commands)}): ${optionText(option)}`, '  ', '      '),
    ),
    ...notes(),
  ].join('\n');
}

/** `draftsmith COMMAND --help`: the command's usage, each of its options, its examples, the notes. */
export function commandHelp(c: CommandSpec): string {
  const options = c.options.flatMap((o) => {
    const head = `      ${optionHead(o)}`;
    const pad = ' '.repeat(OPTION_COLUMN);
    return head.length < OPTION_COLUMN - 1
      ? prose(optionText(o), head.padEnd(OPTION_COLUMN), pad)
      : [head, ...prose(optionText(o), pad)];
  });
  const examples = (c.examples ?? []).flatMap((e) => [`      draftsmith ${e.args}`, ...prose(e.what, '          ')]);
  return [
    'usage:',
    HEAD,
    ...synopses(c),
    '    options:',
    ...options,
    ...(examples.length ? ['    examples:', ...examples] : []),
    ...notes(),
  ].join('\n');
}

/** Markdown: a table cell's text, with what would end the cell or open a tag escaped. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/</g, '&lt;');
/** Markdown: prose outside a code span, with tag openings escaped. */
const text = (s: string) => s.replace(/</g, '&lt;');
const anchor = (name: string) => name.replace(/ /g, '-');

/** docs/cli.md: the reference, generated from the same table. */
export function cliReference(): string {
  const out: string[] = [
    '# Command line',
    '',
    '<!-- Generated by `npm run docs` from extension/cli/commands.ts: edit the table there, not this file. -->',
    '',
    'The same engine as the extension runs from a terminal: `npx draftsmith COMMAND` (or `node dist/cli.js COMMAND`)',
    'after `npm install && npm run build`. `draftsmith --help` lists every command, `draftsmith COMMAND --help` one',
    'command with each of its options. What each metric of `score` matches, and how it was checked:',
    '[METRICS.md](METRICS.md).',
    '',
    '| command | what it does |',
    '|---|---|',
    ...COMMANDS.map((c) => `| [\`${c.name}\`](#${anchor(c.name)}) | ${cell(c.summary)} |`),
    '',
  ];
  for (const c of COMMANDS) {
    out.push(`## ${c.name}`, '', `${text(c.summary)}.`, '', '```text');
    for (const u of c.usage) out.push(...fill(units(`draftsmith ${u.synopsis}`), '', '    '));
    out.push('```', '');
    for (const u of c.usage) if (u.note) out.push(text(u.note), '');
    out.push('| option | default | what it does |', '|---|---|---|');
    for (const o of c.options)
      out.push(
        `| \`${cell(optionHead(o))}\` | ${o.default !== undefined ? `\`${cell(o.default)}\`` : ''} | ` +
          `${cell(o.description)} |`,
      );
    out.push('');
    if (c.examples?.length) {
      out.push('```bash');
      for (const e of c.examples) out.push(`# ${e.what}`, `npx draftsmith ${e.args}`);
      out.push('```', '');
    }
  }
  out.push('## For every command', '');
  for (const n of GENERAL_NOTES) out.push(`**${n.title}:** ${text(n.text)}`, '');
  return out.join('\n');
}
