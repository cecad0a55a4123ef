// What `draftsmith check` loads to check a small file: the checker and nothing of the models, Harper
// only when a family it finds is asked for, and Harper's set-up from the image it saved the first time,
// which must find exactly what a fresh set-up finds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { defaultCheckerConfig, ProseChecker } from '../../extension/engine/checks/checker';
import { HARPER_FAMILIES } from '../../extension/engine/checks/rules';
import { repoRoot, tempDir } from './helpers';

/** The packages that run models: a check needs none of them. */
const MODEL_RUNTIMES = ['onnxruntime-node', '@huggingface/transformers', '@huggingface/tokenizers', 'node-llama-cpp'];

/**
 * Preloaded into the CLI: records every module it asks for by name (require and import, through
 * Node's module hooks) and where each WebAssembly binary it compiles is compiled from, into the file
 * $LOADED names.
 */
const RECORDER = `
const fs = require('node:fs');
const Module = require('node:module');
const out = process.env.LOADED;
const note = (kind, what) => fs.appendFileSync(out, JSON.stringify({ kind, what }) + '\\n');
const load = Module._load;
Module._load = function (request, ...rest) {
  note('require', request);
  return load.call(this, request, ...rest);
};
Module.register(
  'data:text/javascript,' +
    encodeURIComponent(
      "import { appendFileSync } from 'node:fs';" +
        'export async function resolve(specifier, context, next) {' +
        "  appendFileSync(process.env.LOADED, JSON.stringify({ kind: 'import', what: specifier }) + '\\\\n');" +
        '  return next(specifier, context);' +
        '}',
    ),
);
for (const name of ['compile', 'instantiate']) {
  const original = WebAssembly[name];
  WebAssembly[name] = function (...args) {
    note('wasm', String(new Error().stack).split('\\n')[2] ?? '');
    return original.apply(this, args);
  };
}
`;

interface Loaded {
  requires: string[];
  imports: string[];
  /** The callers of WebAssembly.compile and .instantiate. */
  wasm: string[];
}

function checkLoading(args: string[], cacheDir: string): { status: number | null; stderr: string; loaded: Loaded } {
  const dir = tempDir('check-loads');
  const recorder = path.join(dir, 'recorder.js');
  writeFileSync(recorder, RECORDER);
  const log = path.join(dir, 'loaded.jsonl');
  writeFileSync(log, '');
  writeFileSync(path.join(dir, 'five.md'), 'This is a tset.\n');
  const r = spawnSync(process.execPath, ['-r', recorder, path.join(repoRoot, 'dist', 'cli.js'), 'check', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, LOADED: log, DRAFTSMITH_CHECKS_CACHE: cacheDir },
  });
  const entries = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { kind: string; what: string });
  const of = (kind: string) => entries.filter((e) => e.kind === kind).map((e) => e.what);
  return {
    status: r.status,
    stderr: r.stderr,
    loaded: { requires: of('require'), imports: of('import'), wasm: of('wasm') },
  };
}

const runtimesIn = (names: string[]) =>
  names.filter((n) => MODEL_RUNTIMES.some((m) => n === m || n.startsWith(`${m}/`)));

test('check loads no model runtime (onnxruntime, transformers.js, node-llama-cpp), only the checker and Harper', () => {
  const r = checkLoading(['five.md'], tempDir('check-loads-cache'));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /1 finding in 1 file/);
  // The recorder sees what the CLI loads: Node's own modules and Harper's ES module and binary.
  assert.ok(r.loaded.requires.includes('node:fs'), r.loaded.requires.join(' '));
  assert.ok(
    r.loaded.imports.some((i) => i.includes('harper.js')),
    r.loaded.imports.join(' '),
  );
  assert.equal(r.loaded.wasm.filter((w) => w.includes('harper.js')).length, 1, r.loaded.wasm.join('\n'));
  assert.deepEqual(runtimesIn([...r.loaded.requires, ...r.loaded.imports]), []);
  assert.ok(!r.loaded.requires.includes('wink-nlp'), 'wink-nlp tags sentences for the models, not for check');
});

