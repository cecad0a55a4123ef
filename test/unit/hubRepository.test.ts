/**
 * The repository side of Hub models, against the loopback Hub: the listing, the files chosen from
 * it, what the Hub's errors mean to the user, pinned revisions, hostile repositories and servers,
 * and what is kept in the cache after each (never a partial file, never a file outside the cache,
 * the download kept when only the running failed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../extension/engine/engine';
import { EngineError } from '../../extension/engine/errors';
import { megabytes } from '../../extension/engine/hub/fileChoice';
import type { HubConfig, StoryResult } from '../../extension/protocol';
import { article } from './helpers';
import { HUB_FIXTURES, STORY_LM, SUMMARIZER, type LoopbackHub } from './loopbackHub';
import { config, files, tempCache, withHub } from './hubTestKit';

const PROMPT = 'Once upon a time, a little girl named Lily found a red ball in the park.';
const STORY_DIR = path.join(HUB_FIXTURES, STORY_LM);
const MB = 1_000_000;

const story = (id: string, revision?: string) => ({
  op: 'story' as const,
  prompt: PROMPT,
  words: 10,
  sampling: { seed: 7 },
  model: { kind: 'hub' as const, id, ...(revision ? { revision } : {}) },
});

/** An engine on `hub` with its cache in `cacheDir`, and the log lines it wrote. */
function engineOn(hub: LoopbackHub, cacheDir: string, more: Partial<HubConfig> = {}) {
  const log: string[] = [];
  const engine = new Engine(config({ endpoint: hub.endpoint, cacheDir, ...more }), (_level, m) => log.push(m));
  return { engine, log };
}

const failsWith = (code: string, what: RegExp) => (e: unknown) =>
  e instanceof EngineError && e.code === code && what.test(e.message);

/** The resolve requests made for `id`. */
const resolves = (hub: LoopbackHub, id: string) => hub.requests.filter((r) => r.startsWith(`/${id}/resolve/`));

test('an id the Hub does not know: 401 RepoNotFound from the server, "not found, or private or gated" with the id to the user, nothing cached', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const r = await fetch(`${hub.endpoint}api/models/draftsmith/no-such-model/revision/main?blobs=true`);
  assert.equal(r.status, 401);
  assert.equal(r.headers.get('x-error-code'), 'RepoNotFound');
  assert.deepEqual(await r.json(), { error: 'Repository not found' });
  const f = await fetch(`${hub.endpoint}draftsmith/no-such-model/resolve/main/config.json`);
  assert.equal(f.status, 401);
  assert.equal(f.headers.get('x-error-code'), 'RepoNotFound');
  const { engine } = engineOn(hub, cacheDir);
  await assert.rejects(
    engine.run(story('draftsmith/no-such-model')),
    failsWith(
      'model-unavailable',
      /^draftsmith\/no-such-model was not found at http:\/\/127\.0\.0\.1:\d+\/, or it is private or gated/,
    ),
  );
  assert.deepEqual(files(cacheDir), []);
});

test('a private repository reads as not found; a gated one says its files need an accepted licence and a token', async (t) => {
  const hub = await withHub(t);
  hub.repos.set('someone/private-gpt2', { dir: STORY_DIR, private: true });
  hub.repos.set('someone/gated-gpt2', { dir: STORY_DIR, gated: true });
  const cacheDir = tempCache(t);
  const { engine } = engineOn(hub, cacheDir);
  await assert.rejects(
    engine.run(story('someone/private-gpt2')),
    failsWith('model-unavailable', /someone\/private-gpt2 was not found at .*, or it is private or gated/),
  );
  // The Hub lists a gated repository, and refuses its files.
  const listed = await fetch(`${hub.endpoint}api/models/someone/gated-gpt2`);
  assert.equal(listed.status, 200);
  assert.equal(((await listed.json()) as { gated: unknown }).gated, 'manual');
  await assert.rejects(
    engine.run(story('someone/gated-gpt2')),
    failsWith(
      'model-unavailable',
      /someone\/gated-gpt2 is gated at http.*licence accepted on the Hub and an access token/,
    ),
  );
  assert.ok(!files(cacheDir).some((f) => f.endsWith('.onnx')), files(cacheDir).join(', '));
});

