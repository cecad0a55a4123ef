/**
 * A repository's listing (extension/engine/hub/repoListing.ts) and the redirects the downloads follow
 * (hub/hubFetch.ts): the model API's answer read with zod, every path checked, hostile ones refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineError } from '../../extension/engine/errors';
import { redirectAllowed } from '../../extension/engine/hub/hubFetch';
import { localPath } from '../../extension/engine/hub/repoDownload';
import {
  checkedRepoPath,
  LISTING_FILE,
  listingFromApi,
  listingOfFolder,
  listingUrl,
  readCachedListing,
  writeCachedListing,
} from '../../extension/engine/hub/repoListing';

const SHA256 = 'a'.repeat(64);
/** The shape huggingface.co answers GET /api/models/<id>/revision/<rev>?blobs=true with (abridged). */
const answer = (siblings: unknown[]) => ({
  _id: '6723b5b1b2a7e5a9a8c0ffee',
  id: 'HuggingFaceTB/SmolLM2-135M-Instruct',
  modelId: 'HuggingFaceTB/SmolLM2-135M-Instruct',
  sha: '45dead349c328fe92a861c5162de28c8c86754e1',
  private: false,
  gated: false,
  disabled: false,
  library_name: 'transformers',
  tags: ['transformers', 'onnx'],
  siblings,
});

test('the model API answer with blobs=true becomes a listing: sizes, the sha256 of files in LFS, the commit', () => {
  const l = listingFromApi(
    answer([
      { rfilename: 'config.json', size: 861, blobId: 'b'.repeat(40) },
      {
        rfilename: 'onnx/model_q4.onnx',
        size: 200_000_000,
        blobId: 'c'.repeat(40),
        lfs: { size: 200_000_000, sha256: SHA256, pointerSize: 134 },
      },
    ]),
    'HuggingFaceTB/SmolLM2-135M-Instruct',
    'main',
    'HuggingFaceTB/SmolLM2-135M-Instruct',
  );
  assert.equal(l.sha, '45dead349c328fe92a861c5162de28c8c86754e1');
  assert.deepEqual(l.files, [
    { path: 'config.json', size: 861 },
    { path: 'onnx/model_q4.onnx', size: 200_000_000, sha256: SHA256 },
  ]);
  assert.equal(
    listingUrl('https://huggingface.co/', 'a/b', 'refs/pr/1'),
    'https://huggingface.co/api/models/a/b/revision/refs%2Fpr%2F1?blobs=true',
  );
});

test('a listing naming a path outside the repository is refused as a whole, naming the path', () => {
  for (const [bad, why] of [
    ['../x', /outside the repository/],
    ['onnx/../../x', /outside the repository/],
    ['/etc/passwd', /an absolute path/],
    ['C:/Windows/x', /an absolute path/],
    ['onnx\\model.onnx', /a backslash/],
    ['a//b', /outside the repository/],
    ['./config.json', /outside the repository/],
    ['', /empty/],
    ['a\u0000b', /control character/],
  ] as const) {
    assert.throws(
      () =>
        listingFromApi(
          answer([
            { rfilename: 'config.json', size: 1 },
            { rfilename: bad, size: 3 },
          ]),
          'a/b',
          'main',
          'a/b',
        ),
      (e: unknown) =>
        e instanceof EngineError &&
        e.code === 'bad-model' &&
        e.message.includes(JSON.stringify(bad)) &&
        why.test(e.message) &&
        /Nothing of it was downloaded/.test(e.message),
      bad,
    );
  }
  assert.equal(checkedRepoPath('onnx/model_q4.onnx_data_1', 'a/b'), 'onnx/model_q4.onnx_data_1');
});

test('an answer without sizes, or that is not a listing, is refused', () => {
  assert.throws(
    () => listingFromApi(answer([{ rfilename: 'config.json' }]), 'a/b', 'main', 'a/b'),
    (e: unknown) => e instanceof EngineError && /gives no size for config\.json/.test(e.message),
  );
  assert.throws(
    () => listingFromApi({ error: 'nope' }, 'a/b', 'main', 'a/b'),
    (e: unknown) => e instanceof EngineError && /is not a model listing/.test(e.message),
  );
  assert.throws(
    () =>
      listingFromApi(
        answer([
          { rfilename: 'x', size: 1 },
          { rfilename: 'x', size: 2 },
        ]),
        'a/b',
        'main',
        'a/b',
      ),
    (e: unknown) => e instanceof EngineError && /names x twice/.test(e.message),
  );
});

