/**
 * The prose checker: text in, findings out (offsets into the text, a family and rule, a severity, a
 * message and fixes). No editor in sight: the host turns findings into diagnostics and the CLI into
 * lines.
 *
 * What is checked is the document's prose as text/markdown.ts reads it (code blocks, tables, HTML,
 * front matter, link targets and markup left out), and within it inline code, bare links and e-mail
 * addresses are replaced by a placeholder word, so that "Run `npm test` first" reads as a sentence
 * but `npm test` is never checked; a finding that touches a placeholder is dropped. Identifiers, flags,
 * versions and handles written outside backticks are placeholders too (technical.ts).
 *
 * Each paragraph becomes a "unit": its prose with the markup taken out, and the map from each of its
 * characters back into the document. Findings are computed per unit and cached by the unit's text,
 * so after an edit only the paragraphs whose text changed are checked again: the rest is a lookup
 * and a remap (the whole document is still read, which costs a few milliseconds for 10,000 words).
 * A check yields to the event loop between batches of paragraphs and stops when its signal aborts.
 */
import type { DocumentFormat } from '../text/markdown';
import { junkRatio, type Span } from '../text/reader';
import { Harper, type HarperFinding, type HarperLoadOptions } from './harper';
import { readProse, rereadAfterEdit, type ProseRead } from './reread';
import {
  DEFAULT_GRAMMAR_RULES_OFF,
  defaultRuleSettings,
  FAMILIES,
  HARPER_FAMILIES,
  HARPER_FAMILY,
  MARKDOWN_GRAMMAR_RULES_OFF,
  type Family,
  type RuleSetting,
  type Severity,
} from './rules';
import { DEFAULT_DIALECT, type Dialect } from './dialects';
import { SpellChecker, WordSet, type SpellFinding } from './spelling';
import { withoutCodeNames } from './codeNames';
import { StyleChecker, type StyleFinding } from './style';
import { TECHNICAL } from './technical';

export interface CheckFix {
  /** What the quick fix says: 'Change to “the”'. */
  title: string;
  start: number;
  end: number;
  /** The replacement for text.slice(start, end) ('' removes it). */
  text: string;
}

export interface CheckFinding {
  start: number;
  end: number;
  family: Family;
  /** The family, or family/Harper's rule name for grammar ("grammar/PronounVerbAgreement"). */
  rule: string;
  severity: Severity;
  message: string;
  fixes: CheckFix[];
  /** One fix that cannot change the meaning (Fix All Safe Issues applies it). */
  safe: boolean;
  /** The word, for spelling findings (Add to Dictionary). */
  word?: string;
}

export interface CheckerConfig {
  rules: Record<Family, RuleSetting>;
  /** Harper rules turned off. */
  grammarRulesOff: readonly string[];
  /** The personal dictionaries' words. */
  words: readonly string[];
  /** The English whose spellings are right (Harper's rules and the speller's dictionary). */
  dialect?: Dialect;
}

export interface CheckerOptions {
  /** How Harper is loaded (harper.ts): from a saved image, in a short-lived process. */
  harper?: HarperLoadOptions;
}

export interface CheckResult {
  findings: CheckFinding[];
  /** Paragraphs (units) read, and how many of them had to be checked (not in the cache). */
  units: number;
  checked: number;
  ms: number;
}

export function defaultCheckerConfig(): CheckerConfig {
  return { rules: defaultRuleSettings(), grammarRulesOff: [...DEFAULT_GRAMMAR_RULES_OFF], words: [] };
}

/** A finding in a unit's own coordinates, before settings and the map back into the document. */
interface RawFinding {
  start: number;
  end: number;
  family: Family;
  rule: string;
  message: string;
  fixes: { start: number; end: number; text: string; title: string }[];
  word?: string;
  /** Less sure than its family's other findings: shown as a hint whatever the family's severity. */
  hint?: boolean;
}

interface Unit {
  /** The prose to check (markup out, placeholders in). */
  key: string;
  /** map[i]: the document offset of key[i]; map[key.length]: the document offset just past the unit. */
  map: Int32Array;
  /** Placeholder ranges in key. */
  holes: Span[];
  /** A list item's text: it need not start with a capital. */
  listItem: boolean;
}

