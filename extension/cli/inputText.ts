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
 * ISO-8859-1/Windows-1252 text (accented Latin letters among ASCII, no control bytes, and no valid
 * UTF-8 sequence beyond ASCII) is read as Windows-1252 (the superset of ISO-8859-1 for text), with a
 * note on standard error.
 *
 * One policy for bad input, every command: UTF-8 with stray bytes that are not UTF-8 is read with
 * "�" in their place and a warning that gives the first one's byte offset and how many there are;
 * binary data (the engine's rule: more than a tenth NULs, controls or replacement characters) and a
 * file too large to hold are refused (exit 1), before any model loads or any score is computed.
 */
import { existsSync, promises as fs, statSync } from 'node:fs';
import type { TextOrigin } from '../protocol';
import { EngineError, errorMessage } from '../engine/errors';
import { readability } from '../engine/text/reader';
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
  /** Bytes that are not UTF-8, read as "�". */
  warning?: string;
}

/** The largest file read (a JavaScript string holds about 512 MiB of UTF-16). */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

/**
 * Where `buf` is not UTF-8: the first bad byte's offset and the count of bad bytes (each byte that
 * starts no valid sequence), and whether it has any valid sequence beyond ASCII (then it is UTF-8
 * with stray bytes, not another encoding).
 */
export function utf8Problems(buf: Uint8Array): { first?: number; bad: number; multibyte: boolean } {
  let first: number | undefined;
  let bad = 0;
  let multibyte = false;
  for (let i = 0; i < buf.length;) {
    const b = buf[i];
    const n = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    let ok = n >= 0 && i + n < buf.length;
    for (let k = 1; ok && k <= n; k++) ok = (buf[i + k] & 0xc0) === 0x80;
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 (RFC 3629, section 4).
    const c = buf[i + 1];
    if (
      ok &&
      ((b === 0xe0 && c < 0xa0) || (b === 0xed && c > 0x9f) || (b === 0xf0 && c < 0x90) || (b === 0xf4 && c > 0x8f))
    )
      ok = false;
    if (ok) {
      if (n > 0) multibyte = true;
      i += n + 1;
      continue;
    }
    first ??= i;
    bad++;
    i++;
  }
  return { first, bad, multibyte };
}

/** Bytes that Windows-1252 leaves undefined: a file with them is not text in that encoding. */
const CP1252_UNDEFINED = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

/**
 * Windows-1252's 0x80-0x9F (€, curly quotes, dashes, …); the rest is ISO-8859-1, byte = code point.
 * Written out because Node's TextDecoder('windows-1252') decodes these bytes as ISO-8859-1's C1 controls.
 */
const CP1252_80_9F = [
  '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F', // 0x80-0x8F
  '\u0090‘’“”•–—˜™š›œ\u009DžŸ', // 0x90-0x9F
].join('');

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

/**
 * `name`'s bytes as text (see the encodings above). `keepBom`: a UTF-8 byte-order mark stays in the
 * text as U+FEFF, as Python (and so sacreBLEU) reads a file, so a score sees what sacreBLEU sees.
 */
export function decodeText(buf: Buffer, name: string, keepBom = false): Decoded {
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
  const problems = utf8Problems(buf);
  if (problems.first === undefined) {
    const text = new TextDecoder('utf-8', { ignoreBOM: keepBom }).decode(buf);
    return keepBom && text.startsWith('\uFEFF')
      ? {
          text,
          note: `${name} starts with a byte-order mark; kept, as sacreBLEU keeps it (it is part of the first word)`,
        }
      : { text };
  }
  if (!problems.multibyte && looksLikeLatin1(buf)) {
    return {
      text: decodeWindows1252(buf),
      note:
        `${name} is not UTF-8; read as ISO-8859-1/Windows-1252 (save it as UTF-8 to be sure of its accented ` +
        `letters)`,
    };
  }
  const more = problems.bad > 1 ? ` and ${problems.bad - 1} more` : '';
  return {
    text: new TextDecoder('utf-8').decode(buf),
    warning:
      `${name} is not valid UTF-8 at byte ${problems.first}${more}; ` +
      `${problems.bad > 1 ? 'those bytes are' : 'that byte is'} read as "\uFFFD"`,
  };
}

/** Refuses (bad input) text that is binary data, by the engine's rule, before anything works on it. */
function notBinary(text: string, name: string): string {
  if (readability(text) === 'binary')
    throw new EngineError(
      'bad-input',
      `${name} looks like binary data, not text (more than a tenth of it NUL, control or undecodable bytes); ` +
        `nothing was done with it`,
    );
  return text;
}

const printNote = (d: Decoded): string => {
  if (d.note) process.stderr.write(`note: ${d.note}\n`);
  if (d.warning) process.stderr.write(`warning: ${d.warning}\n`);
  return d.text;
};

/**
 * A file's text; "no such file" for a name that names nothing (a bad command line, exit 2, as for
 * every command), a clear line for a folder.
 */
export async function readTextFile(file: string): Promise<string> {
  return printNote(await readDecoded(file));
}

/**
 * A file a command works on (readTextFile), binary data refused before any note on its encoding;
 * `keepBom` as decodeText.
 */
export async function readTextInput(file: string, keepBom = false): Promise<string> {
  const decoded = await readDecoded(file, keepBom);
  notBinary(decoded.text, file);
  return printNote(decoded);
}

async function readDecoded(file: string, keepBom = false): Promise<Decoded> {
  let isFolder: boolean;
  let size: number;
  try {
    const stat = statSync(file);
    [isFolder, size] = [stat.isDirectory(), stat.size];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR')
      throw new EngineError('bad-request', `no such file: ${file}`);
    throw new EngineError('bad-input', `Cannot read ${file}: ${errorMessage(e)}`);
  }
  if (isFolder) throw new EngineError('bad-input', `${file} is a folder, not a file`);
  if (size > MAX_INPUT_BYTES)
    throw new EngineError(
      'bad-input',
      `${file} is ${Math.round(size / 2 ** 20)} MiB; the largest file Draftsmith reads is ` +
        `${MAX_INPUT_BYTES / 2 ** 20} MiB (split it)`,
    );
  const buf = await fs.readFile(file).catch((e: unknown) => {
    throw new EngineError('bad-input', `Cannot read ${file}: ${errorMessage(e)}`);
  });
  return decodeText(buf, file, keepBom);
}

export async function readStdinText(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const decoded = decodeText(Buffer.concat(chunks), 'standard input');
  return printNote({ ...decoded, text: notBinary(decoded.text, 'standard input') });
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
        `${command}: give the text once: --text TEXT, or ${opts.acceptsText ? 'TEXT, ' : ''}FILE, or - for ` +
          `standard input`,
      );
    return { text: inline, origin: 'text', source: 'command line' };
  }
  if (words.length === 0) throw new EngineError('bad-request', opts.missing);
  if (words.length === 1 && words[0] === '-') return { text: await readStdinText(), origin: 'text', source: 'stdin' };
  if (!opts.acceptsText) {
    if (words.length > 1)
      throw new EngineError(
        'bad-request',
        `${command} reads one FILE, not ${words.length} (${words.map((w) => JSON.stringify(w)).join(' ')}); ` +
          `give the text itself with --text "..."`,
      );
    return { text: await readTextInput(words[0]), origin: 'file', source: 'file' };
  }
  const word = words[0];
  if (words.length === 1 && (looksLikePath(word) || isFile(word))) {
    try {
      return { text: await readTextInput(word), origin: 'file', source: 'file' };
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
