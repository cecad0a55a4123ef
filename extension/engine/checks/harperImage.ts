/**
 * Harper's memory after its one-time set-up, kept on disk so that a short-lived process (the CLI's
 * `check`) need not do that set-up again. Harper builds its curated dictionary and the rest of its
 * global state the first time a linter is made: about 1.5 s of CPU on a 2-core machine, most of what
 * `draftsmith check` on a small file cost. All of that state lives in the WebAssembly instance's
 * linear memory, so a copy of the memory taken after it, written into a fresh instance of the same
 * binary, gives the same Harper without the work: the pre-initialisation Wizer does for WebAssembly
 * modules, done at run time. (Caching the compiled module would not help: V8 compiles the binary
 * lazily, in about 50 ms; and Node 20 can neither serialise a WebAssembly.Module nor keep its code.)
 *
 * What makes the copy valid: the same binary (the key below: harper.js's version, the binary's size
 * and a hash of its ends), taken when no Harper object is held by JavaScript (its table of JavaScript
 * values then holds only its four constants, and only its size need match), into an instance whose
 * own start function has run (so the glue's JavaScript side is set up; the memory then says the same
 * start ran). A file of the wrong size or key is not used; it is written whole under a temporary name
 * and renamed, so a reader never sees half of one.
 *
 * The file is as large as Harper's memory (about 170 MB); one is kept per folder (an image of another
 * binary is removed when a new one is written). Reading it costs about 0.1 s of CPU, mostly the
 * kernel's copy from the page cache.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The parts of a WebAssembly.Memory and WebAssembly.Table used here (this project's typings have neither). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmTable {
  readonly length: number;
  grow(entries: number): number;
}

/** The instance's exports that the image touches (wasm-bindgen's names). */
export interface HarperExports {
  memory: WasmMemory;
  __wbindgen_externrefs: WasmTable;
}

/** The header before the memory: JSON, padded with spaces to this many bytes. */
const HEADER_BYTES = 4096;
/** Bumped when what is stored, or how, changes. */
const FORMAT = 1;
const PAGE = 65536;
const PREFIX = 'harper-';
const SUFFIX = '.mem';

interface Header {
  format: number;
  key: string;
  /** The memory's length in bytes, and the JavaScript value table's length. */
  bytes: number;
  table: number;
}

/**
 * Where the CLI keeps the image: $DRAFTSMITH_CHECKS_CACHE, else ~/.cache/draftsmith/checks; undefined
 * when that variable is `off` (each run then sets Harper up again).
 */
export function imageDirFromEnvironment(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env.DRAFTSMITH_CHECKS_CACHE?.trim();
  if (set === 'off') return undefined;
  return path.resolve(set || path.join(os.homedir(), '.cache', 'draftsmith', 'checks'));
}

/** The exports, when `value` has what the image needs (another glue, a newer harper.js, may not). */
export function harperExports(value: unknown): HarperExports | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { memory, __wbindgen_externrefs: table } = value as Partial<Record<keyof HarperExports, Partial<WasmTable>>>;
  const memoryLike = memory && (memory as Partial<WasmMemory>).buffer instanceof ArrayBuffer;
  const tableLike = table && typeof table.length === 'number';
  return memoryLike && tableLike && typeof memory.grow === 'function' && typeof table.grow === 'function'
    ? { memory: memory as WasmMemory, __wbindgen_externrefs: table as WasmTable }
    : undefined;
}

/** What identifies the binary: the package's version, the binary's size, and a hash of its first and last MiB. */
export function binaryKey(wasmFile: string, version: string): string {
  const fd = openSync(wasmFile, 'r');
  try {
    const size = fstatSync(fd).size;
    const hash = createHash('sha256').update(`${FORMAT}\n${version}\n${size}\n`);
    const chunk = Math.min(size, 1 << 20);
    for (const at of [0, size - chunk]) {
      const buf = Buffer.alloc(chunk);
      readSync(fd, buf, 0, chunk, at);
      hash.update(buf);
    }
    return `${version}-${hash.digest('hex').slice(0, 16)}`;
  } finally {
    closeSync(fd);
  }
}

export const imageFile = (dir: string, key: string) => path.join(dir, `${PREFIX}${key}${SUFFIX}`);

/**
 * Writes the instance's memory into `dir` under `key`; false (and nothing left behind) when it cannot
 * (a read-only folder, a full disk): the image only saves time.
 */
export function saveImage(dir: string, key: string, exports: HarperExports): boolean {
  const file = imageFile(dir, key);
  const tmp = `${file}.tmp.${process.pid}.${randomBytes(4).toString('hex')}`;
  const memory = new Uint8Array(exports.memory.buffer);
  const header: Header = { format: FORMAT, key, bytes: memory.length, table: exports.__wbindgen_externrefs.length };
  try {
    mkdirSync(dir, { recursive: true });
    const fd = openSync(tmp, 'w');
    try {
      writeAll(fd, Buffer.from(JSON.stringify(header).padEnd(HEADER_BYTES, ' ')));
      writeAll(fd, memory);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
    return false;
  }
  // One image per folder: those of other binaries (an older harper.js) are no longer read.
  for (const name of readdirSync(dir))
    if (name.startsWith(PREFIX) && name !== path.basename(file) && !name.includes('.tmp.'))
      rmSync(path.join(dir, name), { force: true });
  return true;
}

function writeAll(fd: number, data: Uint8Array): void {
  for (let at = 0; at < data.length;) at += writeSync(fd, data, at, data.length - at);
}

/**
 * Reads the image saved under `key` into the instance; false when there is none that fits (then the
 * instance is as it was). The instance must be fresh: its start function run, nothing else.
 */
export function restoreImage(dir: string, key: string, exports: HarperExports): boolean {
  let fd: number;
  try {
    fd = openSync(imageFile(dir, key), 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    if (readSync(fd, head, 0, HEADER_BYTES, 0) !== HEADER_BYTES) return false;
    let header: Header;
    try {
      header = JSON.parse(head.toString('utf8')) as Header;
    } catch {
      return false;
    }
    const { memory, __wbindgen_externrefs: table } = exports;
    if (
      header.format !== FORMAT ||
      header.key !== key ||
      !Number.isSafeInteger(header.bytes) ||
      header.bytes % PAGE !== 0 ||
      header.bytes < memory.buffer.byteLength ||
      !Number.isSafeInteger(header.table) ||
      header.table < table.length ||
      fstatSync(fd).size !== HEADER_BYTES + header.bytes
    )
      return false;
    memory.grow((header.bytes - memory.buffer.byteLength) / PAGE);
    if (header.table > table.length) table.grow(header.table - table.length);
    // Straight into the instance's memory: no second copy of it in the JavaScript heap.
    const into = new Uint8Array(memory.buffer);
    for (let at = 0; at < header.bytes;) {
      const n = readSync(fd, into, at, header.bytes - at, HEADER_BYTES + at);
      if (n === 0) throw new Error(`Harper's saved state ${imageFile(dir, key)} ended early`);
      at += n;
    }
    return true;
  } finally {
    closeSync(fd);
  }
}
