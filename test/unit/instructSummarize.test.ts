/**
 * Summarize Document (abstractive) on an instruct model the writer chose, with the real families'
 * fixtures (tiny random weights, the real chat templates and vocabularies: SmolLM2 and Qwen2.5 from
 * the loopback Hub, SmolLM2's vocabulary in the GGUF fixture). A random model writes noise, so these
 * tests check what Draftsmith controls: the prompt through the chat template, the guard that keeps
 * names and numbers the text lacks out of the summary, the streamed text, Cancel, a long text read
 * section by section, and what the result says (which model wrote it, what it invented, no
 * experimental label).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import test from 'node:test';
import { Engine } from '../../extension/engine/engine';
import { EngineError } from '../../extension/engine/errors';
import type { LmTokenizer } from '../../extension/engine/hub/causalLm';
import { SYSTEM_PROMPTS } from '../../extension/engine/hub/chatPrompt';
import { guardPieces } from '../../extension/engine/hub/guardPieces';
import { openCausalLm, type CausalLm } from '../../extension/engine/hub/hubSystems';
import { unsupportedItems } from '../../extension/engine/metrics/faithfulness';
import {
  InstructSummarizeSystem,
  summaryLength,
  summaryPromptText,
} from '../../extension/engine/systems/instructSummarize';
import { describeInvented, inventedItems } from '../../extension/engine/systems/rewriteText';
import { SummarizeResult, type HubConfig, type ModelChoice, type SummarizeRequest } from '../../extension/protocol';
import { article, fixture, repoRoot, tempDir } from './helpers';
import { config, tempCache, withHub } from './hubTestKit';
import { HUB_FIXTURES } from './loopbackHub';

const SMOL = 'fixtures/SmolLM2-135M-Instruct';
const QWEN = 'fixtures/Qwen2.5-0.5B-Instruct';
const PLAIN_LM = 'fixtures/distilgpt2';
const GGUF = fixture('gguf/smollm2-tiny.gguf');

const runtime = { device: 'cpu' as const, threads: 1, log: () => {} };
const watch = { progress: () => {}, isCancelled: () => false };
const quiet = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

async function hubFor(t: import('node:test').TestContext): Promise<HubConfig> {
  const hub = await withHub(t);
  return config({ endpoint: hub.endpoint, cacheDir: tempCache(t) }).hub!;
}

const chatml = (system: string, user: string) =>
  `<|im_start|>system\n${system}<|im_end|>\n<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`;

const summarize = (model: ModelChoice, more: Partial<SummarizeRequest> = {}): SummarizeRequest => ({
  op: 'summarize',
  text: article,
  mode: 'abstractive',
  decoding: { maxLength: 24 },
  model,
  ...more,
});

for (const id of [SMOL, QWEN]) {
  test(`${id}: the text reaches the model as the summary's system turn, then the length asked and the text as the user's turn, through the chat template`, async (t) => {
    const hub = await hubFor(t);
    const lm = await openCausalLm({ kind: 'hub', id }, 'the test', hub, runtime, watch);
    const length = summaryLength(article);
    let expected: number;
    try {
      const text = summaryPromptText(lm.opened.tokenizer, article, length);
      assert.equal(
        text,
        chatml(
          SYSTEM_PROMPTS.summary,
          `Summarize the text in at most 3 sentences, about ${length.words} words.\n\nText:\n${article}`,
        ),
      );
      expected = lm.opened.tokenizer.encode(text, { add_special_tokens: false }).length;
    } finally {
      await lm.opened.model.dispose();
    }
    // The article's first three sentences (27, 17 and 26 words): the Lead-3 baseline's length, asked of the model.
    assert.equal(length.words, 70);
    const engine = new Engine(config(hub), () => {});
    const r = await engine.run(summarize({ kind: 'hub', id }));
    assert.equal(r.stats.usedInputTokens, expected, 'the engine sends exactly that prompt');
    assert.ok(SummarizeResult.safeParse(r).success, 'the result is what the protocol says');
    // Which model wrote it, and no experimental label: that is the built-in abstractive model's.
    assert.equal(r.mode, 'abstractive');
    assert.equal(r.stats.model, id);
    assert.equal(r.external?.id, id);
    assert.match(r.external?.note ?? '', /An instruct model from the Hub/);
    assert.equal(r.experimental, undefined);
    assert.deepEqual(r.invented, inventedItems(r.summary, article));
  });
}

/**
 * Makes the model want `phrase`'s tokens, in turn, above all others (a model that invents), so that
 * what the guard lets through is what is tested, not what random weights happen to write.
 */
