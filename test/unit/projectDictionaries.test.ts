// The word lists a project already keeps (Code Spell Checker's settings and config files, Vale's
// vocabularies) are known words, found from the checked file's folder up to the root, in the
// engine and in `draftsmith check`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  addToCspellWords,
  projectDialect,
  projectWords,
  usesCodeSpellChecker,
  valeAcceptWords,
} from '../../extension/engine/checks/projectDictionaries';
import { repoRoot, tempDir } from './helpers';

function project(): { root: string; file: string } {
  const root = tempDir('project-words');
  mkdirSync(path.join(root, '.vscode'), { recursive: true });
  mkdirSync(path.join(root, '.git'));
  mkdirSync(path.join(root, 'docs', 'guide'), { recursive: true });
  mkdirSync(path.join(root, 'styles', 'config', 'vocabularies', 'Docs'), { recursive: true });
  writeFileSync(
    path.join(root, '.vscode', 'settings.json'),
    '{\n  // the team’s words\n  "cSpell.words": ["mecab", "two words", 7],\n  "cSpell.ignoreWords": ["martinpopel"],\n}\n',
  );
  writeFileSync(path.join(root, 'docs', 'cspell.config.yaml'), 'words:\n  - sacrebleu\nignoreWords: [tholiao]\n');
  writeFileSync(
    path.join(root, 'cspell.json'),
    '{"words": ["chrf"], "dictionaryDefinitions": [{"name": "x", "path": "./words.txt"}]}',
  );
  writeFileSync(path.join(root, 'words.txt'), 'mypy\n');
  writeFileSync(path.join(root, '.vale.ini'), 'StylesPath = styles\nVocab = Docs\n');
  writeFileSync(
    path.join(root, 'styles', 'config', 'vocabularies', 'Docs', 'accept.txt'),
    '[Kk]ubeflow\n(?i)draftsmith\n^a.*regex$\n',
  );
  const file = path.join(root, 'docs', 'guide', 'intro.md');
  writeFileSync(
    file,
    'We score with sacrebleu and chrf, segment with mecab, lint with mypy.\n\nThanks to martinpopel and tholiao for Kubeflow notes and the kubeflow and draftsmith setup.\n',
  );
  return { root, file };
}

test('cSpell.words, cspell config files, their word lists and Vale vocabularies are read from the file’s folder up to the root', () => {
  const { root, file } = project();
  const found = projectWords(file, root);
  for (const w of [
    'mecab',
    'martinpopel',
    'sacrebleu',
    'tholiao',
    'chrf',
    'mypy',
    'Kubeflow',
    'kubeflow',
    'draftsmith',
  ])
    assert.ok(found.words.includes(w), w);
  assert.ok(!found.words.includes('two words'));
  assert.ok(usesCodeSpellChecker(root));
  // Above the root nothing is read: a file directly in docs/ with docs/ as the root sees only docs/'s list.
  assert.deepEqual(projectWords(path.join(root, 'docs', 'x.md'), path.join(root, 'docs')).words, [
    'sacrebleu',
    'tholiao',
  ]);
});

test('a broken config file adds nothing and stops nothing', () => {
  const root = tempDir('project-words-bad');
  writeFileSync(path.join(root, 'cspell.json'), '{"words": [');
  writeFileSync(path.join(root, 'cspell.config.yaml'), 'words: [a, : b\n');
  assert.deepEqual(projectWords(path.join(root, 'a.md'), root).words, []);
});

test('Vale accept.txt: words and simple patterns are taken, other regular expressions left out', () => {
  assert.deepEqual(valeAcceptWords('[Tt]ypeScript\n(?i)vale\nrust-analyzer\n^foo.*$\n'), [
    'TypeScript',
    'typeScript',
    'vale',
    'rust-analyzer',
  ]);
});

test('draftsmith check knows the project’s words, and --dialect picks the English', () => {
  const { file } = project();
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'check', '--rule', 'spelling', ...args], {
      encoding: 'utf8',
    });
  const r = cli([file]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const british = path.join(path.dirname(file), 'british.md');
  writeFileSync(british, 'The colour of the organisation.\n');
  // Under American they are British spellings: hints, which check prints when asked.
  assert.equal(cli([british]).stdout, '');
  assert.match(cli([british, '--hints']).stdout, /hint spelling: British spelling “colour”.*\n.*“organisation”/);
  const b = cli([british, '--dialect', 'British']);
  assert.equal(b.status, 0, b.stdout + b.stderr);
  assert.equal(cli([british, '--dialect', 'Klingon']).status, 2);
});

