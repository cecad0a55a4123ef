/**
 * Decoding guards: word-level rules over the subword pieces a model writes,
 * checked on the candidates a strategy looks at, never on the whole vocabulary unless it must.
 *
 * vocabulary  every word written is a word the model saw in training (its words.txt, KnownWords)
 *             or a word of the input; a number only when the input holds it whole (not "800" of "40,800"),
 *             written while it is a prefix of one and ended where one ends. A piece may extend or
 *             start a word only while the word is still a prefix of a known word, and a piece that
 *             closes a word (a new word's "▁", punctuation, the end) only when the word is complete.
 *             After an apostrophe only the ending that word takes ("I'm", "don't"; not "I't").
 * artefacts   no letters glued after punctuation ("budget.S.", "word,S"), no lone letter glued to
 *             punctuation ("He says S."), no double space or space before punctuation ("a new  time"),
 * no doubled punctuation (". ,"), no stutter inside a word
 *             ("orgorg", "wwwwww"), no apostrophe left without its ending ("I', I"), no web address
 *             ("http://www."), no capital after a small letter inside a word ("chubBy"), no punctuation
 *             first; what the input itself holds stays allowed
 *             ("U.S." in a news story).
 * repetition  no word written twice in a row ("the the") and no word 3-gram written twice in one
 *             output (a word-level no_repeat_ngram; the token-level noRepeatNgramSize stays as is).
 * sourceNames (the systems that restate their input: summaries, round-trips, replies, essays) a
 *             capitalised word that does not start a sentence is a word of the input, and a number
 *             is a number of the input (even without a known-word list): names and numbers come
 *             from the source (metrics/faithfulness.ts counts the same words, and a sentence starts
 *             where text/reader.ts says: not after "U.S." nor after an opening quote mid-sentence),
 *             where the vocabulary rule alone lets any name of the training text through.
 * banned      no profanity or slur, and no training-text boilerplate ("contributed to this report"):
 *             bannedWords.ts's lists, refused where the word would close.
 *
 * A row's state is read from its pieces once per step; each candidate is then checked by running
 * its few characters on from there. The strategies call `RowGuard.forRow` and ask only about the
 * candidates they read (constraints.ts maskDisallowed, topKOfCandidates).
 */
import { isAbbreviation } from '../text/reader';
import { BOILERPLATE_SPAN, closesBanned, PROFANITY } from './bannedWords';

const SPACE = '\u2581';

/** The words a model saw in training (models/<system>/words.txt: one lower-case word a line). */
export class KnownWords {
  private readonly words: string[];