function inventing(lm: CausalLm, phrase: string): void {
  const wanted = lm.opened.tokenizer.encode(phrase, { add_special_tokens: false });
  const step = lm.step.step.bind(lm.step);
  // The push is on whole rows: a runtime's own ranking of its candidates (llama.cpp's) would not see it.
  lm.step.stepRanked = undefined;
  let n = 0;
  lm.step.step = async (tokens, state) => {
    const out = await step(tokens, state);
    out.logProbs[wanted[n++ % wanted.length]] += 100;
    return out;
  };
}

for (const [what, choice] of [
  ['SmolLM2 (Hub)', { kind: 'hub', id: SMOL }],
  ['Qwen2.5 (Hub)', { kind: 'hub', id: QWEN }],
  ['SmolLM2 (GGUF)', { kind: 'gguf', file: GGUF }],
] as const) {
  test(`${what}: an instruct model that would invent a name and a number writes neither inside a sentence — the guard holds, and without it both come`, async (t) => {
    const hub =
      choice.kind === 'gguf' ? { ...config({ cacheDir: tempCache(t) }).hub!, offline: true } : await hubFor(t);
    const INVENTED = ' and Obama paid 987 dollars in Paris';
    const run = async (guards: boolean) => {
      const lm = await openCausalLm(choice, 'the test', hub, runtime, watch);
      const system = await InstructSummarizeSystem.on(lm);
      try {
        inventing(lm, INVENTED);
        return await system.run(
          { op: 'summarize', text: article, mode: 'abstractive', decoding: { maxLength: 40 }, guards },
          quiet,
        );
      } finally {
        await system.dispose();
      }
    };
    const free = await run(false);
    const invented = unsupportedItems(free.summary, article).invented;
    assert.ok(invented.includes('Obama') || invented.includes('987'), `unguarded: ${JSON.stringify(free.summary)}`);
    assert.ok(free.invented && free.invented.length > 0, 'and the result flags what was invented');
    const guarded = await run(true);
    assert.deepEqual(
      unsupportedItems(guarded.summary, article).invented,
      [],
      `guarded: ${JSON.stringify(guarded.summary)}`,
    );
    assert.deepEqual(guarded.invented, []);
  });
}

test("the guards read a model's vocabulary as its decoder writes each token after a word: a leading space kept, a line break a space", () => {
  // A sentencepiece-like decoder that drops the leading space at a text's start, as Llama 2's and Gemma's do.
  const vocab = ['<s>', 'a', '\u2581the', 'n', '\u2581Paris', '.\n\n', '\u2581\u2581'];
  const tokenizer = {
    encode: (text: string) => (text === 'a' ? [1] : []),
    decode: (ids: number[], o?: { skip_special_tokens?: boolean }) =>
      ids
        .map((i) => (i === 0 ? (o?.skip_special_tokens ? '' : '<s>') : vocab[i]))
        .join('')
        .replace(/\u2581/g, ' ')
        .replace(/^ /, ''),
  } as unknown as LmTokenizer;
  assert.deepEqual(guardPieces(tokenizer, 8), [
    '',
    'a',
    '\u2581the',
    'n',
    '\u2581Paris',
    '.\u2581',
    '\u2581\u2581',
    '',
  ]);
});

test('what an instruct summary invents is flagged as Rewrite flags it: one check, one wording', () => {
  const summary = 'The council of Riverton will build a bridge for 45 million dollars, Mayor Jane Park said.';
  assert.deepEqual(inventedItems(summary, article), ['Jane', '45']);
  assert.equal(
    describeInvented('summary', ['Jane', '45']),
    'The summary has names or numbers the text does not: "Jane", "45".',
  );
  assert.equal(describeInvented('summary', []), undefined);
});