test('the loopback Hub answers as huggingface.co: listing with sizes and sha256, a 302 to its CDN for large files, Range → 206, EntryNotFound, RevisionNotFound', async (t) => {
  const hub = await withHub(t);
  const size = readFileSync(path.join(STORY_DIR, 'onnx/model.onnx')).length;
  const api = (await (await fetch(`${hub.endpoint}api/models/${STORY_LM}/revision/main?blobs=true`)).json()) as {
    sha: string;
    siblings: { rfilename: string; size?: number; lfs?: { size: number; sha256: string } }[];
  };
  assert.match(api.sha, /^[0-9a-f]{40}$/);
  const onnx = api.siblings.find((s) => s.rfilename === 'onnx/model.onnx');
  assert.equal(onnx?.lfs?.size, size);
  assert.match(onnx?.lfs?.sha256 ?? '', /^[0-9a-f]{64}$/);
  assert.equal(api.siblings.find((s) => s.rfilename === 'config.json')?.lfs, undefined);
  // Without blobs=true the Hub gives the names only.
  const plain = (await (await fetch(`${hub.endpoint}api/models/${STORY_LM}`)).json()) as { siblings: object[] };
  assert.deepEqual(Object.keys(plain.siblings[0]), ['rfilename']);

  const resolve = `${hub.endpoint}${STORY_LM}/resolve/${api.sha}/onnx/model.onnx`;
  const r302 = await fetch(resolve, { redirect: 'manual' });
  assert.equal(r302.status, 302);
  const cdn = new URL(r302.headers.get('location')!, resolve);
  assert.equal(cdn.host, new URL(hub.endpoint).host);
  assert.match(cdn.pathname, /^\/cdn-lfs\/[0-9a-f]{64}$/);
  const whole = await fetch(cdn);
  assert.equal(whole.status, 200);
  assert.equal((await whole.arrayBuffer()).byteLength, size);
  const first = await fetch(cdn, { headers: { Range: 'bytes=0-0' } });
  assert.equal(first.status, 206);
  assert.equal(first.headers.get('content-range'), `bytes 0-0/${size}`);
  assert.equal((await first.arrayBuffer()).byteLength, 1);
  const tail = await fetch(cdn, { headers: { Range: `bytes=${size - 10}-` } });
  assert.equal(tail.status, 206);
  assert.equal((await tail.arrayBuffer()).byteLength, 10);
  assert.equal((await fetch(cdn, { headers: { Range: `bytes=${size}-` } })).status, 416);
  // A small file comes straight from resolve.
  assert.equal(
    (await fetch(`${hub.endpoint}${STORY_LM}/resolve/main/config.json`, { redirect: 'manual' })).status,
    200,
  );
  const missing = await fetch(`${hub.endpoint}${STORY_LM}/resolve/main/onnx/model_q4.onnx`);
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-error-code'), 'EntryNotFound');
  const rev = await fetch(`${hub.endpoint}${STORY_LM}/resolve/${'0'.repeat(40)}/config.json`);
  assert.equal(rev.status, 404);
  assert.equal(rev.headers.get('x-error-code'), 'RevisionNotFound');
});

for (const [id, op] of [
  [STORY_LM, 'story'],
  [SUMMARIZER, 'summarize'],
] as const) {
  test(`the size reported before the download of ${id} is the listing's size of the files chosen, and what the Hub then sends`, async (t) => {
    const hub = await withHub(t);
    const cacheDir = tempCache(t);
    const { engine, log } = engineOn(hub, cacheDir);
    const progress: string[] = [];
    const request =
      op === 'story'
        ? story(id)
        : { op: 'summarize' as const, text: article, decoding: { maxLength: 20 }, model: { kind: 'hub' as const, id } };
    await engine.run(request, { progress: (m) => progress.push(m) });
    const line = log.find((m) => m.startsWith(`downloading ${id} `));
    assert.ok(line, log.join('\n'));
    const total = Number(/\): (\d+) bytes in \d+ files/.exec(line)![1]);
    // What the Hub sent, every byte of it, once.
    assert.equal(hub.sent.get(id), total);
    // What lies in the cache: those files (and the kept listing).
    const dir = path.join(cacheDir, id);
    const kept = files(dir).filter((f) => f !== '.draftsmith-listing.json');
    assert.equal(
      kept.reduce((n, f) => n + readFileSync(path.join(dir, f)).length, 0),
      total,
    );
    // The first progress line names the whole size to come, before a byte of the graphs arrived.
    const first = progress.find((m) => m.startsWith(`Downloading ${id}:`));
    assert.match(
      first ?? '',
      new RegExp(`^Downloading .*: [\\d.]+ of ${megabytes(total).replace('.', '\\.')} MB \\(0 %\\)$`),
    );
  });
}