  constructor(words: Iterable<string>) {
    const set = new Set<string>();
    for (const w of words) {
      const t = w.trim().toLowerCase();
      if (t) set.add(t);
    }
    // Code-unit order, which the binary searches below assume (the file's order may differ).
    this.words = [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  static parse(text: string): KnownWords {
    return new KnownWords(text.split(/\r?\n/));
  }

  get size(): number {
    return this.words.length;
  }

  private lowerBound(s: string): number {
    let lo = 0;
    let hi = this.words.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.words[mid] < s) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  has(word: string): boolean {
    const i = this.lowerBound(word);
    return i < this.words.length && this.words[i] === word;
  }

  /** Some known word starts with `prefix` (the word itself included). */
  hasPrefix(prefix: string): boolean {
    const i = this.lowerBound(prefix);
    return i < this.words.length && this.words[i].startsWith(prefix);
  }

  /** Some known word that starts with `prefix` passes `ok` (read in order, stopping at the first that does). */
  somePrefixed(prefix: string, ok: (word: string) => boolean): boolean {
    for (let i = this.lowerBound(prefix); i < this.words.length && this.words[i].startsWith(prefix); i++)
      if (ok(this.words[i])) return true;
    return false;
  }
}

/** Which guards are on. `decoding.guards: false` (the setting) turns all three off. */
export interface GuardFlags {
  vocabulary: boolean;
  artefacts: boolean;
  repetition: boolean;
  /** Names and numbers only from the input (see sourceNames above); off unless a system asks for it. */
  sourceNames?: boolean;
  /** Profanity, slurs and boilerplate never written (see banned above). */
  banned?: boolean;
}

export const ALL_GUARDS: GuardFlags = { vocabulary: true, artefacts: true, repetition: true, banned: true };

/** What a strategy asks: may `token` follow a row's tokens? */
export interface RowGuard {
  /** tokens: the row's ids so far (without BOS). The predicate answers for one candidate token. */
  forRow(tokens: readonly number[]): (token: number) => boolean;
  /** Whether the row could end after `tokens`: its last word is complete (a known word, not "thoug"). */
  complete?(tokens: readonly number[]): boolean;
}

/**
 * A row cut off at the length limit, without the word it was in the middle of ("… even thoug"):
 * trailing pieces dropped until the guard would let the row end there.
 */
export function trimUnfinishedWord(tokens: readonly number[], guard: RowGuard): number[] {
  if (!guard.complete) return tokens.slice();
  let n = tokens.length;
  while (n > 0 && !guard.complete(tokens.slice(0, n))) n--;
  return tokens.slice(0, n);
}

export interface PieceGuardOptions {
  /** id -> piece ("▁the", "s", "."); special tokens as "<...>". */
  pieces: readonly string[];
  eos: number;
  flags: GuardFlags;
  /** The model's known words; without them the vocabulary guard is off. */
  known?: KnownWords;
  /** The input (source, topic words, prompt, post): its words, numbers and spellings are allowed. */
  input?: string;
  /**
   * Ids already written before this output that its repetition rules see (Round-Trip's earlier
   * sentences), as if a space followed them.
   */
  prefix?: readonly number[];
}

/** The words English glues n't onto ("don't"; not "own't", "dunkin't"). */
const N_T = new Set([
  'don',
  'doesn',
  'didn',
  'can',
  'couldn',
  'won',
  'wouldn',
  'shouldn',
  'isn',
  'aren',
  'wasn',
  'weren',
  'hasn',
  'haven',
  'hadn',
  'mustn',
  'needn',
  'mightn',
  'ain',
  'shan',
]);

/**
 * After a letter and an apostrophe, the endings English glues on ("don't", "Anna's"), and the words
 * each follows ("I'm", "they're"): 's any word but "I", 't the words that take n't ("don't", not "own't").
 */
const PRONOUNS = [
  'i',
  'you',
  'he',
  'she',
  'it',
  'we',
  'they',
  'who',
  'what',
  'that',
  'there',
  'here',
  'where',
  'how',
  'why',
  'this',
];
const SUFFIX_AFTER: Record<string, (word: string) => boolean> = {
  s: (w) => w !== 'i',
  t: (w) => N_T.has(w),
  m: (w) => w === 'i',
  re: (w) => ['you', 'we', 'they', 'who', 'what', 'there', 'here', 'where', 'how', 'why'].includes(w),
  ve: (w) => ['i', 'you', 'we', 'they', 'who', 'would', 'could', 'should', 'might', 'must'].includes(w),
  ll: (w) => PRONOUNS.includes(w),
  d: (w) => PRONOUNS.includes(w),
};
/** Whether `run` is (the start of) an ending that may follow `word` ("I" + "'m", not "I" + "'t"). */
function suffixMayFollow(run: string, word: string, whole: boolean): boolean {
  for (const [suffix, after] of Object.entries(SUFFIX_AFTER)) {
    if ((whole ? suffix === run : suffix.startsWith(run)) && after(word)) return true;
  }
  return false;
}

/** Glued to a number: "1990s", "3rd". */
const NUMBER_SUFFIXES = new KnownWords(['s', 'st', 'nd', 'rd', 'th']);
/** Single letters that stand alone as words. */
const LONE_LETTERS = new Set(['a', 'i']);

/** ASCII letters by comparison (nearly every character a model writes); others by Unicode class. */
const isLetter = (c: string) =>
  (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c > '\u007f' && /[\p{L}\p{M}]/u.test(c));
const isDigit = (c: string) => c >= '0' && c <= '9';
const isApostrophe = (c: string) => c === "'" || c === '\u2019';
/** Punctuation that ends a sentence, and the stops inside one. */
const FINAL = new Set(['.', '!', '?']);
/** Opening quotes and brackets, which a sentence may start with. */
const SENTENCE_OPENERS = /^["'\u201c\u2018\u00ab([]*$/u;
/**
 * Whether a word begun now starts a sentence, by text/reader.ts's rule (the one metrics/faithfulness.ts
 * counts names by): at the output's start, or after . ! ? and any closing quotes or brackets, unless
 * the period ends an abbreviation ("U.S.", "Mr.", the initial "J."); opening quotes or brackets
 * before the word ('"Go') look through to the chunk before them.
 */
function startsSentence(s: { chunk: string; prevChunk: string; atStart: boolean }): boolean {
  const opening = SENTENCE_OPENERS.test(s.chunk);
  if (s.atStart || (opening && s.prevChunk === '')) return true;
  const before = opening ? s.prevChunk : s.chunk;
  const core = before.replace(/["'\u201d\u2019)\]]+$/u, '');
  const mark = core[core.length - 1];
  if (mark === '!' || mark === '?') return true;
  return mark === '.' && !isAbbreviation(core);
}
const STOPS = new Set(['.', ',', ';', ':', '!', '?']);
/** What may follow a space besides a letter or a digit. */
const OPENERS = new Set(['"', "'", '(', '[', '\u201c', '\u2018', '$', '\u00a3', '\u20ac', '#', '@']);
/** After these, a letter may not be glued on (a space must come first). */
const NO_GLUE_AFTER = new Set(['.', '!', '?', ',', ';', ':', ')', ']']);

type RunKind = 'word' | 'suffix' | 'numberSuffix';

/** The row's position in its text: what a candidate's characters continue. */
interface RowState {
  /** The letter run being written (lower-cased), its kind, and whether it stood alone (after a space or the start). */
  run: string;
  kind: RunKind;
  standalone: boolean;
  /** The number being written: its digits and the inner "," or "." between them ("40,8"). */
  digits: string;
  /**
   * A "," or "." just written after the number's digits: the number goes on if a digit follows
   * ("40,800"), or ended before it (", and").
   */
  joiner: string;
  /** The text since the last space, as written (for the input's own spellings). */
  chunk: string;
  /** The chunk before it (before the last space), for where a sentence starts. */
  prevChunk: string;
  /** The last character, '' at the start of the output; a space is SPACE. */
  last: string;
  /** The one before it. */
  beforeLast: string;
  /** The last character that is not a space. */
  lastNonSpace: string;
  /** The last piece's text without its leading space, for the stutter rule ("org" "org"). */
  lastPieceBody: string;
  /**
   * Completed words (lower-case, a suffix joined to its word: "don't"), and whether anything but spaces
   * came after the last.
   */
  words: string[];
  punctSinceWord: boolean;
  /** "a b c" of every word 3-gram so far. */
  trigrams: Set<string>;
  /** Nothing written yet (the prefix does not count). */
  atStart: boolean;
  /** The run began with a capital and not at a sentence's start (a name, for sourceNames). */
  capital: boolean;
}

/** What the input allows beyond the known words. */
interface InputFacts {
  words: KnownWords;
  /** The input's whole numbers, with their inner "," and "." ("40,800", "3.5"; "1990" of "1990s"). */
  numbers: KnownWords;
  /** Every prefix of every whitespace-separated chunk of the input (for "U.S.", "3.5"). */
  chunkPrefixes: Set<string>;
  /** Single letters that stand alone in the input ("Plan B"). */
  letters: Set<string>;
  /**
   * The input's words with their digits, as metrics/faithfulness.ts reads them ("person1" of
   * "#Person1#"): a name ends only as one of them, so "Person" of "Person1" is no name of the input.
   */
  wholeWords: Set<string>;
}

function inputFacts(input: string): InputFacts {
  const words: string[] = [];
  const letters = new Set<string>();
  for (const m of input.matchAll(/[\p{L}\p{M}]+/gu)) {
    const w = m[0].toLowerCase();
    words.push(w);
    if (w.length === 1) letters.add(w);
  }
  const chunkPrefixes = new Set<string>();
  for (const c of input.split(/\s+/)) {
    if (c.length > 40) continue;
    for (let i = 1; i <= c.length; i++) chunkPrefixes.add(c.slice(0, i));
  }
  return {
    words: new KnownWords(words),
    // Whole numbers, as metrics/faithfulness.ts reads them: "800" of "$40,800" is no number of the input.
    numbers: new KnownWords(input.match(/[0-9]+(?:[.,][0-9]+)*/g) ?? []),
    chunkPrefixes,
    letters,
    wholeWords: new Set(Array.from(input.matchAll(/[\p{L}\p{M}\p{N}]+/gu), (m) => m[0].toLowerCase())),
  };
}

/** What the guard reads of every piece, once per vocabulary (and end token). */
const classesOf = new WeakMap<readonly string[], { eos: number; special: boolean[]; firstClass: Uint8Array }>();
function pieceClasses(pieces: readonly string[], eos: number) {
  let c = classesOf.get(pieces);
  if (!c || c.eos !== eos) {
    c = {
      eos,
      special: pieces.map((p) => /^<[^<>]+>$/.test(p)),
      firstClass: Uint8Array.from(pieces, (p, i) =>
        i === eos || p === '' ? 2 : isLetter(p[0]) ? 0 : isDigit(p[0]) ? 1 : 2,
      ),
    };
    classesOf.set(pieces, c);
  }
  return c;
}

function emptyState(): RowState {
  return {
    run: '',
    kind: 'word',
    standalone: true,
    digits: '',
    joiner: '',
    chunk: '',
    prevChunk: '',
    last: '',
    beforeLast: '',
    lastNonSpace: '',
    lastPieceBody: '',
    words: [],
    punctSinceWord: false,
    trigrams: new Set(),
    atStart: true,
    capital: false,
  };
}

/** A PieceGuard ready for decoding; the pieces' texts and the input's facts are read once. */
export class PieceGuard implements RowGuard {
  private readonly facts: InputFacts;
  private readonly special: boolean[];
  /** Each piece's first character: 0 a letter, 1 a digit, 2 anything else (a space, punctuation; the end token). */
  private readonly firstClass: Uint8Array;
  private readonly start: RowState;

  constructor(private readonly o: PieceGuardOptions) {
    this.facts = inputFacts(o.input ?? '');
    const classes = pieceClasses(o.pieces, o.eos);
    this.special = classes.special;
    this.firstClass = classes.firstClass;
    const start = emptyState();
    if (o.prefix && o.prefix.length > 0) {
      for (const t of o.prefix) this.apply(start, t, false);
      // The prefix ended (a sentence of its own): as if a space followed it.
      this.apply(start, -1, false, SPACE);
      start.atStart = true;
      start.last = '';
      start.lastNonSpace = '';
      start.lastPieceBody = '';
    }
    this.start = start;
  }

  /** Row states of the last steps by their ids ("3,17,9"): a row extends one of them by a token. */
  private cache = new Map<string, RowState>();
  private older = new Map<string, RowState>();

  complete(tokens: readonly number[]): boolean {
    return this.closable(this.stateOf(tokens));
  }

  /** Whether the word (or number) being written may end here. */
  private closable(state: RowState): boolean {
    return (state.run === '' && state.digits === '') || this.apply(cloneLight(state), -1, true, SPACE);
  }

  forRow(tokens: readonly number[]): (token: number) => boolean {
    const state = this.stateOf(tokens);
    // Whether the word (or number) being written may end here: once per row, so that the many
    // candidates that would end an unfinished word ("▁sch" + ".") are refused without a copy.
    const open = state.run !== '' ? 0 : state.digits !== '' ? 1 : -1;
    const closable = this.closable(state);
    const firstClass = this.firstClass;
    return (token: number) => {
      // Digits after a word are read whole: a name may go on with them ("Person1").
      if (
        !closable &&
        (token === this.o.eos ||
          (token >= 0 &&
            token < firstClass.length &&
            !this.special[token] &&
            firstClass[token] !== open &&
            !(open === 0 && firstClass[token] === 1)))
      )
        return false;
      return this.apply(cloneLight(state), token, true);
    };
  }

  private stateOf(tokens: readonly number[]): RowState {
    const key = tokens.join(',');
    const hit = this.cache.get(key) ?? this.older.get(key);
    if (hit) return hit;
    let state: RowState;
    const parent =
      tokens.length > 0
        ? (this.cache.get(tokens.slice(0, -1).join(',')) ?? this.older.get(tokens.slice(0, -1).join(',')))
        : undefined;
    if (parent) {
      state = cloneState(parent);
      this.apply(state, tokens[tokens.length - 1], false);
    } else {
      state = cloneState(this.start);
      for (const t of tokens) this.apply(state, t, false);
    }
    state.atStart = tokens.length === 0;
    if (this.cache.size >= 64) {
      this.older = this.cache;
      this.cache = new Map();
    }
    this.cache.set(key, state);
    return state;
  }

  private text(token: number): string {
    if (token === this.o.eos) return '';
    if (token < 0 || token >= this.o.pieces.length || this.special[token]) return '';
    return this.o.pieces[token];
  }

  /**
   * Writes `token` into `s`; with `check`, returns false at the first rule it breaks (the state is
   * then half-written: a check runs on a throwaway copy). `textOverride` writes that text instead.
   */
  private apply(s: RowState, token: number, check: boolean, textOverride?: string): boolean {
    const f = this.o.flags;
    const isEnd = token === this.o.eos && textOverride === undefined;
    if (
      textOverride === undefined &&
      token !== this.o.eos &&
      (token < 0 || token >= this.o.pieces.length || this.special[token])
    )
      return true;
    const text = textOverride ?? this.text(token);
    const vocab = f.vocabulary && this.o.known !== undefined;
    const known = this.o.known;
    const facts = this.facts;
    const glued = text.length > 0 && text[0] !== SPACE;

    if (check && f.artefacts && glued && text === s.lastPieceBody && /[\p{L}:/]/u.test(text)) return false;

    const closeRun = (next: string): boolean => {
      if (s.run === '') return true;
      const run = s.run;
      if (check && f.sourceNames && s.kind === 'word' && s.capital && run !== 'i' && !facts.words.has(run))
        return false;
      // A name the input writes only with digits after it ("Person1", "MI5") goes on with them.
      if (check && f.sourceNames && s.kind === 'word' && s.capital && !isDigit(next) && !facts.wholeWords.has(run))
        return false;
      if (check && f.banned && s.kind === 'word' && closesBanned(s.words, run)) return false;
      if (check && vocab) {
        const ok =
          s.kind === 'word'
            ? (run.length > 1 || LONE_LETTERS.has(run) || facts.letters.has(run)) &&
              (known!.has(run) || facts.words.has(run))
            : s.kind === 'suffix'
              ? suffixMayFollow(run, s.words[s.words.length - 1] ?? '', true) || facts.chunkPrefixes.has(s.chunk)
              : NUMBER_SUFFIXES.has(run) || facts.chunkPrefixes.has(s.chunk);
        if (!ok) return false;
      }
      // A lone letter glued to punctuation ("says S."), unless the input has it standing alone.
      if (
        check &&
        f.artefacts &&
        s.kind === 'word' &&
        s.standalone &&
        run.length === 1 &&
        !LONE_LETTERS.has(run) &&
        !facts.letters.has(run) &&
        next !== '' &&
        STOPS.has(next)
      )
        return false;
      if (s.kind === 'word') {
        if (!this.pushWord(s, run, check, f.repetition)) return false;
      } else if (s.words.length > 0 && s.kind === 'suffix') {
        s.words[s.words.length - 1] += `'${run}`;
      }
      s.run = '';
      return true;
    };
    const closeDigits = (): boolean => {
      if (s.digits === '') return true;
      if (check && (vocab || f.sourceNames) && !facts.numbers.has(s.digits)) return false;
      if (!this.pushWord(s, s.digits, check, f.repetition)) return false;
      // "1990, 1990" is no doubled word: the mark came after it.
      if (s.joiner !== '') s.punctSinceWord = true;
      s.digits = '';
      s.joiner = '';
      return true;
    };

    if (isEnd) {
      if (!closeRun('') || !closeDigits()) return false;
      // Nor after a bare space whose word was refused (sentencepiece writes " 0" as "▁" + "0").
      return !(check && f.artefacts && s.last === SPACE && !s.atStart);
    }

    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (isLetter(c)) {
        if (check && f.artefacts && NO_GLUE_AFTER.has(s.last) && !facts.chunkPrefixes.has(s.chunk + c)) return false;
        // A capital after a small letter inside a word ("chubBy", "stresS"), unless the input writes
        // one so ("McDonald").
        if (
          check &&
          f.artefacts &&
          s.run !== '' &&
          s.last !== s.last.toUpperCase() &&
          c !== c.toLowerCase() &&
          !facts.chunkPrefixes.has(s.chunk + c)
        )
          return false;
        if (s.digits !== '' && s.joiner === '') {
          if (!closeDigits()) return false;
          s.kind = 'numberSuffix';
          s.standalone = false;
        } else if (s.run === '') {
          // A letter after "40," or "40.": the number ended before the mark.
          if (!closeDigits()) return false;
          const afterWordApostrophe = isApostrophe(s.last) && isLetter(s.beforeLast);
          s.kind = afterWordApostrophe ? 'suffix' : 'word';
          s.standalone = s.last === '' || s.last === SPACE;
          s.capital = s.kind === 'word' && c !== c.toLowerCase() && !startsSentence(s);
        }
        s.run += c.toLowerCase();
        // The run is checked as a prefix once, where the piece ends (closing it checks it whole).
        if (
          check &&
          f.sourceNames &&
          s.kind === 'word' &&
          s.capital &&
          (i === text.length - 1 || !isLetter(text[i + 1])) &&
          !facts.words.hasPrefix(s.run)
        )
          return false;
        // A word that can only become a banned one ("fuck" + "ing") is refused as it is written: refused
        // only where it would close, a beam that had nothing else to write would keep it.
        if (
          check &&
          f.banned &&
          vocab &&
          s.kind === 'word' &&
          (i === text.length - 1 || !isLetter(text[i + 1])) &&
          !known!.somePrefixed(s.run, (w) => !PROFANITY.has(w)) &&
          !facts.words.somePrefixed(s.run, (w) => !PROFANITY.has(w))
        )
          return false;
        if (check && vocab && (i === text.length - 1 || !isLetter(text[i + 1]))) {
          const run = s.run;
          const ok =
            s.kind === 'word'
              ? known!.hasPrefix(run) || facts.words.hasPrefix(run)
              : s.kind === 'suffix'
                ? suffixMayFollow(run, s.words[s.words.length - 1] ?? '', false) || facts.chunkPrefixes.has(s.chunk + c)
                : NUMBER_SUFFIXES.hasPrefix(run) || facts.chunkPrefixes.has(s.chunk + c);
          if (!ok) return false;
        }
      } else if (isDigit(c)) {
        // A digit glued to letters ("US1", "the1"), unless the input writes one so ("MP3").
        if (check && f.artefacts && s.run !== '' && !facts.chunkPrefixes.has(s.chunk + c)) return false;
        if (!closeRun(c)) return false;
        if (check && f.artefacts && FINAL.has(s.last) && !facts.chunkPrefixes.has(s.chunk + c)) return false;
        s.digits += s.joiner + c;
        s.joiner = '';
        if (check && (vocab || f.sourceNames) && !facts.numbers.hasPrefix(s.digits)) return false;
      } else if (s.digits !== '' && s.joiner === '' && (c === ',' || c === '.')) {
        // "40" + ",": the input's "40,800" may go on, or its "40" end here.
        if (check && (vocab || f.sourceNames) && !facts.numbers.has(s.digits) && !facts.numbers.hasPrefix(s.digits + c))
          return false;
        s.joiner = c;
        s.punctSinceWord = true;
      } else {
        if (!closeRun(c === SPACE ? '' : c) || !closeDigits()) return false;
        // After a bare space, a word or an opening quote or bracket: not a second space ("a new  time"),
        // punctuation ("new .") or a stray mark ("a new -ounces").
        if (check && f.artefacts && s.last === SPACE && !s.atStart && !OPENERS.has(c)) return false;
        if (
          check &&
          f.artefacts &&
          isApostrophe(s.last) &&
          isLetter(s.beforeLast) &&
          (c === SPACE || STOPS.has(c)) &&
          !s.chunk.slice(0, -1).toLowerCase().endsWith('s') &&
          !facts.chunkPrefixes.has(s.chunk + c)
        ) {
          // A word's apostrophe with no ending after it ("I', I have"), but a plural's ("the dogs' bowls").
          return false;
        }
        if (c !== SPACE && check && f.artefacts) {
          // A web address ("http://", "See://www") only when the input has one.
          if (c === '/' && s.last === ':' && !facts.chunkPrefixes.has(s.chunk + c)) return false;
          if (STOPS.has(c)) {
            // Punctuation first, or doubled (". ," ",." "::"), but "..." and "?!" are writing.
            if (s.atStart && s.last === '') return false;
            const prev = s.lastNonSpace;
            if (
              STOPS.has(prev) &&
              !(c === '.' && prev === '.' && s.last === '.') &&
              !(FINAL.has(c) && FINAL.has(prev) && c !== '.' && prev !== '.') &&
              !facts.chunkPrefixes.has(s.chunk + c)
            )
              return false;
          }
        }
        if (c !== SPACE && !isApostrophe(c)) s.punctSinceWord = true;
      }
      s.beforeLast = s.last;
      s.last = c;
      if (c === SPACE) {
        if (s.chunk !== '') s.prevChunk = s.chunk;
        s.chunk = '';
      } else {
        s.chunk += c;
        s.lastNonSpace = c;
      }
      s.atStart = false;
    }
    s.lastPieceBody = text.startsWith(SPACE) ? text.slice(1) : text;
    // A word that, as far as it is written, would repeat is banned now, though it could still grow
    // into another ("the" + "se"): once written, the model means it, and nothing else could close it.
    if (check && f.repetition && s.kind === 'word' && s.run !== '' && this.repeats(s, s.run)) return false;
    return true;
  }

  /** Whether `word`, closed now, would be a doubled word or a repeated word 3-gram. */
  private repeats(s: RowState, word: string): boolean {
    const n = s.words.length;
    if (n > 0 && !s.punctSinceWord && s.words[n - 1] === word) return true;
    return n >= 2 && s.trigrams.has(`${s.words[n - 2]} ${s.words[n - 1]} ${word}`);
  }

  /**
   * A completed word: the repetition rules (when checking with them on), then it joins the row's
   * words. A check writes to a throwaway copy whose 3-gram set is the row's own: it is only read.
   */
  private pushWord(s: RowState, word: string, check: boolean, repetition: boolean): boolean {
    const n = s.words.length;
    if (check && repetition && this.repeats(s, word)) return false;
    if (n >= 2 && !check) s.trigrams.add(`${s.words[n - 2]} ${s.words[n - 1]} ${word}`);
    s.words.push(word);
    s.punctSinceWord = false;
    return true;
  }
}

function cloneState(s: RowState): RowState {
  return { ...s, words: [...s.words], trigrams: new Set(s.trigrams) };
}

/**
 * A copy for one candidate's check: its last words (as many as the rules read), the row's 3-grams shared (only read).
 */
function cloneLight(s: RowState): RowState {
  return { ...s, words: s.words.slice(-Math.max(2, BOILERPLATE_SPAN - 1)) };
}
