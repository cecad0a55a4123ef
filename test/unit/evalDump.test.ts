// `draftsmith eval SYSTEM --dump FILE`: one JSON line per test item and variant with what
// the model read, what it wrote and the human reference, for the fluency scorer
// (models/train/fluency.sh). Checked against the systems themselves: the dumped output is the text
// the model writes for that item, not just some string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { openDump, type DumpRecord } from '../../extension/engine/eval/dump';
import { ENTRIES, type ModelSystemId } from '../../extension/engine/systems/registry';
import { silentRun } from '../../extension/engine/systems/context';
import { RoundTripSystem } from '../../extension/engine/systems/roundtrip';
import { StorySystem } from '../../extension/engine/systems/story';
import { modelsDir, repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('eval-dump');
const runtime = { device: 'cpu' as const, threads: 1, log: () => {} };

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 180_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function readDump(file: string): DumpRecord[] {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'), 'every line ends with a newline');
  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as DumpRecord);
}

test('openDump empties the file, makes its folder, and writes one JSON line per record', () => {
  assert.equal(openDump(undefined), undefined);
  const file = path.join(dir, 'nested', 'deeper', 'd.jsonl');
  const first = openDump(file)!;
  first({ system: 'essay', variant: 'a', id: '0', source: 'x', output: 'old', references: ['r'] });
  const dump = openDump(file)!;
  const rec: DumpRecord = {
    system: 'reply',
    variant: 'b',
    id: 'cornell:1',
    domain: 'cornell',
    source: 'Hi "there"\nyou?',
    output: 'Fine.',
    references: ['Good.'],
  };
  dump(rec);
  dump({ ...rec, id: 'cornell:2' });
  assert.deepEqual(readDump(file), [rec, { ...rec, id: 'cornell:2' }]);
});

/**
 * One held-out item of each system with a model, as its eval reads it from --data (a new system
 * without one is a type error), and the flags that keep its run short.
 */
const ONE_ITEM: { [K in ModelSystemId]: { row: Record<string, unknown>; flags?: string[] } } = {
  summarize: {
    row: {
      domain: 'news',
      id: 'n1',
      source: 'The council voted to build a bridge. Work starts in spring. Residents welcomed it.',
      target: 'The council will build a bridge.',
    },
    flags: ['--mode', 'extractive'],
  },
  essay: { row: { domain: 'news', topics: ['river', 'rain', 'farmers'], text: 'The river rose after the rain.' } },
  story: {
    row: { domain: 'roc', doc: 'r1', prompt: 'Anna wanted to bake.', story: 'She baked bread.', opening: true },
    flags: ['--max-words', '6'],
  },
  roundtrip: { row: { source: 'news', doc: 'n0', sentences: ['The river rose.', 'Farmers moved their cattle.'] } },
  reply: {
    row: { source: 'cornell', dialogue: '1', post: 'Do you like tennis?', reply: 'I love it.' },
    flags: ['--examples', '0'],
  },
};

test("every system with a model has an eval whose --dump writes its items under the registry's name", () => {
  const data = mkdtempSync(path.join(dir, 'every-'));
  const systems = ENTRIES.filter(([, e]) => e.folder).map(([id]) => id as ModelSystemId);
  for (const id of systems) {
    writeFileSync(path.join(data, `${id}.test.jsonl`), JSON.stringify(ONE_ITEM[id].row) + '\n');
    const file = path.join(dir, 'every', `${id}.jsonl`);
    const flags = ONE_ITEM[id].flags ?? [];
    const r = cli(['eval', id, '--data', data, '--limit', '1', '--threads', '1', ...flags, '--dump', file]);
    assert.equal(r.code, 0, `eval ${id}: ${r.stderr}`);
    const lines = readDump(file);
    assert.ok(lines.length >= 1, `eval ${id} --dump wrote no line`);
    for (const l of lines) {
      assert.equal(l.system, id, `eval ${id} dumps its lines as "${l.system}"`);
      assert.ok(l.source.length > 0 && l.references.length > 0, `eval ${id}: a line without its source or reference`);
    }
  }
});

const PARAGRAPHS = [
  {
    source: 'news',
    doc: 'n0',
    sentences: ['The river rose after three days of rain.', 'Farmers moved their cattle to the hills.'],
  },
  { source: 'story', doc: 's0', sentences: ['A fox ran into the woods.', 'The hen hid in the barn.'] },
  { source: 'news', doc: 'n1', sentences: ['The mayor opened the school.', 'Families slept in the hall.'] },
];