test('a pinned revision: the listing resolves it to its commit, downloads name the commit, and it loads offline afterwards with no request', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const sha = (await hub.listing(STORY_LM))!.sha;
  const short = sha.slice(0, 7);
  const { engine } = engineOn(hub, cacheDir);
  const r = (await engine.run(story(STORY_LM, short))) as StoryResult;
  assert.ok(r.continuation.length > 0);
  assert.ok(hub.requests.includes(`/api/models/${STORY_LM}/revision/${short}`), hub.requests.join('\n'));
  const downloads = resolves(hub, STORY_LM);
  assert.ok(downloads.length > 0);
  assert.ok(
    downloads.every((u) => u.startsWith(`/${STORY_LM}/resolve/${sha}/`)),
    downloads.join('\n'),
  );
  // Kept per revision, beside the files.
  assert.ok(existsSync(path.join(cacheDir, STORY_LM, short, '.draftsmith-listing.json')));
  const before = hub.requests.length;
  const offline = engineOn(hub, cacheDir, { offline: true }).engine;
  const again = (await offline.run(story(STORY_LM, short))) as StoryResult;
  assert.equal(again.continuation, r.continuation);
  assert.deepEqual(hub.requests.slice(before), []);
});

test('an unknown revision is said to be one', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story(STORY_LM, 'v9.9')),
    failsWith('model-unavailable', /draftsmith\/story-gpt2@v9\.9: http.* has no such revision of it/),
  );
  assert.deepEqual(files(cacheDir), []);
});

test('a download cache without a kept listing (an earlier version of Draftsmith) loads from its own files, offline or not, with no request', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const dir = path.join(cacheDir, STORY_LM);
  for (const f of files(STORY_DIR)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    copyFileSync(path.join(STORY_DIR, f), path.join(dir, f));
  }
  for (const offline of [true, false]) {
    const r = (await engineOn(hub, cacheDir, { offline }).engine.run(story(STORY_LM))) as StoryResult;
    assert.ok(r.continuation.length > 0);
  }
  assert.equal(hub.requests.length, 0, hub.requests.join('\n'));
  // One without its graph is no set that runs: online, the listing is asked for and the graph comes.
  rmSync(path.join(dir, 'onnx'), { recursive: true });
  await engineOn(hub, cacheDir).engine.run(story(STORY_LM));
  assert.ok(hub.requests.includes(`/api/models/${STORY_LM}/revision/main`), hub.requests.join('\n'));
});

test('a cached file whose size is not the listing’s is downloaded again', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  await engineOn(hub, cacheDir).engine.run(story(STORY_LM));
  const onnx = path.join(cacheDir, STORY_LM, 'onnx', 'model.onnx');
  writeFileSync(onnx, 'damaged');
  const before = resolves(hub, STORY_LM).length;
  const r = (await engineOn(hub, cacheDir).engine.run(story(STORY_LM))) as StoryResult;
  assert.ok(r.continuation.length > 0);
  assert.deepEqual(resolves(hub, STORY_LM).slice(before), [
    `/${STORY_LM}/resolve/${(await hub.listing(STORY_LM))!.sha}/onnx/model.onnx`,
  ]);
  assert.deepEqual(readFileSync(onnx), readFileSync(path.join(STORY_DIR, 'onnx/model.onnx')));
});

// ---- hostile repositories and servers -------------------------------------------------------

