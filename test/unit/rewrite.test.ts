/**
 * Rewrite Selection's engine with the real families' fixtures (tiny random weights, the real chat
 * templates and special tokens, served by the loopback Hub): a tiny random model writes noise, so
 * these tests check what Draftsmith controls: the prompt each preset builds through each chat
 * template, both of Qwen2.5's end tokens, the streamed text, Cancel, the refusals; and, on texts
 * written here, the clean-up of a reply, the word-level changes accepted or rejected one by one,
 * and the flags on a changed number or lost Markdown.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { Engine } from '../../extension/engine/engine';
import { EngineError } from '../../extension/engine/errors';
import { openCausalLm, type CausalLm } from '../../extension/engine/hub/hubSystems';
import { REWRITE_PRESETS, REWRITE_SYSTEM_PROMPT } from '../../extension/engine/hub/rewritePresets';
import { HubRewriteSystem, NEEDS_INSTRUCT_MODEL, rewritePromptText } from '../../extension/engine/systems/hubRewrite';
import { cleanRewrite, rewriteFlags } from '../../extension/engine/systems/rewriteText';
import { rewriteBlockAt, rewriteBlocks } from '../../extension/engine/text/rewriteBlocks';
import { applyWordChanges, unifiedDiff, wordChanges } from '../../extension/engine/text/wordDiff';
import { assertAcceptingWritesWhatWasAccepted } from './wordMergeReference';
import { RewriteResult, type HubConfig, type RewriteRequest } from '../../extension/protocol';
import { config, tempCache, withHub } from './hubTestKit';

const SMOL = 'fixtures/SmolLM2-135M-Instruct';
const QWEN = 'fixtures/Qwen2.5-0.5B-Instruct';
const PLAIN_LM = 'fixtures/distilgpt2';

const PARAGRAPH =
  'The committee have met on 3 May in Leeds, and the report was written by [Ana Ruiz](https://example.org/ana) ' +
  'with `make report`, which was *quite* slow.';

const runtime = { device: 'cpu' as const, threads: 1, log: () => {} };
const watch = { progress: () => {}, isCancelled: () => false };

async function hubFor(t: import('node:test').TestContext): Promise<HubConfig> {
  const hub = await withHub(t);
  return config({ endpoint: hub.endpoint, cacheDir: tempCache(t) }).hub!;
}

const chatml = (system: string, user: string) =>
  `<|im_start|>system\n${system}<|im_end|>\n<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;

for (const id of [SMOL, QWEN]) {
  test(`${id}: every preset reaches the model as the rewrite's system turn, then its instruction and the text as the user's turn, through the chat template`, async (t) => {
    const hub = await hubFor(t);
    const lm = await openCausalLm({ kind: 'hub', id }, 'the test', hub, runtime, watch);
    try {
      for (const p of REWRITE_PRESETS) {
        assert.equal(
          rewritePromptText(lm.opened.tokenizer, p.instruction, PARAGRAPH),
          chatml(REWRITE_SYSTEM_PROMPT, `${p.instruction}\n\nText:\n${PARAGRAPH}`),
          p.id,
        );
      }
    } finally {
      await lm.opened.model.dispose();
    }
    // The engine sends exactly that prompt: its length in tokens is the one the result reports.
    const engine = new Engine(config(hub), () => {});
    const r = await engine.run({
      op: 'rewrite',
      text: PARAGRAPH,
      preset: 'shorter',
      maxTokens: 4,
      model: { kind: 'hub', id },
    });
    const lm2 = await openCausalLm({ kind: 'hub', id }, 'the test', hub, runtime, watch);
    try {
      const expected = lm2.opened.tokenizer.encode(
        rewritePromptText(lm2.opened.tokenizer, REWRITE_PRESETS[1].instruction, PARAGRAPH),
        { add_special_tokens: false },
      );
      assert.equal(r.stats.inputTokens, expected.length);
      assert.equal(r.instruction, REWRITE_PRESETS[1].instruction);
      assert.ok(RewriteResult.safeParse(r).success, 'the result is what the protocol says');
    } finally {
      await lm2.opened.model.dispose();
    }
  });
}

/** Makes the model's raw scores put `token` first at the `at`-th decoding step (before the step model folds the end tokens). */
function forceTokenAt(lm: CausalLm, token: number, at: number): void {
  const step = lm.step as unknown as {
    forward(
      ids: readonly (readonly number[])[],
      state: unknown,
    ): Promise<{ lastLogits(row: number): { data: Float32Array; vocab: number } }>;
  };
  const forward = step.forward.bind(step);
  let steps = 0;
  step.forward = async (ids, state) => {
    const out = await forward(ids, state);
    if (ids[0].length !== 1 || ++steps !== at) return out;
    const last = out.lastLogits.bind(out);
    return Object.assign(out, {
      lastLogits: (row: number) => {
        const l = last(row);
        const data = Float32Array.from(l.data);
        data[token] = 1e4;
        return { data, vocab: l.vocab };
      },
    });
  };
}

