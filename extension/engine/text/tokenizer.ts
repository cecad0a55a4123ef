/**
 * The models' tokenizer: a sentencepiece unigram vocabulary written as tokenizer.json
 * (models/train/draftsmith_train/tokenizer.py), loaded with @huggingface/transformers from the
 * model folder only (remote loading off). Adds what the panel needs and the library lacks:
 * the character span of every token in the user's original text.
 */
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
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  tokenize(text: string): string[];
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
}

const METASPACE = '\u2581';

export class Tokenizer {
  private constructor(private readonly hf: HfTokenizer, readonly unkId: number) {}

  static async load(modelDir: string, unkId: number): Promise<Tokenizer> {
    try {
      // require, not import(): the package's "node" export is CommonJS, and the bundle is too.
      const transformers = require('@huggingface/transformers') as typeof import('@huggingface/transformers');
      transformers.env.allowRemoteModels = false;
      transformers.env.allowLocalModels = true;
      transformers.env.localModelPath = path.dirname(modelDir) + path.sep;
      const hf = (await transformers.AutoTokenizer.from_pretrained(path.basename(modelDir))) as unknown as HfTokenizer;
      return new Tokenizer(hf, unkId);
    } catch (e) {
      throw new EngineError('bad-model', `Cannot load ${path.join(modelDir, 'tokenizer.json')}: ${errorMessage(e)}`);
    }
  }

  encode(text: string): number[] {
    return this.hf.encode(normalizeWhitespace(text), { add_special_tokens: false });
  }

  decode(ids: number[]): string {
    return this.hf.decode(ids, { skip_special_tokens: true }).trim();
  }

  /**
   * Token ids with their spans in `text` (not the normalised text). Pieces are matched left to
   * right against the original; an <unk> piece covers whatever lies before the next matched piece.
   */
  encodeWithSpans(text: string): TokenSpan[] {
    const norm = normalizeWhitespace(text);
    const ids = this.hf.encode(norm, { add_special_tokens: false });
    const pieces = this.hf.tokenize(norm);
    if (pieces.length !== ids.length) {
      throw new EngineError('internal', `tokenizer returned ${pieces.length} pieces for ${ids.length} ids`);
    }
    const spans: TokenSpan[] = [];
    let cursor = 0;
    let pendingUnk: number[] = [];
    const closeUnks = (until: number) => {
      // <unk>s cover whatever lies between the cursor and the next known piece: one whitespace-separated
      // run each, the last taking the rest (one <unk> may stand for several unknown characters).
      const runs = [...text.slice(cursor, until).matchAll(/\S+/g)].map((m) => ({ start: cursor + (m.index ?? 0), end: cursor + (m.index ?? 0) + m[0].length }));
      pendingUnk.forEach((id, i) => {
        const isLast = i === pendingUnk.length - 1;
        const run = runs[i];
        if (!run) { spans.push({ id, text: '', start: cursor, end: cursor }); return; }
        const end = isLast ? runs[runs.length - 1].end : run.end;
        spans.push({ id, text: text.slice(run.start, end), start: run.start, end });
        cursor = end;
      });
      pendingUnk = [];
    };
    for (let i = 0; i < ids.length; i++) {
      const surface = pieces[i].split(METASPACE).join('');
      if (ids[i] === this.unkId || surface.length === 0) {
        if (ids[i] === this.unkId) pendingUnk.push(ids[i]);
        else spans.push({ id: ids[i], text: '', start: cursor, end: cursor });
        continue;
      }
      const at = text.indexOf(surface, cursor);
      if (at < 0) {
        // Should not happen with whitespace-only normalisation; keep a zero-width span rather than lie.
        spans.push({ id: ids[i], text: '', start: cursor, end: cursor });
        continue;
      }
      closeUnks(at);
      spans.push({ id: ids[i], text: surface, start: at, end: at + surface.length });
      cursor = at + surface.length;
    }
    closeUnks(text.length);
    return spans;
  }
}
