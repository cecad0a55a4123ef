/**
 * What a command reads, and how a word on the command line is told from a file name.
 *
 *   summarize, roundtrip: FILE, - (standard input) or --text TEXT.
 *   reply, essay:         TEXT (the words themselves), FILE, - or --text TEXT.
 *
 * The rule for one word after reply or essay (looksLikePath): an existing file is read; a word
 * without spaces that contains a path separator (/ or \) or ends in a file extension (a dot, then
 * 1-8 letters or digits with at least one letter: .txt, .md, .mp3) is a file name, and one that
 * names no file gets "no such file"; anything else is the text. Text that looks like a file name
 * ("e.g", "node.js") is given with --text.
 *
 * Files and standard input are UTF-8 (a byte-order mark is dropped). A file in another encoding: UTF-16
 * with its byte-order mark is read as UTF-16; anything else that is not valid UTF-8 but reads as
 * ISO-8859-1/Windows-1252 text (accented Latin letters among ASCII, no control bytes) is read as
 * Windows-1252 (the superset of ISO-8859-1 for text), with a note on standard error; other bytes
 * are left for the engine to judge (binary data).
 */
import { existsSync, promises as fs, statSync } from 'node:fs';
import type { TextOrigin } from '../protocol';
import { EngineError, errorMessage } from '../engine/errors';
import { flag, type Args } from './args';

/** One word that names a file rather than being the text: see the rule above. */
export function looksLikePath(arg: string): boolean {
  if (arg.length === 0 || /\s/.test(arg)) return false;
  return /[\\/]/.test(arg) || /[^.]\.(?=[A-Za-z0-9]{1,8}$)[0-9]*[A-Za-z][A-Za-z0-9]*$/.test(arg);
}

/** Text as read, and what the reader noticed about its encoding (for standard error). */
export interface Decoded {
  text: string;
  note?: string;
}

/** Bytes that Windows-1252 leaves undefined: a file with them is not text in that encoding. */
const CP1252_UNDEFINED = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

/**
 * Windows-1252's 0x80-0x9F (€, curly quotes, dashes, …); the rest is ISO-8859-1, byte = code point.
 * Written out because Node's TextDecoder('windows-1252') decodes these bytes as ISO-8859-1's C1 controls.
 */
const CP1252_80_9F = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';

function decodeWindows1252(buf: Buffer): string {
  let out = '';
  for (const b of buf) out += b >= 0x80 && b <= 0x9f ? CP1252_80_9F[b - 0x80] : String.fromCharCode(b);
  return out;
}

/**
 * Whether bytes that are not UTF-8 read as ISO-8859-1/Windows-1252 text: no NUL or other control
 * bytes but tab, new lines and form feed; bytes above 127 a minority (at most 30 %), each a byte
 * Windows-1252 defines. CJK encodings (two high bytes a character, most of the text) fail the share.
 */
function looksLikeLatin1(buf: Buffer): boolean {
  let high = 0;
  for (const b of buf) {
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c) return false;
    if (b === 0x7f || CP1252_UNDEFINED.has(b)) return false;
    if (b >= 0x80) high++;
  }
  return high > 0 && high <= 0.3 * buf.length;
}

/** `name`'s bytes as text (see the encodings above). */
export function decodeText(buf: Buffer, name: string): Decoded {
  if (buf[0] === 0xff && buf[1] === 0xfe)
    return {
      text: new TextDecoder('utf-16le').decode(buf),
      note: `${name} is UTF-16 (little-endian, by its byte-order mark); read as such`,
    };
  if (buf[0] === 0xfe && buf[1] === 0xff)
    return {
      text: new TextDecoder('utf-16be').decode(buf),
      note: `${name} is UTF-16 (big-endian, by its byte-order mark); read as such`,
    };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(buf) };
  } catch {
    if (looksLikeLatin1(buf)) {
      return {
        text: decodeWindows1252(buf),
        note: `${name} is not UTF-8; read as ISO-8859-1/Windows-1252 (save it as UTF-8 to be sure of its accented letters)`,
      };
    }
    return { text: new TextDecoder('utf-8').decode(buf) };
  }
}

const printNote = (d: Decoded): string => {
  if (d.note) process.stderr.write(`note: ${d.note}\n`);
  return d.text;
};

/**
 * A file's text; "no such file" for a name that names nothing (a bad command line, exit 2, as for
 * every command), a clear line for a folder.
 */
export async function readTextFile(file: string): Promise<string> {
  let isFolder: boolean;
  try {
    isFolder = statSync(file).isDirectory();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR')
      throw new EngineError('bad-request', `no such file: ${file}`);
    throw new EngineError('bad-input', `Cannot read ${file}: ${errorMessage(e)}`);
  }
  if (isFolder) throw new EngineError('bad-input', `${file} is a folder, not a file`);
  const buf = await fs.readFile(file).catch((e: unknown) => {
    throw new EngineError('bad-input', `Cannot read ${file}: ${errorMessage(e)}`);
  });
  return printNote(decodeText(buf, file));
}

export async function readStdinText(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return printNote(decodeText(Buffer.concat(chunks), 'standard input'));
}

export interface CommandInput {
  text: string;
  /** For the engine's messages: "the file" or "the text". */
  origin: TextOrigin;
  /** Where it was read from: a file, standard input, or the command line (the words or --text). */
  source: 'file' | 'stdin' | 'command line';
}

/**
 * The text a command works on, from its words after the command (`words`), --text, or standard
 * input (-). `acceptsText`: the words may be the text itself (reply, essay); otherwise one FILE.
 * `missing` is the message when nothing is given.
 */
export async function commandInput(
  a: Args,
  command: string,
  words: string[],
  opts: { acceptsText: boolean; missing: string },
): Promise<CommandInput> {
  const inline = flag(a, 'text');
  if (inline !== undefined) {
    if (words.length > 0)
      throw new EngineError(
        'bad-request',
        `${command}: give the text once: --text TEXT, or ${opts.acceptsText ? 'TEXT, ' : ''}FILE, or - for standard input`,
      );
    return { text: inline, origin: 'text', source: 'command line' };
  }
  if (words.length === 0) throw new EngineError('bad-request', opts.missing);
  if (words.length === 1 && words[0] === '-') return { text: await readStdinText(), origin: 'text', source: 'stdin' };
  if (!opts.acceptsText) {
    if (words.length > 1)
      throw new EngineError(
        'bad-request',
        `${command} reads one FILE, not ${words.length} (${words.map((w) => JSON.stringify(w)).join(' ')}); give the text itself with --text "..."`,
      );
    return { text: await readTextFile(words[0]), origin: 'file', source: 'file' };
  }
  const word = words[0];
  if (words.length === 1 && (looksLikePath(word) || isFile(word))) {
    try {
      return { text: await readTextFile(word), origin: 'file', source: 'file' };
    } catch (e) {
      if (e instanceof EngineError && e.message.startsWith('no such file')) {
        throw new EngineError(
          e.code,
          `${e.message} (for these words themselves, give them with --text ${JSON.stringify(word)})`,
        );
      }
      throw e;
    }
  }
  return { text: words.join(' '), origin: 'text', source: 'command line' };
}

function isFile(p: string): boolean {
  try {
    return existsSync(p) && statSync(p).isFile();
  } catch {
    return false;
  }
}