test("Qwen2.5's rewrite ends at <|endoftext|> as at <|im_end|>: every end token ends it, none is written", async (t) => {
  const hub = await hubFor(t);
  for (const marker of ['<|endoftext|>', '<|im_end|>']) {
    const lm = await openCausalLm({ kind: 'hub', id: QWEN }, 'the test', hub, runtime, watch);
    const system = await HubRewriteSystem.on(lm);
    try {
      const [end] = lm.opened.tokenizer.encode(marker, { add_special_tokens: false });
      forceTokenAt(lm, end, 3);
      const r = await system.run(
        { op: 'rewrite', text: PARAGRAPH, preset: 'grammar', maxTokens: 40 },
        {
          progress: () => {},
          partial: () => {},
          checkCancelled: () => {},
        },
      );
      // Three tokens were read in (the prompt's last, then two written); the third step chose the end.
      assert.equal(r.stats.outputTokens, 2, `${marker}: ${JSON.stringify(r.raw)}`);
      assert.equal(r.hitMaxLength, null, marker);
      assert.ok(!r.raw.includes(marker), marker);
    } finally {
      await system.dispose();
    }
  }
});

test('the rewrite streams: each partial text is the cleaned rewrite so far, and the last is the result', async (t) => {
  const engine = new Engine(config(await hubFor(t)), () => {});
  const partials: string[] = [];
  const r = await engine.run(
    { op: 'rewrite', text: PARAGRAPH, instruction: 'Make it formal.', maxTokens: 12, model: { kind: 'hub', id: SMOL } },
    { partial: (p) => partials.push(p) },
  );
  assert.ok(partials.length >= 2, `${partials.length} partial texts`);
  // The last is the reply cleaned; the result is that, with the code and the link kept as the text has them.
  assert.equal(partials.at(-1), cleanRewrite(r.raw, PARAGRAPH).text);
  const offered = r.changes.map(() => true);
  assert.equal(
    r.rewrite,
    r.protectedChanges.length ? applyWordChanges(PARAGRAPH, r.changes, offered) : partials.at(-1),
  );
  assert.equal(r.instruction, 'Make it formal.');
  assert.ok(r.firstTokenMs > 0 && r.firstTokenMs <= r.stats.encodeMs + r.stats.decodeMs + 1000);
});

test('Cancel stops a rewrite between two tokens: no result, no more text', async (t) => {
  const engine = new Engine(config(await hubFor(t)), () => {});
  const partials: string[] = [];
  await assert.rejects(
    engine.run(
      { op: 'rewrite', text: PARAGRAPH, preset: 'casual', maxTokens: 200, model: { kind: 'hub', id: SMOL } },
      { partial: (p) => partials.push(p), isCancelled: () => partials.length >= 3 },
    ),
    (e: unknown) => e instanceof EngineError && e.code === 'cancelled',
  );
  assert.equal(partials.length, 3);
});

