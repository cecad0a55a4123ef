/**
 * The models' tokenizer: a sentencepiece unigram vocabulary written as tokenizer.json
 * (models/train/draftsmith_train/tokenizer.py), read from the model folder with @huggingface/tokenizers:
 * the tokenizer @huggingface/transformers' AutoTokenizer wraps (test/unit/hostileInput.property.test.ts
 * checks they agree), without loading the rest of transformers.js, which cost 90 ms of every cold
 * start. Adds what the panel needs and the library lacks: the character span of every token in the
 * user's original text.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EngineError, errorMessage } from '../errors';
import { normalizeWhitespace } from './normalize';

export interface TokenSpan {
  id: number;
  /** The exact source substring this token covers. */
  text: string;
  start: number;
  end: number;
}

interface HfTokenizer {
  tokenize(text: string): string[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
  get_vocab(): Map<string, number>;
}

const METASPACE = '\u2581';

/** Text is tokenized in pieces of about this many characters, cut at whitespace. No vocabulary piece
 * crosses a space (sentencepiece's split_by_whitespace), so the ids are those of the whole text;
 * and the library never sees a string long enough to overflow its stack (1 MB of text did). */
const CHUNK_CHARS = 20_000;

export class Tokenizer {
  private boundaries?: Uint8Array;

  private constructor(
    private readonly hf: HfTokenizer,
    readonly unkId: number,
  ) {}

  /** Whether the piece with this id ends the word before it: it starts a new word ("▁…") or holds
   * no letter or digit (punctuation). Used to require whole words, not a word's first pieces. */
  endsWord(id: number): boolean {
    if (!this.boundaries) {
      const vocab = this.vocabulary();
      this.boundaries = new Uint8Array(vocab.size);
      for (const [piece, i] of vocab) {
        if (i >= 0 && i < vocab.size)
          this.boundaries[i] = piece.startsWith(METASPACE) || !/[\p{L}\p{N}]/u.test(piece) ? 1 : 0;
      }
    }
    return this.boundaries[id] === 1;
  }

  private vocab?: Map<string, number>;
  private pieceList?: string[];

  /** Every id's piece as the vocabulary spells it ("▁the", "s", "<unk>"): what the decoding guards read. */
  pieces(): readonly string[] {
    if (!this.pieceList) {
      const vocab = this.vocabulary();
      const list = new Array<string>(vocab.size).fill('');
      for (const [piece, i] of vocab) if (i >= 0 && i < list.length) list[i] = piece;
      this.pieceList = list;
    }
    return this.pieceList;
  }

  private vocabulary(): Map<string, number> {
    this.vocab ??= this.hf.get_vocab();
    return this.vocab;
  }

  static async load(modelDir: string, unkId: number): Promise<Tokenizer> {
    try {
      // require, not import(): the package's "node" export is CommonJS, and the bundle is too.
      const { Tokenizer: HfTokenizerClass } =
        require('@huggingface/tokenizers') as typeof import('@huggingface/tokenizers');
      const json = (name: string) => JSON.parse(readFileSync(path.join(modelDir, name), 'utf8')) as object;
      const config = existsSync(path.join(modelDir, 'tokenizer_config.json')) ? json('tokenizer_config.json') : {};
      const hf: HfTokenizer = new HfTokenizerClass(json('tokenizer.json'), config);
      return new Tokenizer(hf, unkId);
    } catch (e) {
      throw new EngineError('bad-model', `Cannot load ${path.join(modelDir, 'tokenizer.json')}: ${errorMessage(e)}`);
    }
  }

  encode(text: string): number[] {
    return this.encodeWithSpans(text).map((s) => s.id);
  }

  decode(ids: number[]): string {
    if (ids.length === 0) return ''; // the library throws on an empty list
    return this.hf.decode(ids, { skip_special_tokens: true }).trim();
  }

  /**
   * Token ids with their spans in `text` (not the normalised text). Pieces are matched left to
   * right against the original; an <unk> piece covers whatever lies before the next matched piece.
   */
  encodeWithSpans(text: string): TokenSpan[] {
    return this.encodePrefix(text, Infinity).spans;
  }