test('a listing naming ../x or /etc/passwd is refused before anything is asked for or written', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const escaped = `draftsmith-escaped-${process.pid}`;
  hub.repos.set('evil/dotdot', { dir: STORY_DIR, extraListing: [{ rfilename: `../${escaped}`, size: 3 }] });
  hub.repos.set('evil/absolute', { dir: STORY_DIR, extraListing: [{ rfilename: '/etc/passwd', size: 3 }] });
  const { engine } = engineOn(hub, cacheDir);
  await assert.rejects(
    engine.run(story('evil/dotdot')),
    failsWith('bad-model', new RegExp(`evil/dotdot was refused: its file listing names "\\.\\./${escaped}"`)),
  );
  await assert.rejects(
    engine.run(story('evil/absolute')),
    failsWith('bad-model', /evil\/absolute was refused: its file listing names "\/etc\/passwd", an absolute path/),
  );
  assert.deepEqual(resolves(hub, 'evil/dotdot'), []);
  assert.deepEqual(resolves(hub, 'evil/absolute'), []);
  assert.deepEqual(files(cacheDir), []);
  assert.ok(!existsSync(path.join(cacheDir, '..', escaped)));
});

test('a listing giving config.json 50 MB is refused without asking for it', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.repos.set('evil/big-config', { dir: STORY_DIR, files: { 'config.json': { size: 50 * MB, fill: ' ' } } });
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story('evil/big-config')),
    failsWith('bad-model', /evil\/big-config was refused: its config\.json is 50 MB/),
  );
  assert.deepEqual(resolves(hub, 'evil/big-config'), []);
  assert.deepEqual(files(cacheDir), []);
});

test('a repository refused for its listing, once fixed, is asked for again and loads', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const listings = () => hub.requests.filter((r) => r.startsWith('/api/models/evil/fixed-later')).length;
  hub.repos.set('evil/fixed-later', { dir: STORY_DIR, files: { 'config.json': { size: 50 * MB, fill: ' ' } } });
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story('evil/fixed-later')),
    failsWith('bad-model', /evil\/fixed-later was refused: its config\.json is 50 MB/),
  );
  assert.equal(listings(), 1);
  // The owner fixes the repository; the same cache, a new run (as after a restart).
  hub.repos.set('evil/fixed-later', { dir: STORY_DIR });
  const r = (await engineOn(hub, cacheDir).engine.run(story('evil/fixed-later'))) as StoryResult;
  assert.ok(r.continuation.length > 0);
  assert.equal(listings(), 2, 'the refused listing was not asked for again');
  // Kept now that its files passed: the next load makes no request.
  const before = hub.requests.length;
  await engineOn(hub, cacheDir).engine.run(story('evil/fixed-later'));
  assert.equal(hub.requests.length, before);
});

test('a server sending more than the listing gives (no Content-Length) is cut off at the listing’s size, and nothing is kept', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.behave.set(`${STORY_LM}/onnx/model.onnx`, 'overlong');
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story(STORY_LM)),
    failsWith('bad-model', /refused: the server sent more of onnx\/model\.onnx than the \d+ bytes the listing gives/),
  );
  // An integrity failure removes the model's files: the next try starts afresh.
  assert.deepEqual(files(cacheDir), []);
});

test('a server whose Content-Length differs from the listing is refused before the body is read', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.behave.set(`${STORY_LM}/config.json`, { body: Buffer.alloc(50 * MB, ' ') });
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story(STORY_LM)),
    failsWith('bad-model', /the server sends config\.json as 50000000 bytes, and the listing says \d+/),
  );
  assert.ok((hub.sent.get(STORY_LM) ?? 0) <= 50 * MB);
  assert.deepEqual(files(cacheDir), []);
});

test('bytes past a true Content-Length are never read: the file kept is exactly the listing’s', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.behave.set(`${STORY_LM}/onnx/model.onnx`, 'overlong-cl');
  const r = (await engineOn(hub, cacheDir).engine.run(story(STORY_LM))) as StoryResult;
  assert.ok(r.continuation.length > 0);
  assert.deepEqual(
    readFileSync(path.join(cacheDir, STORY_LM, 'onnx/model.onnx')),
    readFileSync(path.join(STORY_DIR, 'onnx/model.onnx')),
  );
});

test('a file shorter than the listing, ending cleanly, is an integrity failure: refused, the model’s files removed', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.behave.set(`${STORY_LM}/onnx/model.onnx`, 'short');
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story(STORY_LM)),
    failsWith('bad-model', /the server sends onnx\/model\.onnx as \d+ bytes, and the listing says \d+/),
  );
  assert.deepEqual(files(cacheDir), []);
});

