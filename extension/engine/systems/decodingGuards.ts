/**
 * The decoding guards as a system sets them up (decode/guards.ts): the model's known-word list
 * (model.json files.knownWords, read once at load), the input, and the request's `guards` switch
 * (draftsmith.decoding.guards, the CLI's --no-guards): on unless it is false.
 */
import { promises as fs } from 'node:fs';
import { EngineError, errorMessage } from '../errors';
import { ALL_GUARDS, KnownWords, PieceGuard, type GuardFlags, type RowGuard } from '../decode/guards';
import type { ModelFolder } from '../runtime/manifest';
import type { Tokenizer } from '../text/tokenizer';
import { sentenceSpans } from '../text/reader';

/** A word list larger than this is not one (the shipped ones are under 0.5 MB). */
const MAX_WORDS_BYTES = 8 * 1024 * 1024;

/** The folder's known words, or undefined when its manifest names none. */
export async function readKnownWords(folder: ModelFolder): Promise<KnownWords | undefined> {
  if (folder.manifest.files.knownWords === undefined) return undefined;
  const file = folder.file('knownWords');
  let text: string;
  try {
    const stat = await fs.stat(file);
    if (stat.size > MAX_WORDS_BYTES)
      throw new Error(`${stat.size} bytes, more than a word list holds (at most ${MAX_WORDS_BYTES})`);
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    throw new EngineError('bad-model', `${file} (files.knownWords) cannot be read: ${errorMessage(e)}`);
  }
  const words = KnownWords.parse(text);
  if (words.size === 0) throw new EngineError('bad-model', `${file} (files.knownWords) holds no words.`);
  return words;
}

export interface GuardSetup {
  /** Each id's piece as the guards read it (a chosen model's: hub/guardPieces.ts). */
  tokenizer: Pick<Tokenizer, 'pieces'>;
  known: KnownWords | undefined;
  eos: number;
}

/** The guards' setup for a system loaded from `folder`: its known words and its end token. */
export async function guardSetup(folder: ModelFolder, tokenizer: Tokenizer): Promise<GuardSetup> {
  return { tokenizer, known: await readKnownWords(folder), eos: folder.manifest.specialTokens.eos };
}

/**
 * The guard for one output, or undefined when the request turned the guards off (the paper's plain
 * decoding). `input`: the text whose words and numbers the output may use beyond the known words;
 * `prefix`: ids written before this output that the repetition rules see (earlier sentences); `extra`:
 * rules a system adds to the common ones (a summary's names only from its source).
 */
export function decodingGuard(
  setup: GuardSetup,
  enabled: boolean | undefined,
  input: string,
  prefix?: readonly number[],
  extra: Partial<GuardFlags> = {},
): RowGuard | undefined {
  if (enabled === false) return undefined;
  return new PieceGuard({
    pieces: setup.tokenizer.pieces(),
    eos: setup.eos,
    flags: { ...ALL_GUARDS, ...extra },
    known: setup.known,
    input,
    prefix,
  });
}

/** A sentence's end: . ! or ?, then any closing quotes or brackets. */
const FINISHED = /[.!?][\s"'”’)\]]*$/u;

/**
 * Text ended at its last complete sentence (a decoding guard: a summary does not stop
 * mid-sentence, whether the length limit cut it or the model wrote its end token there; a third of
 * the news summaries did). Unchanged when its last sentence is complete or it holds no complete
 * sentence before the fragment (a one-line synopsis).
 */
export function endAtLastSentence(text: string): string {
  const spans = sentenceSpans(text);
  if (spans.length < 2 || FINISHED.test(spans[spans.length - 1].text)) return text;
  return text.slice(0, spans[spans.length - 2].end);
}