  /** At least the first `maxTokens` tokens of `text` (more when a chunk ends past them), without
   * tokenizing the rest of a long document; `complete` says whether the whole text was read. */
  encodePrefix(text: string, maxTokens: number): { spans: TokenSpan[]; complete: boolean } {
    const spans: TokenSpan[] = [];
    let start = 0;
    while (start < text.length && spans.length < maxTokens) {
      let end = Math.min(text.length, start + CHUNK_CHARS);
      if (end < text.length) {
        const lastSpace = text.slice(start, end).search(/\s\S*$/);
        if (lastSpace > 0) end = start + lastSpace + 1;
        // A run without whitespace is cut where it is, but never inside a surrogate pair.
        else if (/[\uD800-\uDBFF]/.test(text[end - 1])) end--;
      }
      for (const span of this.encodeChunk(text.slice(start, end))) {
        spans.push({ ...span, start: span.start + start, end: span.end + start });
      }
      start = end;
    }
    return { spans, complete: start >= text.length };
  }

  /**
   * At least the last `maxTokens` tokens of `text` (more when the window read holds more), without
   * tokenizing the beginning of a long text: windows from the end, cut at whitespace (no piece
   * crosses a space, so the ids are those of the whole text), grown until they hold enough.
   * `complete` says whether the whole text was read.
   */
  encodeSuffix(text: string, maxTokens: number): { spans: TokenSpan[]; complete: boolean } {
    for (let window = Math.max(1024, maxTokens * 16); ; window *= 4) {
      let from = Math.max(0, text.length - window);
      if (from > 0) {
        const space = text.slice(from).search(/\s/);
        if (space >= 0) from += space;
        // A run without whitespace is cut where it is, but never inside a surrogate pair.
        else if (/[\uDC00-\uDFFF]/.test(text[from])) from++;
      }
      const spans = this.encodePrefix(text.slice(from), Infinity).spans;
      const before = from > 0 && /\S/.test(text.slice(0, from));
      if (spans.length >= maxTokens || !before) {
        return { spans: spans.map((s) => ({ ...s, start: s.start + from, end: s.end + from })), complete: !before };
      }
    }
  }

  private encodeChunk(text: string): TokenSpan[] {
    const norm = normalizeWhitespace(text);
    if (norm.length === 0) return [];
    // The pieces, and their ids from the vocabulary: what encode() would return, without running the
    // model a second time (half the time of reading a document before its first token).
    const pieces = this.hf.tokenize(norm);
    const vocab = this.vocabulary();
    const ids = pieces.map((p) => vocab.get(p) ?? this.unkId);
    const spans: TokenSpan[] = [];
    let cursor = 0;
    // Pieces whose place is known only once the next matched piece is found: <unk>s, and any
    // zero-width piece (a lone "▁") after them. Kept in order, so the spans' ids are the ids.
    let pending: { id: number; unk: boolean }[] = [];
    const closePending = (until: number) => {
      // <unk>s cover whatever lies between the cursor and the next known piece: one whitespace-separated
      // run each, the last taking the rest (one <unk> may stand for several unknown characters).
      const runs = [...text.slice(cursor, until).matchAll(/\S+/g)].map((m) => ({
        start: cursor + (m.index ?? 0),
        end: cursor + (m.index ?? 0) + m[0].length,
      }));
      const unks = pending.filter((p) => p.unk).length;
      let u = 0;
      for (const { id, unk } of pending) {
        const run = unk ? runs[u] : undefined;
        if (!run) {
          spans.push({ id, text: '', start: cursor, end: cursor });
          continue;
        }
        const end = ++u === unks ? runs[runs.length - 1].end : run.end;
        spans.push({ id, text: text.slice(run.start, end), start: run.start, end });
        cursor = end;
      }
      pending = [];
    };
    for (let i = 0; i < ids.length; i++) {
      const surface = pieces[i].split(METASPACE).join('');
      if (ids[i] === this.unkId || (surface.length === 0 && pending.length > 0)) {
        pending.push({ id: ids[i], unk: ids[i] === this.unkId });
        continue;
      }
      if (surface.length === 0) {
        spans.push({ id: ids[i], text: '', start: cursor, end: cursor });
        continue;
      }
      const at = text.indexOf(surface, cursor);
      if (at < 0) {
        // Should not happen with whitespace-only normalisation; keep a zero-width span rather than lie.
        closePending(cursor);
        spans.push({ id: ids[i], text: '', start: cursor, end: cursor });
        continue;
      }
      closePending(at);
      spans.push({ id: ids[i], text: surface, start: at, end: at + surface.length });
      cursor = at + surface.length;
    }
    closePending(text.length);
    return spans;
  }
}
