// ESLint (flat config): typescript-eslint's recommended rules plus the project's boundaries.
// Formatting is prettier's alone (checked by `npm run lint`, applied by `npm run format`): no stylistic rule here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      '.e2e/**',
      '.data/**',
      '.work/**',
      'models/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] })],
      // The files whose imports the rules follow: without '.ts' here, import-x/no-cycle reads no
      // TypeScript module and finds no cycle at all.
      'import-x/extensions': ['.ts', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // A cycle makes module initialisation order matter; none is needed anywhere.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // The engine runs in a worker and in the CLI: it must never reach the editor.
    files: ['extension/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'The engine never imports vscode.' }] }],
    },
  },
  {
    // The host reaches the engine through the protocol (the worker) and engine/public.ts only: a
    // host that imported the engine's modules would load models' code into the extension host.
    files: ['extension/host/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./engine/(?!public$)',
              message: 'The host uses the engine through ../engine/public (and the worker) only.',
            },
          ],
        },
      ],
    },
  },
  {
    // The page takes what it needs of the extension through extension/panelPage.ts alone: the
    // messages, the views and the pure table helpers it bundles for the browser.
    files: ['webview/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The panel talks only through protocol messages.' }],
          patterns: [
            {
              regex: '(^|/)extension/(?!panelPage$)',
              message: 'The panel page imports from the extension through extension/panelPage only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Native and ESM-only packages (onnxruntime-node, transformers.js) are loaded lazily, where first
    // needed, so that activation and the CLI's help stay fast.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The UI driver runs functions inside the page too (page.evaluate).
    files: ['test/integration/ui/**/*.js'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
