// Which model a command runs, as the user writes it: draftsmith.story.model, the Choose
// Model command's input box and the CLI's --model all go through parseModelChoice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  describeModelChoice,
  folderLayout,
  formatModelChoice,
  hubIdProblem,
  parseHubEndpoint,
  parseModelChoice,
  sameModelChoice,
} from '../../extension/modelChoice';
import { ModelChoice } from '../../extension/protocol';

const HOME = path.resolve('/home/writer');
/** The folders that exist in these tests. */
const FOLDERS = new Set([
  path.resolve('/models/my-gpt2'),
  path.join(HOME, 'models', 'tiny'),
  path.resolve('/work/Xenova/gpt2'),
  path.resolve('/work/local-model'),
]);
const isDirectory = (p: string) => FOLDERS.has(path.resolve(p));
const noFolders = () => false;

function choiceOf(value: string, options: Parameters<typeof parseModelChoice>[2] = { home: HOME }): ModelChoice {
  const parsed = parseModelChoice(value, isDirectory, options);
  assert.ok('choice' in parsed, `${JSON.stringify(value)} was refused: ${'error' in parsed ? parsed.error : ''}`);
  return parsed.choice;
}

function errorOf(value: string, options: Parameters<typeof parseModelChoice>[2] = { home: HOME }): string {
  const parsed = parseModelChoice(value, isDirectory, options);
  assert.ok(
    'error' in parsed,
    `${JSON.stringify(value)} was taken as ${JSON.stringify('choice' in parsed ? parsed.choice : undefined)}`,
  );
  return parsed.error;
}

test('the default, blank and "built-in" (any case, any spacing) are the built-in model', () => {
  for (const value of ['', '   ', 'built-in', 'Built-In', '  built-in\n'])
    assert.deepEqual(choiceOf(value), { kind: 'built-in' });
});

test('a Hub id is owner/name, optionally @revision, and what is accepted is what the protocol takes', () => {
  assert.deepEqual(choiceOf('Xenova/distilgpt2'), { kind: 'hub', id: 'Xenova/distilgpt2' });
  assert.deepEqual(choiceOf('  Xenova/gpt2  '), { kind: 'hub', id: 'Xenova/gpt2' });
  assert.deepEqual(choiceOf('onnx-community/Qwen2.5-0.5B@v1.0'), {
    kind: 'hub',
    id: 'onnx-community/Qwen2.5-0.5B',
    revision: 'v1.0',
  });
  assert.deepEqual(choiceOf('Xenova/gpt2@8c3d8f1'), { kind: 'hub', id: 'Xenova/gpt2', revision: '8c3d8f1' });
  for (const value of ['Xenova/distilgpt2', 'a/b', 'o_w.n-er/na.me_1@rev-2']) {
    assert.ok(ModelChoice.safeParse(choiceOf(value)).success, value);
  }
});

test('a value that is neither gets an error that says what was wrong and what is accepted', () => {
  const justName = errorOf('gpt2');
  assert.match(justName, /"gpt2"/);
  assert.match(justName, /owner\/name/);
  assert.match(justName, /built-in/);
  assert.match(justName, /folder/);
  assert.match(errorOf('Xenova/gpt2@'), /revision/);
  assert.match(errorOf('Xenova/gpt 2'), /owner\/name/);
  assert.match(errorOf('-bad/name'), /owner\/name/);
  assert.match(
    errorOf('https://huggingface.co/Xenova/gpt2'),
    /a web address; give the model's id alone \(owner\/name, here Xenova\/gpt2\)/,
  );
  assert.match(errorOf('https://huggingface.co/Xenova/gpt2/tree/main'), /here Xenova\/gpt2\)/);
  assert.match(errorOf('Xenova/gpt2@rev/../../x'), /Draftsmith/);
});

test('an existing folder is a folder choice, given back absolute; ~ is the home folder', () => {
  assert.deepEqual(choiceOf('/models/my-gpt2'), { kind: 'folder', dir: path.resolve('/models/my-gpt2') });
  assert.deepEqual(choiceOf('/models/my-gpt2/'), { kind: 'folder', dir: path.resolve('/models/my-gpt2') });
  assert.deepEqual(choiceOf('~/models/tiny'), { kind: 'folder', dir: path.join(HOME, 'models', 'tiny') });
});