test('a file whose sha256 is not the listing’s is refused and the model’s files removed', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  const size = readFileSync(path.join(STORY_DIR, 'onnx/model.onnx')).length;
  hub.behave.set(`${STORY_LM}/onnx/model.onnx`, { body: Buffer.alloc(size, 7) });
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story(STORY_LM)),
    failsWith('bad-model', /onnx\/model\.onnx has sha256 [0-9a-f]{64}, and the listing says [0-9a-f]{64}/),
  );
  assert.deepEqual(files(cacheDir), []);
});

test('a tokenizer.json that is not JSON: a clear error, and nothing of the model is kept', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.repos.set('evil/bad-tokenizer', { dir: STORY_DIR, files: { 'tokenizer.json': 'this is not JSON {' } });
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story('evil/bad-tokenizer')),
    failsWith('bad-model', /evil\/bad-tokenizer was refused: its tokenizer\.json is not JSON/),
  );
  assert.deepEqual(files(cacheDir), []);
});

test('a redirect to another host is refused, and no part of the file is written', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  hub.behave.set(`${STORY_LM}/onnx/model.onnx`, 'redirect-away');
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story(STORY_LM)),
    failsWith(
      'model-unavailable',
      /redirected the download of .*onnx\/model\.onnx to http:\/\/localhost:\d+, another site/,
    ),
  );
  assert.ok(!hub.requests.some((r) => r.startsWith('/cdn-lfs/')), 'the other host was asked');
  assert.ok(!files(cacheDir).some((f) => f.includes('.onnx')), files(cacheDir).join(', '));
});

test('a graph this onnxruntime cannot run keeps its download and names the operator', async (t) => {
  const hub = await withHub(t);
  const cacheDir = tempCache(t);
  // The fixture's graph with every MatMul renamed MatMux: a valid file with an operator no runtime has.
  const graph = readFileSync(path.join(STORY_DIR, 'onnx/model.onnx'));
  for (let i = graph.indexOf('MatMul'); i >= 0; i = graph.indexOf('MatMul', i + 6)) graph.write('MatMux', i);
  hub.repos.set('someone/unknown-op', { dir: STORY_DIR, files: { 'onnx/model.onnx': graph } });
  await assert.rejects(
    engineOn(hub, cacheDir).engine.run(story('someone/unknown-op')),
    failsWith(
      'bad-model',
      /someone\/unknown-op could not run here: the operator MatMux is not supported by this onnxruntime \(onnxruntime-node [\d.]+\)\. Its files are kept/,
    ),
  );
  // Kept: the next try needs no download.
  assert.ok(
    files(cacheDir).includes(path.join('someone/unknown-op', 'onnx', 'model.onnx')),
    files(cacheDir).join(', '),
  );
  const before = resolves(hub, 'someone/unknown-op').length;
  await assert.rejects(engineOn(hub, cacheDir).engine.run(story('someone/unknown-op')), /could not run here/);
  assert.equal(resolves(hub, 'someone/unknown-op').length, before);
});

test("onnxruntime's out-of-memory and missing-kernel messages read as what happened: not enough memory, or the operator this onnxruntime lacks", async () => {
  const { explainLoad } = await import('../../extension/engine/hub/hubModel');
  const dir = '/cache/a/b';
  for (const raw of [
    'Failed to allocate memory for requested buffer of size 1811939328',
    'std::bad_alloc',
    'bad allocation',
    'RangeError: Array buffer allocation failed',
  ]) {
    const e = explainLoad(new Error(raw), 'a/b', dir);
    assert.match(e.message, /^a\/b could not run here: not enough memory .*Its files are kept in \/cache\/a\/b/, raw);
  }
  const kernel = explainLoad(
    new Error(
      "Could not find an implementation for MatMulNBits(1) node with name '/model/layers.0/attn/q_proj/MatMul_Q4'",
    ),
    'a/b',
    dir,
  );
  assert.match(
    kernel.message,
    /^a\/b could not run here: the operator MatMulNBits is not supported by this onnxruntime/,
  );
  assert.match(
    explainLoad(new Error('Protobuf parsing failed.'), 'a/b', dir).message,
    /^a\/b does not load: Protobuf parsing failed/,
  );
});