test('a kept listing is used for its own id and revision only; a damaged one is removed', (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-listing-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const listing = { id: 'a/b', revision: 'main', sha: 'f'.repeat(40), files: [{ path: 'config.json', size: 2 }] };
  writeCachedListing(dir, listing);
  assert.deepEqual(readCachedListing(dir, 'a/b', 'main'), listing);
  assert.equal(readCachedListing(dir, 'a/b', 'v2'), undefined);
  assert.equal(readCachedListing(dir, 'a/c', 'main'), undefined);
  writeFileSync(
    path.join(dir, LISTING_FILE),
    '{"id": "a/b", "revision": "main", "files": [{"path": "../x", "size": 1}]}',
  );
  assert.equal(readCachedListing(dir, 'a/b', 'main'), undefined);
  assert.ok(!existsSync(path.join(dir, LISTING_FILE)));
});

test("a folder's files as a listing: hidden entries and symbolic links left out", (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-folder-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'onnx'));
  writeFileSync(path.join(dir, 'config.json'), '{}');
  writeFileSync(path.join(dir, 'onnx', 'model_q4.onnx'), 'xyz');
  writeFileSync(path.join(dir, '.hidden'), 'x');
  symlinkSync('/etc/passwd', path.join(dir, 'onnx', 'model.onnx'));
  assert.deepEqual(
    listingOfFolder(dir, 'x').files.sort((a, b) => a.path.localeCompare(b.path)),
    [
      { path: 'config.json', size: 2 },
      { path: 'onnx/model_q4.onnx', size: 3 },
    ],
  );
});

test('a file is written only inside its cache folder', () => {
  const dir = path.join(os.tmpdir(), 'cache', 'a', 'b');
  assert.equal(localPath(dir, 'onnx/model.onnx', 'a/b'), path.join(dir, 'onnx', 'model.onnx'));
  for (const bad of ['../b2/x', '/etc/passwd', 'onnx/../../../x']) {
    assert.throws(() => localPath(dir, bad, 'a/b'), EngineError, bad);
  }
});

test('redirects are followed within the same host, and from huggingface.co to its CDN only', () => {
  const u = (s: string) => new URL(s);
  assert.ok(redirectAllowed(u('http://127.0.0.1:9/a/b/resolve/main/x'), u('http://127.0.0.1:9/cdn-lfs/abc')));
  assert.ok(redirectAllowed(u('https://huggingface.co/a/b/resolve/main/x'), u('https://cdn-lfs.hf.co/repos/ab/cd/x')));
  assert.ok(
    redirectAllowed(u('https://huggingface.co/a/b/resolve/main/x'), u('https://cas-bridge.xethub.hf.co/xet/x')),
  );
  assert.ok(
    redirectAllowed(u('https://huggingface.co/a/b/resolve/main/x'), u('https://huggingface.co/c/d/resolve/main/x')),
  );
  // Elsewhere, a downgrade to http, or another host of a mirror: refused.
  assert.ok(!redirectAllowed(u('https://huggingface.co/a/b/resolve/main/x'), u('https://evil.example/x')));
  assert.ok(!redirectAllowed(u('https://huggingface.co/a/b/resolve/main/x'), u('http://cdn-lfs.hf.co/x')));
  assert.ok(!redirectAllowed(u('https://huggingface.co/x'), u('https://huggingface.co.evil.example/x')));
  assert.ok(!redirectAllowed(u('http://127.0.0.1:9/x'), u('http://localhost:9/x')));
  assert.ok(!redirectAllowed(u('https://mirror.example/x'), u('https://cdn-lfs.hf.co/x')));
  assert.ok(!redirectAllowed(u('https://mirror.example/x'), u('file:///etc/passwd')));
});