const PLACEHOLDER = 'code';
/** Bare links, www. addresses and e-mail addresses: never prose. */
const LINKISH = /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>()[\]"'`]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gi;
/**
 * File names and paths written as prose ("see settings.md", "under docs/", "dist/cli.js"): code to
 * a reader, so a placeholder too. A name is a stem of two or more characters and a lower-case
 * extension ("e.g." and "U.S." are not); a path has two slashes, or one and an extension or a final slash.
 */
const FILELIKE =
  /(?<![\w@./-])(?:(?:[\w.-]+\/){2,}[\w.-]*|[\w.-]+\/[\w-]*\.[a-z][\w]*|[\w.-]+\/(?=[\s),.;:!?]|$)|[A-Za-z_][\w-]+\.[a-z][a-z0-9]{0,4}(?![\w]))|(?<=^|[\s(])\.[a-z][a-z0-9]{0,4}(?![\w.])/g;
/** Code spans in the source: markdown-it's own list misses one that runs over a line break. */
const CODE_SPAN = /(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g;
/** What stands before a list item's text on its line: quote marks, a bullet or number, a task box. */
const LIST_ITEM = /^\s*(?:>\s*)*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?[*_[`~]*$/;
/** A paragraph longer than this is checked in pieces of about this size, cut at white space. */
const MAX_UNIT = 8000;
/** Units lint together up to this many characters (one Harper call has a fixed cost of its own). */
const BATCH_CHARS = 4000;
const CACHE_LIMIT = 20_000;
/** Documents whose last read is kept, so that an edit need not read the whole document again. */
const READS_LIMIT = 16;

/** The units of a document: its prose paragraphs with markup taken out (see the header). */
export function unitsOf(text: string, format: DocumentFormat): Unit[] {
  return unitsFrom(text, readProse(text, format));
}

function unitsFrom(text: string, doc: ProseRead): Unit[] {
  const prose = doc.prose;
  const holes: Span[] = [...doc.inlineCode];
  for (const p of doc.paragraphs) {
    // Each pattern only where its telltale character is: most paragraphs have none.
    const written = prose.slice(p.start, p.end);
    for (const { pattern, telltale } of [
      { pattern: LINKISH, telltale: /:\/\/|www\.|@/ },
      { pattern: FILELIKE, telltale: /\/|\.[a-z]/ },
      ...TECHNICAL,
    ])
      if (telltale.test(written))
        for (const m of written.matchAll(pattern)) {
          const start = p.start + m.index;
          holes.push({ start, end: start + m[0].replace(/[.,;:!?]+$/, '').length });
        }
    const source = text.slice(p.start, p.end);
    if (source.includes('`'))
      for (const m of source.matchAll(CODE_SPAN))
        holes.push({ start: p.start + m.index, end: p.start + m.index + m[0].length });
  }
  holes.sort((a, b) => a.start - b.start);
  // Overlapping holes (a flag inside a path, a name inside a code span) become one.
  let merged = 0;
  for (const hole of holes)
    if (merged > 0 && hole.start < holes[merged - 1].end)
      holes[merged - 1] = { start: holes[merged - 1].start, end: Math.max(holes[merged - 1].end, hole.end) };
    else holes[merged++] = hole;
  holes.length = merged;
  const units: Unit[] = [];
  let h = 0;
  for (const p of doc.paragraphs) {
    if (junkRatio(text.slice(p.start, Math.min(p.end, p.start + 4096))) > 0.1) continue; // binary, not writing
    let lineStart = p.start;
    while (lineStart > 0 && text.charCodeAt(lineStart - 1) !== 10 && text.charCodeAt(lineStart - 1) !== 13) lineStart--;
    let listItem = LIST_ITEM.test(text.slice(lineStart, p.start));
    for (const piece of pieces(prose, p.start, p.end)) {
      while (h < holes.length && holes[h].end <= piece.start) h++;
      const parts: string[] = [];
      let length = 0;
      let map = new Int32Array(piece.end - piece.start + 1 + PLACEHOLDER.length * 64);
      const push = (offset: number) => {
        if (length >= map.length - 1) {
          const bigger = new Int32Array(map.length * 2);
          bigger.set(map);
          map = bigger;
        }
        map[length++] = offset;
      };
      const unitHoles: Span[] = [];
      let run = -1; // start of the run of kept characters being collected
      const flush = (i: number) => {
        if (run >= 0) parts.push(text.slice(run, i));
        run = -1;
      };
      let k = h;
      let indent = false; // after a line break: the next line's indentation is left out
      for (let i = piece.start; i < piece.end;) {
        if (k < holes.length && holes[k].start === i) {
          indent = false;
          flush(i);
          const hole = holes[k++];
          unitHoles.push({ start: length, end: length + PLACEHOLDER.length });
          parts.push(PLACEHOLDER);
          for (let j = 0; j < PLACEHOLDER.length; j++) push(i);
          i = Math.max(Math.min(hole.end, piece.end), i + 1);
          continue;
        }
        while (k < holes.length && holes[k].start < i) k++;
        const c = prose.charCodeAt(i);
        if (indent && (c === 32 || c === 9)) {
          flush(i);
          i++;
          continue;
        }
        indent = c === 10 || c === 13;
        if (c === text.charCodeAt(i)) {
          if (run < 0) run = i;
          push(i);
        } else if (c === 10 || c === 13) {
          // A line break the reader put between touching paragraphs: kept as one.
          flush(i);
          parts.push(prose[i]);
          push(i);
        } else flush(i);
        i++;
      }
      flush(piece.end);
      push(piece.end);
      const key = parts.join('');
      if (key.trim()) units.push({ key, map: map.slice(0, length), holes: unitHoles, listItem });
      listItem = false;
    }
  }
  return units;
}

/** A paragraph as pieces of at most about MAX_UNIT characters, cut at white space. */
function pieces(prose: string, start: number, end: number): Span[] {
  const out: Span[] = [];
  let at = start;
  while (end - at > MAX_UNIT) {
    let cut = prose.lastIndexOf(' ', at + MAX_UNIT);
    if (cut <= at + MAX_UNIT / 2) cut = at + MAX_UNIT;
    out.push({ start: at, end: cut });
    at = cut;
  }
  out.push({ start: at, end });
  return out;
}

const quote = (s: string) => `“${s.length > 40 ? `${s.slice(0, 39)}…` : s}”`;

function harperRaw(f: HarperFinding, base: number, unitText: string): RawFinding {
  const family = HARPER_FAMILY[f.rule] ?? 'grammar';
  const start = f.start - base;
  const end = f.end - base;
  const problem = unitText.slice(start, end);
  const fixes = f.suggestions.map((s) =>
    s.kind === 'insert-after'
      ? { start: end, end, text: s.text, title: `Insert ${quote(s.text)}` }
      : s.kind === 'remove' || s.text === ''
        ? { start, end, text: '', title: `Remove ${quote(problem)}` }
        : { start, end, text: s.text, title: `Change to ${quote(s.text)}` },
  );
  const unique = fixes.filter((x, i) => fixes.findIndex((y) => y.text === x.text && y.start === x.start) === i);
  return {
    start,
    end,
    family,
    rule: family === 'grammar' ? `grammar/${f.rule}` : family,
    message: f.message,
    fixes: unique,
  };
}

export class ProseChecker {
  private readonly cache = new Map<string, RawFinding[]>();
  private readonly reads = new Map<string, { text: string; format: DocumentFormat; read: ProseRead }>();
  private generation = 0;
  /** What Harper and the speller hold now: Harper.load() turns no rule off, and there are no words yet. */
  private config: CheckerConfig = { ...defaultCheckerConfig(), grammarRulesOff: [], words: [] };
  private readonly spell: SpellChecker;
  private readonly style = new StyleChecker();

  /** Harper, once a family it finds is on (loading it is most of a short run's time); it holds `config`. */
  private harper: Harper | undefined;
  private harperLoading: Promise<Harper> | undefined;

  private constructor(private readonly options: CheckerOptions) {
    this.spell = new SpellChecker();
  }

  /** Loads the dictionary, and Harper when a family it finds is on (about a second; once per process). */
  static async create(config?: CheckerConfig, options: CheckerOptions = {}): Promise<ProseChecker> {
    const checker = new ProseChecker(options);
    await checker.configure(config ?? defaultCheckerConfig());
    return checker;
  }

  /** New settings; the cache is dropped when what it holds depends on them (rules off in Harper, the words). */
  async configure(config: CheckerConfig): Promise<void> {
    const old = this.config;
    this.config = { ...config, grammarRulesOff: [...config.grammarRulesOff], words: [...config.words] };
    // Harper as it was: it holds `old` (one being loaded takes the settings as they are when it is ready).
    const harper = this.harper;
    const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
    if (!same(old.grammarRulesOff, config.grammarRulesOff)) {
      this.invalidate();
      await harper?.configure(config.grammarRulesOff);
    }
    if ((old.dialect ?? DEFAULT_DIALECT) !== (config.dialect ?? DEFAULT_DIALECT)) {
      this.invalidate();
      this.spell.setDialect(config.dialect ?? DEFAULT_DIALECT);
      await harper?.setDialect(config.dialect ?? DEFAULT_DIALECT);
    }
    if (!same(old.words, config.words)) {
      this.invalidate();
      this.spell.setWords(new WordSet(config.words));
      await harper?.setWords(config.words);
    }
    if (!harper && HARPER_FAMILIES.some((f) => config.rules[f] !== 'off')) await this.loadHarper();
  }

  /** Loads Harper with the settings as they are then; the paragraphs checked without it are checked again. */
  private loadHarper(): Promise<Harper> {
    this.harperLoading ??= (async () => {
      const harper = await Harper.load(this.options.harper);
      // Harper.load(): American English, no words.
      let dialect: Dialect = DEFAULT_DIALECT;
      let words: readonly string[] = [];
      let applied: CheckerConfig;
      do {
        applied = this.config;
        await harper.configure(applied.grammarRulesOff);
        if ((applied.dialect ?? DEFAULT_DIALECT) !== dialect)
          await harper.setDialect((dialect = applied.dialect ?? DEFAULT_DIALECT));
        if (applied.words.length + words.length > 0) await harper.setWords((words = applied.words));
      } while (applied !== this.config); // settings changed while it loaded
      this.harper = harper;
      this.invalidate();
      return harper;
    })().catch((e: unknown) => {
      this.harperLoading = undefined;
      throw e;
    });
    return this.harperLoading;
  }

  get settings(): CheckerConfig {
    return this.config;
  }

  /** Harper's rule names (for the settings' list of rules to turn off). */
  async harperRules(): Promise<string[]> {
    return (await this.loadHarper()).ruleNames();
  }

  /** Forgets a document's last read (it was closed). */
  forget(document: string): void {
    this.reads.delete(document);
  }

  /** Forgets every paragraph checked (the next check reads all of them again). */
  clear(): void {
    this.invalidate();
  }

  private invalidate(): void {
    this.cache.clear();
    this.reads.clear();
    this.generation++;
  }

  /**
   * Checks `text`; resolves to undefined when `signal` aborted it. `document` names the document
   * (its URI): its previous read is then reused after a small edit (reread.ts).
   */
  async check(
    text: string,
    format: DocumentFormat,
    signal?: AbortSignal,
    document?: string,
  ): Promise<CheckResult | undefined> {
    const started = performance.now();
    const units = unitsFrom(text, this.read(text, format, document));
    const generation = this.generation;
    const todo = units.filter((u) => !this.cache.has(u.key));
    const fresh = new Map<string, RawFinding[]>();
    for (let i = 0; i < todo.length;) {
      // One Harper call for a batch of paragraphs, blank lines between them (sentences never cross).
      // Every paragraph has a blank line before and after it, the first and last too: Harper reads the
      // end of its text differently from a paragraph break ("x . |" ends in a space there, not here),
      // and a paragraph's findings must not depend on where in a batch it fell (the cache holds them).
      const batch: Unit[] = [];
      let chars = 0;
      while (i < todo.length && (batch.length === 0 || chars + todo[i].key.length <= BATCH_CHARS)) {
        if (!fresh.has(todo[i].key) && !batch.some((b) => b.key === todo[i].key)) {
          batch.push(todo[i]);
          chars += todo[i].key.length + 2;
        }
        i++;
      }
      const joined = `\n\n${batch.map((u) => u.key).join('\n\n')}\n\n`;
      const lints = batch.length > 0 && this.harper ? await this.harper.lint(joined) : [];
      const style = this.style.checkMany(batch.map((u) => u.key));
      let base = 2;
      let l = 0;
      for (const [b, unit] of batch.entries()) {
        const end = base + unit.key.length;
        const raw: RawFinding[] = [];
        for (; l < lints.length && lints[l].start < end + 2; l++)
          if (lints[l].start >= base && lints[l].end <= end) raw.push(harperRaw(lints[l], base, unit.key));
        raw.push(...this.spellingRaw(unit.key), ...styleRaw(style[b]));
        fresh.set(unit.key, dedupe(raw));
        base = end + 2;
      }
      if (signal?.aborted) return undefined;
      if (i < todo.length) await new Promise((r) => setImmediate(r));
      if (signal?.aborted) return undefined;
    }
    if (generation === this.generation) for (const [k, v] of fresh) this.remember(k, v);
    const findings: CheckFinding[] = [];
    const markdownOff = new Set(MARKDOWN_GRAMMAR_RULES_OFF.map((r) => `grammar/${r}`));
    for (const unit of units) {
      const raw = fresh.get(unit.key) ?? this.recall(unit.key) ?? [];
      for (const r of raw) {
        // Markdown collapses runs of spaces when it is rendered: a reader never sees them.
        if (format === 'markdown' && (r.family === 'spacing' || markdownOff.has(r.rule))) continue;
        const f = this.place(r, unit, text);
        if (f) findings.push(f);
      }
    }
    withoutCodeNames(findings, text, format);
    withoutDocumentNames(findings);
    return {
      findings,
      units: units.length,
      checked: fresh.size,
      ms: performance.now() - started,
    };
  }

  private read(text: string, format: DocumentFormat, document: string | undefined): ProseRead {
    const last = document === undefined ? undefined : this.reads.get(document);
    const read =
      (last && last.format === format ? rereadAfterEdit(last.text, last.read, text) : undefined) ??
      readProse(text, format);
    if (document !== undefined) {
      this.reads.delete(document);
      if (this.reads.size >= READS_LIMIT) this.reads.delete(this.reads.keys().next().value as string);
      this.reads.set(document, { text, format, read });
    }
    return read;
  }

  private remember(key: string, raw: RawFinding[]): void {
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, raw);
  }

  private recall(key: string): RawFinding[] | undefined {
    const raw = this.cache.get(key);
    if (raw) {
      // Most recently used last: the oldest are dropped first.
      this.cache.delete(key);
      this.cache.set(key, raw);
    }
    return raw;
  }

  private spellingRaw(key: string): RawFinding[] {
    const dialect = this.config.dialect ?? DEFAULT_DIALECT;
    return this.spell.check(key).map((s) => ({
      start: s.start,
      end: s.end,
      family: 'spelling',
      rule: 'spelling',
      word: s.word,
      message: spellingMessage(s, dialect),
      fixes: s.suggestions.map((x) => ({ start: s.start, end: s.end, text: x, title: `Change to ${quote(x)}` })),
      ...(s.kind === 'misspelling' ? {} : { hint: true }),
    }));
  }

  /** A unit's finding in the document, with the settings' severity; undefined when it is off or cannot be placed. */
  private place(r: RawFinding, unit: Unit, text: string): CheckFinding | undefined {
    const setting = this.config.rules[r.family];
    if (setting === 'off') return undefined;
    if (unit.holes.some((h) => r.start < h.end && r.end > h.start)) return undefined;
    // "a"/"an" before code: how the code is read aloud is not known ("an `origin`", "a `Client`").
    if (r.rule === 'grammar/AnA' && unit.holes.some((h) => h.start >= r.end && !unit.key.slice(r.end, h.start).trim()))
      return undefined;
    // A list item is often a fragment ("- the engine, which runs the models"): no capital needed.
    if (unit.listItem && r.start === 0 && r.rule === 'grammar/SentenceCapitalization') return undefined;
    const span = mapSpan(unit, r.start, r.end);
    const written = text.slice(span.start, span.end);
    const read = unit.key.slice(r.start, r.end);
    const exact = written === read;
    // Markup inside (emphasis marks, a link target): only white space may differ for a fix to be safe to apply.
    const fixable = exact || collapse(written) === collapse(read);
    if (r.family === 'spacing' && !exact) return undefined; // spaces left where markup was taken out
    const fixes = fixable
      ? r.fixes.map((x) => ({ ...mapSpan(unit, x.start, x.end), text: x.text, title: x.title }))
      : [];
    return {
      ...span,
      family: r.family,
      rule: r.rule,
      severity: r.hint ? 'hint' : setting,
      message: r.message,
      fixes,
      // A hint is a guess: Fix All does not apply its fix unseen.
      safe: FAMILIES[r.family].safe && !r.hint && fixes.length === 1 && exact,
      ...(r.word !== undefined ? { word: r.word } : {}),
    };
  }

  async dispose(): Promise<void> {
    this.cache.clear();
    await this.harper?.dispose();
  }
}

const collapse = (s: string) => s.replace(/\s+/g, ' ');

/** What a spelling finding says: its kind's reason, and the suggestions. */
function spellingMessage(s: SpellFinding, dialect: Dialect): string {
  const best = s.suggestions
    .slice(0, 3)
    .map((x) => quote(x))
    .join(', ');
  if (s.kind === 'dialect' && s.dialect)
    return `${s.dialect} spelling ${quote(s.word)}: ${dialect} English writes ${quote(s.suggestions[0])}.`;
  if (s.kind === 'coined' && s.formation) {
    const parts =
      s.formation.kind === 'prefix'
        ? `the prefix ${quote(`${s.formation.prefix}-`)} and ${quote(s.formation.rest)}`
        : `${quote(s.formation.first)} and ${quote(s.formation.second)}`;
    const or = best ? ` Or ${best}?` : '';
    return `Unknown word ${quote(s.word)}, made of ${parts}: a term the dictionaries lack?${or}`;
  }
  return best ? `Unknown word ${quote(s.word)}: did you mean ${best}?` : `Unknown word ${quote(s.word)}.`;
}

/** How often a document writes an unknown word before it is the document's own name. */
const NAME_REPEATS = 3;

/**
 * Drops, in place, the spelling findings of a word the document writes at least NAME_REPEATS times
 * and the dictionaries have nothing one edit from: the project or tool the document is about
 * ("undici", "yauzl", "minimatch"), which a technical author writes in lower case. A typo of a
 * known word has a suggestion and stays flagged however often it is repeated. Read over the whole
 * document's findings, so a re-check after an edit finds what a fresh check does.
 */
function withoutDocumentNames(findings: CheckFinding[]): void {
  const count = new Map<string, number>();
  for (const f of findings)
    if (f.family === 'spelling' && f.word && f.fixes.length === 0) {
      const w = f.word.toLowerCase();
      count.set(w, (count.get(w) ?? 0) + 1);
    }
  let k = 0;
  for (const f of findings)
    if (!(
      f.family === 'spelling' &&
      f.word &&
      f.fixes.length === 0 &&
      (count.get(f.word.toLowerCase()) ?? 0) >= NAME_REPEATS
    ))
      findings[k++] = f;
  findings.length = k;
}

function styleRaw(found: readonly StyleFinding[]): RawFinding[] {
  return found.map((s) => ({
    start: s.start,
    end: s.end,
    family: s.family,
    rule: s.family,
    message: s.message,
    fixes: s.replacements.map((x) => ({ start: s.start, end: s.end, text: x, title: `Change to ${quote(x)}` })),
  }));
}

function mapSpan(unit: Unit, start: number, end: number): Span {
  const s = unit.map[Math.min(start, unit.key.length)];
  const e = end > start ? unit.map[end - 1] + 1 : s;
  return { start: s, end: Math.max(s, e) };
}

/** One finding per word: Harper's (with its better fix) over the speller's when both flag the same span. */
function dedupe(raw: RawFinding[]): RawFinding[] {
  const harper = new Set(raw.filter((r) => r.family !== 'spelling').map((r) => `${r.start}:${r.end}`));
  return raw
    .filter((r) => r.family !== 'spelling' || !harper.has(`${r.start}:${r.end}`))
    .sort((a, b) => a.start - b.start || a.end - b.end);
}

let shared: Promise<ProseChecker> | undefined;

/** One checker per process (Harper's binary is loaded once): the host's and the CLI's. */
export function sharedChecker(): Promise<ProseChecker> {
  shared ??= ProseChecker.create().catch((e: unknown) => {
    shared = undefined;
    throw e;
  });
  return shared;
}
