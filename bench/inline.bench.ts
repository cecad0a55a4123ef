/**
 * Inline suggestions: from the end of a pause to the ghost text, over 200 simulated
 * pauses in sample stories with the engine warm, typing interrupting half of them. The engine runs
 * in this process behind the worker's own request queue (requestQueue.ts, the 'inline' channel):
 * a keystroke is a timer that cancels the running request and sends the next text, and like the
 * worker's cancel message it is seen only when the decoding loop gives the event loop a turn. For
 * each interrupted generation: how many tokens it decoded after the keystroke (at most one: the step
 * under way). Prints numbers; asserts nothing.
 *   node dist/bench/inline.bench.js       (THREADS, default 1; PAUSES, default 200)
 */
import * as path from 'node:path';
import { seededRandom } from '../extension/engine/decode/sampling';
import { Engine } from '../extension/engine/engine';
import { RequestQueue } from '../extension/engine/requestQueue';
import type { EngineError } from '../extension/engine/errors';
import type { StoryRequest } from '../extension/protocol';
import { median, peakRssMB, Reporter } from './report';

const root = path.resolve(__dirname, '..', '..');
const threads = Number(process.env.THREADS ?? 1);
const pauses = Number(process.env.PAUSES ?? 200);
/** draftsmith.inline.length "sentence". */
const SENTENCE = { sentences: 1, maxWords: 30 };

/** Sample stories in the model's simple English; a pause falls after any of their words. */
const STORIES = [
  'Tom had a little dog named Max. Every morning Tom and Max went to the park near their house. One day Max ' +
    'found a red ball under a tree, and he ran to show it to Tom. Tom laughed and threw the ball far away.',
  'Anna lived in a small house by the sea. She liked to walk on the beach and look for shells. One afternoon ' +
    'she found a big shell that was pink inside. She took it home and put it on her table.',
  'The old man had a garden full of flowers. Every day he watered them and talked to them. His neighbour ' +
    'thought it was strange, but the flowers grew taller than anyone had ever seen.',
  'Ben was very hungry after school. He opened the fridge, but there was nothing to eat. His mother came home ' +
    'with a bag of apples and a cake. Ben smiled and helped her make dinner.',
];

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Outcome {
  id: number;
  sent: number;
  ended: number;
  tokenTimes: number[];
  error?: EngineError;
  suggestion?: string;
}

(async () => {
  const r = new Reporter('inline');
  const engine = new Engine({ modelsDir: path.join(root, 'models'), device: 'cpu', threads }, () => {});
  const queue = new RequestQueue();
  let nextId = 1;
  /** Sends one request on the 'inline' channel, as the worker would queue it. */
  const send = (prompt: string): { id: number; done: Promise<Outcome> } => {
    const id = nextId++;
    const out: Outcome = { id, sent: performance.now(), ended: NaN, tokenTimes: [] };
    const request: StoryRequest = { op: 'story', prompt, inline: SENTENCE };
    const done = new Promise<Outcome>((resolve) => {
      queue.add({
        id,
        channel: 'inline',
        run: async (signal) => {
          try {
            const result = await engine.run(request, {
              partial: () => out.tokenTimes.push(performance.now()),
              isCancelled: () => signal.reason !== undefined,
            });
            if (signal.reason) out.error = signal.reason;
            else out.suggestion = result.suggestion;
          } catch (e) {
            out.error = e as EngineError;
          }
          out.ended = performance.now();
          resolve(out);
        },
        end: (e) => {
          out.error = e;
          out.ended = performance.now();
          resolve(out);
        },
      });
    });
    return { id, done };
  };

  // Warm: the model loaded, the sessions run once.
  const t0 = performance.now();
  await send(STORIES[0]).done;
  const loadMs = performance.now() - t0;

  const random = seededRandom(23);
  const latencies: number[] = [];
  const tokens: number[] = [];
  const stepsAfter: number[] = [];
  const outlivedMs: number[] = [];
  let interrupted = 0;
  let cancelled = 0;
  let finishedFirst = 0;
  let empty = 0;
  for (let i = 0; i < pauses; i++) {
    const story = STORIES[i % STORIES.length];
    const cuts = [...story.matchAll(/\S+/g)].map((m) => (m.index ?? 0) + m[0].length);
    const at = cuts[Math.floor(random() * (cuts.length - 1))];
    const prompt = story.slice(0, at);
    const interrupt = i % 2 === 1;
    const first = send(prompt);
    if (!interrupt) {
      const o = await first.done;
      if (o.error) throw new Error(`an uninterrupted suggestion failed: ${o.error.message}`);
      latencies.push(o.ended - o.sent);
      tokens.push(o.tokenTimes.length);
      if (!o.suggestion) empty++;
      continue;
    }
    // Typing resumes 2-40 ms into the generation: the keystroke cancels it (VS Code's token) and
    // the next pause's text supersedes it on the channel.
    interrupted++;
    const keystrokeAfter = 2 + random() * 38;
    // When the keystroke happened: the worker's cancel message, like this timer, waits for a turn
    // of the event loop; the time it waited counts against the generation.
    const keystroke = performance.now() + keystrokeAfter;
    await sleep(keystrokeAfter);
    queue.cancel(first.id);
    const next = send(story.slice(0, cuts[Math.min(cuts.length - 1, cuts.indexOf(at) + 1)]));
    const o = await first.done;
    if (o.error?.code === 'cancelled') {
      cancelled++;
      stepsAfter.push(o.tokenTimes.filter((t) => t > keystroke).length);
      outlivedMs.push(Math.max(0, o.ended - keystroke));
    } else finishedFirst++;
    const n = await next.done;
    if (n.error) throw new Error(`the suggestion after typing failed: ${n.error.message}`);
    latencies.push(n.ended - n.sent);
    tokens.push(n.tokenTimes.length);
    if (!n.suggestion) empty++;
  }

  r.section(`inline suggestions: end of pause to ghost text (story model, built-in, threads ${threads})`);
  r.row('model load and first suggestion (cold)', loadMs, 'ms');
  r.row(
    `pause to ghost text, p50 (${latencies.length} suggestions)`,
    quantile(latencies, 0.5),
    'ms',
    'target < 150 ms at one thread, sentence length',
  );
  r.row('pause to ghost text, p95', quantile(latencies, 0.95), 'ms');
  r.row(
    'tokens per suggestion (median)',
    median(tokens),
    undefined,
    'draftsmith.inline.length "sentence": to the sentence end, at most 30 words',
  );
  r.row('suggestions with no text', empty, undefined, 'the model ended at once, or an unfinished word at the cursor');
  r.row(`pauses interrupted by typing (of ${pauses})`, interrupted);
  r.row('generations cancelled by the keystroke', cancelled, undefined, `${finishedFirst} had finished before it`);
  r.row(
    'tokens decoded after the keystroke (max)',
    stepsAfter.length ? Math.max(...stepsAfter) : null,
    undefined,
    'at most 1: the step under way when it came',
  );
  r.row(
    'cancelled generations that outlived the keystroke by more than one step',
    stepsAfter.filter((n) => n > 1).length,
  );
  r.row(
    'time from keystroke to the generation stopped, p50 / max',
    `${quantile(outlivedMs, 0.5).toFixed(1)} / ${Math.max(0, ...outlivedMs).toFixed(1)}`,
    'ms',
  );
  r.row('peak RSS', peakRssMB(), 'MB');
  r.done();
  await queue.idle();
})();
