// `npm run docs`: writes the generated documentation (docs/settings.md, docs/cli.md, the models table
// in docs/models.md) from the sources; scripts/docs.ts says what each is made from.
// esbuild bundles that TypeScript module for this one run, so no build is needed first.
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = mkdtempSync(join(tmpdir(), 'draftsmith-docs-'));
try {
  const bundle = join(out, 'docs.cjs');
  await build({
    entryPoints: [join(root, 'scripts', 'docs.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
  const { generatedDocs } = createRequire(import.meta.url)(bundle);
  for (const { file, text } of generatedDocs(root)) {
    const at = join(root, file);
    let before = '';
    try {
      before = readFileSync(at, 'utf8');
    } catch {
      // a new page
    }
    if (before === text) console.log(`${file}: up to date`);
    else {
      writeFileSync(at, text);
      console.log(`${file}: written`);
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
