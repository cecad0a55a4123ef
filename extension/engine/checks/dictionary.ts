/**
 * Personal dictionaries: plain text files, one word a line, as cspell's and LTeX+'s word lists are
 * (a workspace's `.draftsmith/dictionary.txt` and the user's `~/.draftsmith/dictionary.txt`).
 * Whatever else a line holds is tolerated, not an error: blank lines, '#' comments, surrounding
 * spaces, a byte-order mark, Windows line ends; a line that is not one word (spaces inside, control
 * characters, over 64 characters) is skipped.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const DICTIONARY_FILE = path.join('.draftsmith', 'dictionary.txt');
/** A dictionary larger than this is read no further (a file put there by mistake). */
const MAX_BYTES = 4 * 1024 * 1024;
const MAX_WORD = 64;

/** The words of a dictionary file's text (see the header for what is tolerated). */
export function parseDictionary(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.length > MAX_WORD) continue;
    if (/[\s\p{Cc}\p{Cs}\uFFFD]/u.test(line)) continue;
    if (!/\p{L}/u.test(line)) continue;
    out.push(line.normalize('NFC'));
  }
  return out;
}

/** The words of the file at `file`; [] when it is missing or unreadable. */
export function readDictionary(file: string): string[] {
  try {
    if (!existsSync(file) || statSync(file).size > MAX_BYTES) return [];
    return parseDictionary(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
}

/** The user's dictionary: ~/.draftsmith/dictionary.txt. */
export function userDictionaryPath(home = os.homedir()): string {
  return path.join(home, DICTIONARY_FILE);
}

/** Whether `word` can go in a dictionary (one word, a letter in it). */
export function isDictionaryWord(word: string): boolean {
  return parseDictionary(word).length === 1 && word.trim() === word;
}

/** Adds `word` to the dictionary at `file` (made, with its folder, when missing), on a line of its own. */
export function addToDictionary(file: string, word: string): void {
  if (!isDictionaryWord(word)) throw new Error(`"${word}" is not one word`);
  if (readDictionary(file).includes(word)) return;
  mkdirSync(path.dirname(file), { recursive: true });
  let prefix = '';
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    if (text.length > 0 && !/[\r\n]$/.test(text)) prefix = '\n';
  }
  appendFileSync(file, `${prefix}${word}\n`, 'utf8');
}