test('a rewrite is refused with what to do: no instruct model, a plain language model, both a preset and an instruction, or neither', async (t) => {
  const hub = await hubFor(t);
  const engine = new Engine(config(hub), () => {});
  const refused = async (req: RewriteRequest, code: string, message: RegExp) =>
    assert.rejects(
      engine.run(req),
      (e: unknown) => e instanceof EngineError && e.code === code && message.test(e.message),
    );
  await refused({ op: 'rewrite', text: PARAGRAPH, preset: 'shorter' }, 'bad-request', /Choose Model/);
  await refused(
    { op: 'rewrite', text: PARAGRAPH, preset: 'shorter', model: { kind: 'hub', id: PLAIN_LM } },
    'bad-model',
    /no chat template.*instruct model/s,
  );
  const smol = { kind: 'hub' as const, id: SMOL };
  await refused(
    { op: 'rewrite', text: PARAGRAPH, preset: 'shorter', instruction: 'Shorter.', model: smol },
    'bad-request',
    /not both/,
  );
  await refused(
    { op: 'rewrite', text: PARAGRAPH, instruction: '  ', model: smol },
    'bad-input',
    /a preset or an instruction/,
  );
  await refused({ op: 'rewrite', text: '  \n ', preset: 'shorter', model: smol }, 'bad-input', /no text to rewrite/);
  assert.match(NEEDS_INSTRUCT_MODEL, /draftsmith\.rewrite\.model/);
});

test('the reply is cleaned to the rewritten text alone: preambles, closing remarks, wrapping quotes and code fences go', () => {
  const src = 'The cat sat on the mat.';
  const cases: [string, string][] = [
    ['Here is the revised text:\n\nThe cat sat.', 'The cat sat.'],
    ['Sure! Here is the revised text: The cat sat.', 'The cat sat.'],
    ["Sure, here's a shorter version:\nThe cat sat.", 'The cat sat.'],
    ['Certainly!\n\nRevised text:\nThe cat sat.', 'The cat sat.'],
    ['The cat sat.\n\nI made the sentence shorter by removing the place.', 'The cat sat.'],
    ['The cat sat.\n\nLet me know if you want other changes!', 'The cat sat.'],
    ['"The cat sat."', 'The cat sat.'],
    ['“The cat sat.”', 'The cat sat.'],
    ['```markdown\nThe cat sat.\n```', 'The cat sat.'],
    ['Here is the rewritten text:\n\n"The cat sat."\n\nNote: I kept the meaning.', 'The cat sat.'],
    ['The cat sat.', 'The cat sat.'],
  ];
  for (const [raw, want] of cases) assert.equal(cleanRewrite(raw, src).text, want, JSON.stringify(raw));
  assert.deepEqual(cleanRewrite('Sure! Here is the revised text: The cat sat.', src).stripped, [
    'Sure! Here is the revised text:',
  ]);
  // What the text itself has stays.
  const own = 'Here is the plan: we leave at dawn.';
  assert.equal(cleanRewrite('Here is the plan: we go at dawn.', own).text, 'Here is the plan: we go at dawn.');
  const quoted = '"Go," she said.';
  assert.equal(cleanRewrite('"Leave," she said.', quoted).text, '"Leave," she said.');
});

test('a rewrite becomes word-level changes; accepting some and rejecting others gives one exact text, the same every time', () => {
  const original = 'The committee have met on Tuesday and they decided to\nbuild a new bridge over the river.';
  const rewrite = 'The committee met on Tuesday and decided to build a bridge over the river.';
  const changes = wordChanges(original, rewrite);
  assert.deepEqual(
    changes.map((c) => [c.before, c.after]),
    [
      ['have ', ''],
      ['they ', ''],
      ['new ', ''],
    ],
  );
  for (const c of changes) assert.equal(original.slice(c.start, c.end), c.before);
  // All accepted: the rewrite, with the document's own line break kept.
  assert.equal(applyWordChanges(original, changes, [true, true, true]), rewrite.replace('to build', 'to\nbuild'));
  assert.equal(applyWordChanges(original, changes, [false, false, false]), original);
  const some = 'The committee met on Tuesday and they decided to\nbuild a bridge over the river.';
  assert.equal(applyWordChanges(original, changes, [true, false, true]), some);
  assert.equal(applyWordChanges(original, changes, [true, false, true]), some);
  // A phrase replaced is one change, not scattered words.
  assert.deepEqual(
    wordChanges('the big dog barked', 'a small dog barked').map((c) => [c.before, c.after]),
    [['the big', 'a small']],
  );
  // Changes that do not fit the text are refused, not applied somewhere else.
  assert.throws(() => applyWordChanges('Another text entirely.', changes, [true, true, true]), /does not fit/);
});