test('Add to Dictionary into cSpell.words keeps the settings file’s comments and other settings', () => {
  const { root, file } = project();
  const settings = path.join(root, '.vscode', 'settings.json');
  addToCspellWords(settings, 'nanochat');
  addToCspellWords(settings, 'nanochat');
  const text = readFileSync(settings, 'utf8');
  assert.match(text, /\/\/ the team’s words/);
  assert.match(text, /"cSpell.ignoreWords"/);
  assert.equal(text.match(/nanochat/g)?.length, 1);
  assert.ok(projectWords(file, root).words.includes('nanochat'));
  const fresh = path.join(tempDir('cspell-new'), '.vscode', 'settings.json');
  addToCspellWords(fresh, 'mecab');
  assert.deepEqual(JSON.parse(readFileSync(fresh, 'utf8')), { 'cSpell.words': ['mecab'] });
  assert.throws(() => addToCspellWords(fresh, 'two words'));
});

test('the English a project declares in its Code Spell Checker config ("language": "en-GB") is the dialect check reads its files in, with every rule as configured', () => {
  const root = tempDir('project-dialect');
  const doc = path.join(root, 'docs', 'guide.md');
  mkdirSync(path.dirname(doc), { recursive: true });
  // The Oxford comma's rule is off by default: a dialect set from the config must not turn it back on.
  writeFileSync(doc, 'The colour of the behaviour is grey. We sell apples, pears and plums.\n');
  assert.equal(projectDialect(doc, root), undefined);
  const check = () =>
    spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'check', doc], { encoding: 'utf8' });
  const american = spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'check', doc, '--hints'], {
    encoding: 'utf8',
  });
  assert.match(american.stdout, /hint spelling: British spelling “colour”/, 'American by default');
  writeFileSync(path.join(root, 'cspell.json'), '{ "language": "en,en-GB" }');
  assert.equal(projectDialect(doc, root), 'British');
  const british = check();
  assert.equal(british.stdout, '', `${british.stdout}${british.stderr}`);
});

test('the nearest manifest’s names are known words: package.json, pyproject.toml and Cargo.toml', () => {
  const root = tempDir('project-manifest');
  mkdirSync(path.join(root, 'py', 'docs'), { recursive: true });
  mkdirSync(path.join(root, 'rs'), { recursive: true });
  writeFileSync(
    path.join(root, 'package.json'),
    JSON.stringify({ name: '@acme/undici', bin: { undicictl: 'x' }, dependencies: { 'fast-glob': '1' }, version: 3 }),
  );
  writeFileSync(
    path.join(root, 'py', 'pyproject.toml'),
    '[project]\nname = "sacrebleu"\ndependencies = [\n  "portalocker>=2", # locks\n  "tabulate",\n]\n' +
      '[tool.poetry.dependencies]\nmecab-python3 = "^1"\n',
  );
  writeFileSync(
    path.join(root, 'rs', 'Cargo.toml'),
    '[package]\nname = "ripgrep"\n\n[dependencies]\nserde = { version = "1", features = ["derive"] }\n',
  );
  const words = (file: string) => projectWords(path.join(root, file), root).words;
  for (const w of ['acme', 'undici', 'undicictl', 'fast', 'glob']) assert.ok(words('README.md').includes(w), w);
  const py = words('py/docs/guide.md');
  for (const w of ['sacrebleu', 'portalocker', 'tabulate', 'mecab']) assert.ok(py.includes(w), w);
  assert.ok(!py.includes('undici'), 'only the nearest manifest: the file belongs to that project');
  const rs = words('rs/README.md');
  for (const w of ['ripgrep', 'serde']) assert.ok(rs.includes(w), w);
  assert.ok(!rs.includes('derive'));
  writeFileSync(path.join(root, 'package.json'), '{"name": ');
  assert.deepEqual(words('README.md'), [], 'a broken manifest adds nothing');
});