test('a path to no folder says there is no folder there, not that it is a bad Hub id', () => {
  const missing = errorOf('/models/nothing-here');
  assert.match(missing, /no folder at/);
  assert.ok(missing.includes(path.resolve('/models/nothing-here')));
  assert.match(
    errorOf('~/models/gone'),
    new RegExp(`no folder at ${path.join(HOME, 'models', 'gone').replace(/[\\\\/.]/g, '.')}`),
  );
});

test('relative folders: the CLI reads them from its working directory; the extension asks for a full path', () => {
  // The CLI: a folder relative to the working directory, which wins over the Hub id of the same spelling.
  assert.deepEqual(choiceOf('./local-model', { cwd: '/work', home: HOME }), {
    kind: 'folder',
    dir: path.resolve('/work/local-model'),
  });
  assert.deepEqual(choiceOf('local-model', { cwd: '/work', home: HOME }), {
    kind: 'folder',
    dir: path.resolve('/work/local-model'),
  });
  assert.deepEqual(choiceOf('Xenova/gpt2', { cwd: '/work', home: HOME }), {
    kind: 'folder',
    dir: path.resolve('/work/Xenova/gpt2'),
  });
  assert.deepEqual(choiceOf('Xenova/distilgpt2', { cwd: '/work', home: HOME }), {
    kind: 'hub',
    id: 'Xenova/distilgpt2',
  });
  assert.match(errorOf('./missing', { cwd: '/work', home: HOME }), /no folder at/);
  // The extension (no working directory): "owner/name" is a Hub id, "./x" a path it cannot place.
  assert.deepEqual(choiceOf('Xenova/gpt2'), { kind: 'hub', id: 'Xenova/gpt2' });
  assert.match(errorOf('./local-model'), /relative path; give the folder's full path/);
});

test('the input box rule: hubIdProblem accepts exactly the Hub ids parseModelChoice takes', () => {
  for (const ok of ['Xenova/distilgpt2', 'Xenova/gpt2@main', 'a1/b2']) assert.equal(hubIdProblem(ok), undefined, ok);
  assert.match(hubIdProblem('') ?? '', /model id such as/);
  assert.match(hubIdProblem('distilgpt2') ?? '', /not just a name/);
  assert.match(hubIdProblem('a/b/c') ?? '', /one "\/"/);
  assert.match(hubIdProblem('a/b@') ?? '', /revision/);
  for (const value of ['Xenova/distilgpt2', 'gpt2', 'a/b/c', 'a/b@', 'x/y@z', '.a/b', 'a/-b']) {
    const taken = 'choice' in parseModelChoice(value, noFolders);
    assert.equal(hubIdProblem(value) === undefined, taken, value);
  }
});

test('describe and format: messages name the model; the setting round-trips', () => {
  assert.equal(describeModelChoice({ kind: 'built-in' }), 'the built-in model');
  assert.equal(describeModelChoice({ kind: 'hub', id: 'Xenova/gpt2' }), 'Xenova/gpt2 (Hugging Face Hub)');
  assert.equal(
    describeModelChoice({ kind: 'hub', id: 'Xenova/gpt2', revision: 'v2' }),
    'Xenova/gpt2@v2 (Hugging Face Hub)',
  );
  assert.equal(describeModelChoice({ kind: 'folder', dir: '/models/my-gpt2' }), 'the folder /models/my-gpt2');
  for (const choice of [
    { kind: 'built-in' },
    { kind: 'hub', id: 'Xenova/gpt2' },
    { kind: 'hub', id: 'Xenova/gpt2', revision: 'v2' },
    { kind: 'folder', dir: path.resolve('/models/my-gpt2') },
  ] as ModelChoice[]) {
    assert.deepEqual(choiceOf(formatModelChoice(choice)), choice);
  }
});

test('sameModelChoice: the current choice is recognised in the list (Hub ids ignore case; main is the default revision)', () => {
  assert.ok(sameModelChoice({ kind: 'hub', id: 'xenova/GPT2' }, { kind: 'hub', id: 'Xenova/gpt2', revision: 'main' }));
  assert.ok(!sameModelChoice({ kind: 'hub', id: 'Xenova/gpt2' }, { kind: 'hub', id: 'Xenova/gpt2', revision: 'v2' }));
  assert.ok(!sameModelChoice({ kind: 'hub', id: 'Xenova/gpt2' }, { kind: 'built-in' }));
  assert.ok(sameModelChoice({ kind: 'folder', dir: '/m/a/' }, { kind: 'folder', dir: '/m/a' }));
});

test("folderLayout tells a Draftsmith folder from transformers.js's layout, and neither", () => {
  const files = (names: string[]) => (p: string) => names.some((n) => path.join('/m', n) === p);
  assert.equal(folderLayout('/m', files(['model.json'])), 'draftsmith');
  assert.equal(folderLayout('/m', files(['config.json', 'onnx'])), 'transformers.js');
  assert.equal(folderLayout('/m', files(['config.json'])), undefined);
  assert.equal(folderLayout('/m', files([])), undefined);
});

test('the Hub address: http(s) only, always ending in "/", blank is huggingface.co', () => {
  assert.equal(parseHubEndpoint(undefined, 'x'), 'https://huggingface.co/');
  assert.equal(parseHubEndpoint('  ', 'x'), 'https://huggingface.co/');
  assert.equal(parseHubEndpoint('https://hf-mirror.com', 'x'), 'https://hf-mirror.com/');
  assert.equal(parseHubEndpoint('http://127.0.0.1:8080/hub', 'x'), 'http://127.0.0.1:8080/hub/');
  for (const bad of ['ftp://mirror', 'huggingface.co', 'not a url', 42]) {
    const r = parseHubEndpoint(bad, 'draftsmith.hub.endpoint');
    assert.ok(typeof r === 'object', String(bad));
    assert.match(r.error, /^draftsmith\.hub\.endpoint is .* not a web address/);
  }
});

test('a GGUF file is a model: any existing file by its path (Ollama keeps its files without a .gguf name), and a missing .gguf is named', () => {
  const files = new Set(['/models/qwen.gguf', path.join(HOME, '.ollama', 'models', 'blobs', 'sha256-ab12')]);
  const isFile = (p: string) => files.has(p);
  const choice = parseModelChoice('/models/qwen.gguf', () => false, { isFile });
  assert.deepEqual(choice, { choice: { kind: 'gguf', file: '/models/qwen.gguf' } });
  assert.deepEqual(
    parseModelChoice('~/.ollama/models/blobs/sha256-ab12', () => false, { isFile, home: HOME }),
    {
      choice: { kind: 'gguf', file: path.join(HOME, '.ollama', 'models', 'blobs', 'sha256-ab12') },
    },
  );
  // The CLI: relative to the working directory.
  assert.deepEqual(
    parseModelChoice('qwen.gguf', () => false, { isFile, cwd: '/models' }),
    choice,
  );
  const missing = parseModelChoice('/models/gone.gguf', () => false, { isFile });
  assert.ok('error' in missing && missing.error.startsWith('There is no GGUF file at /models/gone.gguf'));
  const relative = parseModelChoice('qwen.gguf', () => false, { isFile });
  assert.ok('error' in relative && /relative path; give the file's full path/.test(relative.error));
  // The setting holds the path, and reads back as the same model.
  const gguf: ModelChoice = { kind: 'gguf', file: '/models/qwen.gguf' };
  assert.equal(formatModelChoice(gguf), '/models/qwen.gguf');
  assert.deepEqual(
    parseModelChoice(formatModelChoice(gguf), () => false, { isFile }),
    { choice: gguf },
  );
  assert.equal(describeModelChoice(gguf), 'the GGUF model /models/qwen.gguf');
  assert.ok(sameModelChoice(gguf, { kind: 'gguf', file: '/models/../models/qwen.gguf' }));
});