test('with only spelling asked for, Harper is not loaded: no WebAssembly compiled, no set-up saved', () => {
  const cache = tempDir('check-spelling-cache');
  const r = checkLoading(['five.md', '--rule', 'spelling'], cache);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /1 finding in 1 file/);
  assert.deepEqual(r.loaded.wasm, []);
  assert.ok(!r.loaded.imports.some((i) => i.includes('harper.js')), r.loaded.imports.join(' '));
  assert.deepEqual(readdirSync(cache), []);
});

const TEXT =
  'This is is a test of the checker. He go to the library on Tuesdays.  Their is a problem with the last ' +
  'chart. i think the colour of the Frobnitz is an other matter, and the analyse was recieved late.\n\n' +
  'A sentence that goes on and on, with one clause after another and another after that, until the reader ' +
  'has quite forgotten where it began and why it began at all, and still it does not stop, since there is ' +
  'always more to say.\n';

test("a check from Harper's saved set-up finds what a fresh set-up finds; a damaged image is made again", () => {
  const dir = tempDir('check-image');
  const cache = path.join(dir, 'cache');
  writeFileSync(path.join(dir, 'notes.txt'), TEXT);
  writeFileSync(path.join(dir, 'words.txt'), 'Frobnitz\n');
  const args = ['notes.txt', '--dialect', 'British', '--dictionary', 'words.txt', '--json', '--fail-on', 'never'];
  const run = (cacheDir: string) => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'check', ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, DRAFTSMITH_CHECKS_CACHE: cacheDir },
    });
    assert.equal(r.status, 0, r.stderr);
    return (JSON.parse(r.stdout) as { rule: string; column: number; message: string }[]).map(
      (f) => `${f.column} ${f.rule}: ${f.message}`,
    );
  };
  const fresh = run('off');
  assert.ok(!existsSync(path.join(dir, 'off')), '"off" keeps no image');
  // The findings this test is about: Harper's rules under the dialect and words given, and the speller's.
  for (const rule of ['repeated-word', 'grammar/PronounVerbAgreement', 'spacing', 'long-sentence', 'spelling'])
    assert.ok(
      fresh.some((f) => f.includes(` ${rule}:`)),
      `${rule} in:\n${fresh.join('\n')}`,
    );
  assert.ok(!fresh.some((f) => /colour|Frobnitz/.test(f)), fresh.join('\n'));

  assert.deepEqual(run(cache), fresh, 'the run that makes the image');
  const [image] = readdirSync(cache);
  assert.match(image, /^harper-.+\.mem$/);
  const size = statSync(path.join(cache, image)).size;
  assert.ok(size > 50e6, `an image of Harper's whole memory, not ${size} bytes`);
  assert.deepEqual(run(cache), fresh, 'the run from the image');

  truncateSync(path.join(cache, image), size - 65536);
  assert.deepEqual(run(cache), fresh, 'a cut image is not read');
  assert.deepEqual(readdirSync(cache), [image]);
  assert.equal(statSync(path.join(cache, image)).size, size, 'and it is made again');
});

test('a checker made with every Harper family off finds grammar once grammar is turned on', async () => {
  const off = defaultCheckerConfig();
  for (const f of HARPER_FAMILIES) off.rules[f] = 'off';
  const checker = await ProseChecker.create(off);
  const text = 'He go home. This is is a tset.\n';
  const rules = async () => ((await checker.check(text, 'markdown')) ?? { findings: [] }).findings.map((f) => f.rule);
  assert.deepEqual(await rules(), ['spelling']);
  await checker.configure(defaultCheckerConfig());
  assert.deepEqual(await rules(), ['grammar/PronounVerbAgreement', 'repeated-word', 'spelling']);
  await checker.dispose();
});