test('eval roundtrip --dump: one line per paragraph and variant, the reconstruction the model writes, the input as reference', async () => {
  const data = mkdtempSync(path.join(dir, 'rt-'));
  writeFileSync(path.join(data, 'roundtrip.test.jsonl'), PARAGRAPHS.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const file = path.join(dir, 'rt', 'roundtrip.jsonl');
  const model = path.join(modelsDir, 'roundtrip');
  const r = cli([
    'eval',
    'roundtrip',
    '--data',
    data,
    '--limit',
    '3',
    '--threads',
    '1',
    '--variant',
    `shipped=${model}`,
    '--variant',
    `again=${model}`,
    '--dump',
    file,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const lines = readDump(file);
  assert.equal(lines.length, 6, 'three paragraphs × two variants');
  assert.deepEqual(
    lines.map((l) => l.variant),
    ['shipped', 'shipped', 'shipped', 'again', 'again', 'again'],
  );
  const system = await RoundTripSystem.load(model, runtime);
  // takeTurns: news, story, news.
  const order = [PARAGRAPHS[0], PARAGRAPHS[1], PARAGRAPHS[2]];
  for (const [k, l] of lines.entries()) {
    const p = order[k % 3];
    const input = p.sentences.join(' ');
    assert.equal(l.system, 'roundtrip');
    assert.equal(l.domain, p.source);
    assert.equal(l.id, `${p.doc}#${k % 3}`);
    assert.equal(l.source, input);
    assert.deepEqual(l.references, [input]);
    // Guards on by default, as Round-Trip Paragraph decodes in the editor (run()).
    const guarded = (await system.run({ op: 'roundtrip', text: input }, silentRun)).output.map((s) => s.text).join(' ');
    assert.equal(l.output, guarded, `line ${k} is that paragraph's reconstruction, with the decoding guards`);
  }
  // --no-guards: the paper's plain greedy decoding (decodeIds without guards, held to PyTorch by the parity tests).
  const plainFile = path.join(dir, 'rt', 'roundtrip.plain.jsonl');
  const off = cli([
    'eval',
    'roundtrip',
    '--data',
    data,
    '--limit',
    '3',
    '--threads',
    '1',
    '--variant',
    `shipped=${model}`,
    '--dump',
    plainFile,
    '--no-guards',
  ]);
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stdout, /\| shipped \([^|]*, no guards\) \| all \(3\) \|/);
  assert.match(off.stdout, /greedy decoding without the decoding guards/);
  assert.match(r.stdout, /greedy decoding with the decoding guards/);
  for (const [k, l] of readDump(plainFile).entries()) {
    const p = order[k];
    const d = await system.decodeIds(p.sentences.map((s) => system.encodeSentence(s)));
    assert.equal(
      l.output,
      system
        .outputSentences(d)
        .map((s) => s.text)
        .join(' '),
      `--no-guards line ${k} is the plain reconstruction`,
    );
  }
});

test('eval story: seeded continuations of the test prompts, words written vs asked, and --dump with the human story', async () => {
  const data = mkdtempSync(path.join(dir, 'story-'));
  const rows = [
    {
      domain: 'roc',
      doc: 'roc-1',
      prompt: 'Anna wanted to learn to bake bread.',
      story: 'She bought flour. She baked a loaf. It was good. Her family loved it.',
      opening: true,
    },
    {
      domain: 'fairy',
      doc: 'fairy-2',
      prompt: 'Once upon a time a king had three sons.',
      story: 'The youngest was the kindest of them all, and he went out to find his fortune.',
      opening: true,
    },
  ];
  writeFileSync(path.join(data, 'story.test.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const file = path.join(dir, 'story.jsonl');
  const evalStory = () =>
    cli(['eval', 'story', '--data', data, '--max-words', '12', '--seed', '7', '--threads', '1', '--dump', file]);
  const r = evalStory();
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^\| model \| stories \| words asked \| words written \(mean\) \| within 20 % \| ended by end \/ words \/ length limit \| tokens\/s \| entity continuity \|$/m,
  );
  assert.match(
    r.stdout,
    /^\| fusion \([^)]+\) \| 2 \| 12 \| \d+\.\d \| \d+\.\d % \| \d+ \/ \d+ \/ \d+ \| \d+\.\d \| (?:\d+\.\d %|–) \|$/m,
  );
  // The human stories: "She bought flour." → "She baked a loaf." share "she", the loaf → "It was good."
  // shares nothing, "It was good." → "Her family loved it." share "it"; the fairy tale is one sentence.
  assert.match(r.stdout, /the human stories of the same prompts: 66\.7 %/);
  const lines = readDump(file);
  assert.equal(lines.length, 2);
  const system = await StorySystem.load(path.join(modelsDir, 'story'), runtime);
  for (const [i, l] of lines.entries()) {
    assert.deepEqual(
      { system: l.system, variant: l.variant, id: l.id, domain: l.domain, source: l.source, references: l.references },
      {
        system: 'story',
        variant: 'fusion',
        id: `${rows[i].doc}#${i}`,
        domain: rows[i].domain,
        source: rows[i].prompt,
        references: [rows[i].story],
      },
    );
    const again = await system.run(
      { op: 'story', prompt: rows[i].prompt, words: 12, sampling: { seed: 7 + i } },
      silentRun,
    );
    assert.ok(again.continuation.length > 0);
    assert.equal(l.output, again.continuation, 'the same seed writes the same story');
  }
  const rerun = evalStory();
  assert.equal(rerun.code, 0, rerun.stderr);
  assert.deepEqual(readDump(file), lines, 'a second run writes the same file, not appended to the first');
});

test('eval essay and eval reply: the decoding guards on by default as in the editor, --no-guards the plain beam search', async () => {
  const { EssaySystem } = await import('../../extension/engine/systems/essay');
  const { ReplySystem } = await import('../../extension/engine/systems/reply');
  const data = mkdtempSync(path.join(dir, 'guards-'));
  const essays = [
    {
      domain: 'news',
      topics: ['library', 'students', 'exam', 'night', 'coffee'],
      text: 'Students stayed in the library all night before the exam, drinking coffee.',
    },
    {
      domain: 'news',
      topics: ['river', 'rain', 'farmers', 'cattle', 'hills'],
      text: 'The river rose after the rain, and farmers moved their cattle to the hills.',
    },
  ];
  writeFileSync(path.join(data, 'essay.test.jsonl'), essays.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const posts = [
    { source: 'cornell', dialogue: '1', post: 'Do you like playing tennis in the summer?', reply: 'I love it.' },
    {
      source: 'dailydialog',
      dialogue: '2',
      post: 'What did you cook for dinner last night?',
      reply: 'Pasta with tomatoes.',
    },
  ];
  writeFileSync(path.join(data, 'reply.test.jsonl'), posts.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const essayModel = path.join(modelsDir, 'essay');
  const replyModel = path.join(modelsDir, 'reply');
  const essay = await EssaySystem.load(essayModel, runtime);
  const reply = await ReplySystem.load(replyModel, runtime);
  for (const guards of [true, false]) {
    const off = guards ? [] : ['--no-guards'];
    const eFile = path.join(dir, `essay.${guards}.jsonl`);
    const e = cli([
      'eval',
      'essay',
      '--data',
      data,
      '--limit',
      '2',
      '--threads',
      '1',
      '--variant',
      `shipped=${essayModel}`,
      '--dump',
      eFile,
      ...off,
    ]);
    assert.equal(e.code, 0, e.stderr);
    assert.equal(/\| shipped \([^)]*, no guards\) \|/.test(e.stdout), !guards, e.stdout);
    for (const [i, l] of readDump(eFile).entries()) {
      const again = await essay.run(
        {
          op: 'essay',
          topics: essays[i].topics.join(', '),
          includeAllTopics: true,
          ...(guards ? {} : { guards: false }),
        },
        silentRun,
      );
      assert.equal(l.output, again.candidates[0].text, `essay ${i}, guards ${guards}`);
    }
    const rFile = path.join(dir, `reply.${guards}.jsonl`);
    const r = cli([
      'eval',
      'reply',
      '--data',
      data,
      '--limit',
      '2',
      '--threads',
      '1',
      '--examples',
      '0',
      '--variant',
      `shipped=${replyModel}`,
      '--dump',
      rFile,
      ...off,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(/\| shipped \([^)]*, no guards\) \|/.test(r.stdout), !guards, r.stdout);
    const dumped = readDump(rFile);
    assert.equal(dumped.length, 2);
    for (const [i, l] of dumped.entries()) {
      const again = await reply.run(
        { op: 'reply', text: posts[i].post, maxCandidates: 5, ...(guards ? {} : { guards: false }) },
        silentRun,
      );
      if (again.candidates.length > 0) assert.equal(l.output, again.candidates[0].text, `reply ${i}, guards ${guards}`);
    }
  }
});