test('the summary streams as it is written, and Cancel stops it between two tokens', async (t) => {
  const engine = new Engine(config(await hubFor(t)), () => {});
  const partials: string[] = [];
  const r = await engine.run(summarize({ kind: 'hub', id: SMOL }), { partial: (p) => partials.push(p) });
  assert.ok(partials.length >= 2, `${partials.length} partial texts`);
  assert.ok(partials.at(-1)!.trim().startsWith(r.summary), 'the summary is the streamed text (to its last sentence)');
  const seen: string[] = [];
  await assert.rejects(
    engine.run(summarize({ kind: 'hub', id: SMOL }, { decoding: { maxLength: 200 } }), {
      partial: (p) => seen.push(p),
      isCancelled: () => seen.length >= 3,
    }),
    (e: unknown) => e instanceof EngineError && e.code === 'cancelled',
  );
  assert.equal(seen.length, 3);
});

test('a long text is read whole, section by section, in parts of the window; the summary of the whole comes from the parts', async (t) => {
  const engine = new Engine(config(await hubFor(t)), () => {});
  const long = [article, article.replace(/Riverton/g, 'Lakeside'), article.replace(/Alder/g, 'Birch')].join('\n\n');
  const progress: string[] = [];
  const r = await engine.run(
    summarize(
      { kind: 'hub', id: SMOL },
      { text: long, format: 'plain', maxInputTokens: 200, decoding: { maxLength: 12 } },
    ),
    { progress: (m) => progress.push(m) },
  );
  assert.equal(r.truncated, false);
  assert.equal(r.usedChars, long.length);
  assert.ok((r.sections?.length ?? 0) >= 1);
  assert.ok(
    progress.some((m) => /^Sections done: \d+ \/ \d+/.test(m)),
    progress.join('\n'),
  );
  assert.ok(
    progress.some((m) => /summarizing the \d+ nearest/.test(m)),
    'the parts are summarized, then the whole from them',
  );
  assert.ok(r.stats.usedInputTokens > 200, 'more than one window was read');
  assert.deepEqual(unsupportedItems(r.summary, long).invented, []);
});

test('a language model without a chat template is refused for a summary, saying what to choose', async (t) => {
  const engine = new Engine(config(await hubFor(t)), () => {});
  await assert.rejects(
    engine.run(summarize({ kind: 'hub', id: PLAIN_LM })),
    (e: unknown) =>
      e instanceof EngineError && e.code === 'bad-model' && /no chat template.*Choose Model/s.test(e.message),
  );
});

test('a GGUF instruct model summarizes through the chat template in the file, under the same guard, and the result names the file', async (t) => {
  const engine = new Engine(config({ cacheDir: tempCache(t), offline: true }), () => {});
  const partials: string[] = [];
  const r = await engine.run(summarize({ kind: 'gguf', file: GGUF }), { partial: (p) => partials.push(p) });
  assert.equal(r.stats.model, GGUF);
  assert.equal(r.external?.id, GGUF);
  assert.match(r.external?.note ?? '', /from a GGUF file \(llama\.cpp\)/);
  assert.equal(r.experimental, undefined);
  assert.ok(partials.length >= 1);
  assert.deepEqual(unsupportedItems(r.summary, article).invented, []);
  assert.ok(SummarizeResult.safeParse(r).success);
});

// ---- the CLI: draftsmith summarize --mode abstractive --model ID|FOLDER|FILE.gguf -----------------

const CLI = path.join(repoRoot, 'dist', 'cli.js');

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const work = tempDir('instruct-summary-cli');
  const r = spawnSync(process.execPath, [CLI, 'summarize', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    cwd: work,
    env: { ...process.env, DRAFTSMITH_CACHE: path.join(work, 'cache') },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

for (const [what, model] of [
  ["a folder in transformers.js's layout", path.join(HUB_FIXTURES, SMOL)],
  ['a GGUF file', GGUF],
] as const) {
  test(`draftsmith summarize --mode abstractive --model (${what}) writes the summary with it and says so on standard error`, () => {
    const r = cli(['--text', article, '--mode', 'abstractive', '--model', model, '--max-tokens', '16']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.trim().length > 0, 'a summary on standard output');
    assert.match(r.stderr, new RegExp(`note: written by ${model.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(`));
    assert.doesNotMatch(r.stderr, /Experimental/, 'the label is the built-in model’s only');
    const json = cli(['--text', article, '--mode', 'abstractive', '--model', model, '--max-tokens', '16', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const result = SummarizeResult.parse(JSON.parse(json.stdout));
    assert.equal(result.stats.model, model);
    assert.equal(result.external?.id, model);
    assert.deepEqual(result.invented, []);
  });
}
