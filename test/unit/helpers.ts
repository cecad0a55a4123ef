import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EngineError } from '../../extension/engine/errors';
import type { Tokenizer } from '../../extension/engine/text/tokenizer';
import { disableOrtTelemetry } from '../../extension/engine/runtime/ortTelemetry';
import { FromWorker, type ToWorker } from '../../extension/protocol';

/** The repository root: tests run bundled from dist/test/unit/. */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const modelsDir = path.join(repoRoot, 'models');
export const fixture = (name: string) => path.join(repoRoot, 'test', 'fixtures', name);

/** One system's row of a paired test as the sacreBLEU fixture generators write it (null: not computed). */
export interface PairedFixtureRow {
  name: string;
  score: number;
  mean: number | null;
  ci: number | null;
  pValue: number | null;
}

const tempDirs: string[] = [];
let removeOnExit = false;

/**
 * A new folder draftsmith-<name>-XXXXXX in the OS temp folder, removed with everything in it when
 * this test file's process exits, whether its tests passed or failed (node --test runs each file in
 * a process of its own). A test that needs its folder gone sooner removes it itself.
 */
export function tempDir(name: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `draftsmith-${name}-`));
  tempDirs.push(dir);
  if (!removeOnExit) {
    removeOnExit = true;
    process.on('exit', () => {
      for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

/** Edits a copied model folder's model.json. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests write any field of a manifest
export async function editManifest(dir: string, edit: (m: Record<string, any>) => void): Promise<void> {
  const file = path.join(dir, 'model.json');
  const m = JSON.parse(await fs.readFile(file, 'utf8'));
  edit(m);
  await fs.writeFile(file, JSON.stringify(m));
}

/** Records a file's current sha256 in model.json, as an exporter that wrote that file would. */
export async function rehash(dir: string, name: string): Promise<void> {
  const digest = createHash('sha256')
    .update(await fs.readFile(path.join(dir, name)))
    .digest('hex');
  await editManifest(dir, (m) => {
    m.sha256[name] = digest;
  });
}

/** A bad-model EngineError whose message names `file` and matches `what`. */
export const badModelNaming = (file: string, what: RegExp) => (e: unknown) =>
  e instanceof EngineError && e.code === 'bad-model' && e.message.includes(file) && what.test(e.message);

/** A short news article (seven sentences, names and numbers) that the summarize tests read. */
export const article = `The city council of Riverton voted on Tuesday to build a new bridge over the Alder River, ending a
debate that has lasted for more than ten years. The bridge will connect the old market district with the
new housing area on the east bank. Mayor Ellen Park said the project would cost about 40 million dollars
and would be paid for by a state grant and a local bond. Construction is expected to begin next spring
and to take two years. Some residents of the market district opposed the plan, saying that more traffic
would harm small shops. The council promised to build a bicycle lane and to limit heavy trucks.`;

/**
 * Starts the real worker bundle as the host does (a worker thread) and collects its validated
 * messages; `until` waits for one (and throws if the worker fails), `close` stops it as the host does.
 */
export function startWorker(workerData: unknown = {}) {
  disableOrtTelemetry(); // as the host does before it starts the worker
  const w = new Worker(path.join(repoRoot, 'dist', 'worker.js'), { workerData });
  const messages: FromWorker[] = [];
  const waiters: (() => void)[] = [];
  let failed: Error | undefined;
  const wake = () => waiters.splice(0).forEach((f) => f());
  w.on('message', (m: unknown) => {
    messages.push(FromWorker.parse(m));
    wake();
  });
  w.on('error', (e) => {
    failed = e;
    wake();
  });
  const until = async (pred: (m: FromWorker) => boolean): Promise<FromWorker> => {
    for (;;) {
      if (failed) throw failed;
      const hit = messages.find(pred);
      if (hit) return hit;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const send = (m: ToWorker) => w.postMessage(m);
  /** As the host does: 'stop', wait for 'stopped' (no onnxruntime run under way), then terminate. */
  const close = async () => {
    send({ type: 'stop' });
    await until((m) => m.type === 'stopped');
    await w.terminate();
  };
  return { w, messages, until, send, close };
}

/** A request's one ending: its result or its error. */
export const endOf = (id: number) => (m: FromWorker) => (m.type === 'result' || m.type === 'error') && m.id === id;

/** Any text gives token spans in order, each inside the text and equal to its slice, and decodes. */
export function assertSpansInOrder(tok: Tokenizer, t: string): void {
  let last = 0;
  for (const s of tok.encodeWithSpans(t)) {
    assert.ok(Number.isInteger(s.id) && s.start >= last && s.end >= s.start && s.end <= t.length, JSON.stringify(s));
    assert.equal(t.slice(s.start, s.end), s.text);
    last = s.start;
  }
  assert.equal(typeof tok.decode(tok.encode(t)), 'string');
}