test('accepting a moved word keeps it a word of its own: "new bridge" → "bridge old" never writes "bridgeold"', () => {
  // A word inserted after a space is inserted after that space, whichever alignment the diff found.
  for (const [from, to] of [
    ['We built a new bridge over the river.', 'We built a bridge old over the river.'],
    ['a b c', 'a c b c'],
    ['one two three', 'two one two three'],
    ['the cat sat', 'the sat cat sat'],
  ])
    assertAcceptingWritesWhatWasAccepted(from, to, wordChanges(from, to), applyWordChanges);
});

test('a unified diff of a rewrite names both sides and marks the changed lines', () => {
  const d = unifiedDiff('one\ntwo\nthree\n', 'one\n2\nthree\n', { from: 'a.md', to: 'a.md (rewritten)' });
  assert.equal(d, '--- a.md\n+++ a.md (rewritten)\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n');
  assert.equal(unifiedDiff('same\n', 'same\n', { from: 'a', to: 'b' }), '');
});

test('a rewrite that changes a number or a name, or loses Markdown, is flagged; one that keeps them is not', () => {
  const kept = rewriteFlags(
    PARAGRAPH,
    'The committee met on 3 May in Leeds; [Ana Ruiz](https://example.org/ana) wrote the report with `make report`, which was *quite* slow.',
    REWRITE_PRESETS[0].instruction,
  );
  assert.deepEqual(kept, { added: [], dropped: [], markup: [] });
  const changed = rewriteFlags(
    PARAGRAPH,
    PARAGRAPH.replace('3 May', '4 May').replace('Leeds', 'York'),
    'Make it formal.',
  );
  assert.deepEqual(changed.added.sort(), ['4', 'York']);
  assert.deepEqual(changed.dropped.sort(), ['3', 'Leeds']);
  // A change the instruction asks for is not flagged.
  assert.deepEqual(rewriteFlags('We met on 3 May.', 'We met on 4 May.', 'The date is 4 May, not 3 May.'), {
    added: [],
    dropped: [],
    markup: [],
  });
  const lost = rewriteFlags(
    PARAGRAPH,
    'The committee met on 3 May in Leeds, and Ana Ruiz wrote the report with make report, which was quite slow.',
    '',
  );
  assert.deepEqual(lost.markup, [
    'the link to https://example.org/ana',
    'the inline code `make report`',
    'the emphasis on "quite"',
  ]);
  assert.deepEqual(rewriteFlags('- milk and eggs', 'milk and eggs', '').markup, ['a list marker']);
});

test('in Markdown, the block sent is the paragraph or list item with its inline markup whole, never its marker, code, front matter or a table', () => {
  const doc = [
    '---',
    'title: x',
    '---',
    '',
    '**Note:** the report is [here](https://x.org).',
    'It was *slow*.',
    '',
    '- first item with `code`',
    '',
    '```js',
    'let a = 1;',
    '```',
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '',
  ].join('\n');
  const at = (word: string) => rewriteBlockAt(doc, doc.indexOf(word), doc.indexOf(word));
  const para = at('report');
  assert.equal(para.kind === 'prose' && para.text, '**Note:** the report is [here](https://x.org).\nIt was *slow*.');
  const item = at('first');
  assert.equal(item.kind === 'prose' && item.text, 'first item with `code`');
  assert.deepEqual(at('let a'), { kind: 'none', what: 'a code block' });
  assert.deepEqual(at('title'), { kind: 'none', what: 'the front matter' });
  assert.deepEqual(at('| 1'), { kind: 'none', what: 'a table' });
  // The same blocks, in order, for a whole file (the CLI).
  assert.deepEqual(
    rewriteBlocks(doc).map((b) => b.text),
    ['**Note:** the report is [here](https://x.org).\nIt was *slow*.', 'first item with `code`'],
  );
});
