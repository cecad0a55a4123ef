// Summarize Document on a whole document, section by section (extension/engine/systems/sectioned.ts),
// driven by a stand-in summarizer: what a writer sees is each section summarized, the whole made
// from the sections nearest the document's topics, progress by sections, Cancel, and a time limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CancelledError, EngineError } from '../../extension/engine/errors';
import { readDocument } from '../../extension/engine/text/markdown';
import { sentenceSpans } from '../../extension/engine/text/reader';
import {
  planParts,
  summarizeSections,
  type UnitModel,
  type UnitSummary,
} from '../../extension/engine/systems/sectioned';
import type { RunContext } from '../../extension/engine/systems/context';

const TOPICS = ['river', 'code', 'music'];
const words = (t: string) => t.match(/[\p{L}\p{N}]+/gu) ?? [];

/** Counts words as tokens; the summary is the first sentence; topic k's score is the share of words that are TOPICS[k]. */
function fakeModel(
  window = 40,
  onRun?: (text: string, ctx: RunContext) => Promise<void>,
): UnitModel & { runs: string[] } {
  const runs: string[] = [];
  return {
    window,
    runs,
    countTokens: (text) => words(text).length,
    async summarize(text, ctx): Promise<UnitSummary> {
      runs.push(text);
      await onRun?.(text, ctx);
      ctx.checkCancelled();
      const first = sentenceSpans(text)[0];
      const w = words(text);
      const topicMeans = Float64Array.from(
        TOPICS,
        (k) => (10 * w.filter((x) => x.toLowerCase() === k).length) / w.length,
      );
      return {
        summary: first.text,
        extracted: [{ start: first.start, end: first.end }],
        tokens: w.map((x, i) => ({
          text: x,
          start: text.indexOf(x),
          end: text.indexOf(x) + x.length,
          weight: 1 / (i + 1),
        })),
        topicMeans,
        inputTokens: w.length,
        outputTokens: 0,
        encodeMs: 0,
        decodeMs: 0,
      };
    },
  };
}

function recorder(cancelAfter = Infinity): RunContext & { messages: string[] } {
  const messages: string[] = [];
  return {
    messages,
    progress: (m) => {
      messages.push(m);
    },
    partial: () => {},
    checkCancelled: () => {
      if (messages.length > cancelAfter) throw new CancelledError();
    },
  };
}

const DOC = `# Rivers

The river runs to the sea. A river carries stone and river sand. Boats use the river.

# Code

\`\`\`js
river.code(); // never prose
\`\`\`

The code is short. It compiles code to code.

# Empty

# More rivers

The river floods in spring. The river feeds the fields. People love the river.
`;

test("each section is summarized, and the whole is made from the sections nearest the document's topics", async () => {
  const model = fakeModel();
  const ctx = recorder();
  const s = await summarizeSections(readDocument(DOC, 'markdown'), model, ctx);
  assert.deepEqual(
    s.sections.map((x) => [x.title, x.status, x.summary]),
    [
      ['Rivers', 'summarized', 'The river runs to the sea.'],
      ['Code', 'summarized', 'The code is short.'],
      ['Empty', 'no-prose', ''],
      ['More rivers', 'summarized', 'The river floods in spring.'],
    ],
  );
  // The river sections carry the document's main topic; all three fit the window, so all three feed the whole.
  assert.ok(s.sections[0].fedOverall && s.sections[3].fedOverall);
  assert.equal(s.summary, 'The river runs to the sea.');
  // The overall summary's sentences are spans of the document itself.
  for (const span of s.extracted ?? []) assert.equal(DOC.slice(span.start, span.end), 'The river runs to the sea.');
  assert.ok(!model.runs.some((t) => t.includes('never prose')), 'code reached the model');
  assert.deepEqual(
    ctx.messages.filter((m) => /^Sections done: \d \/ 3$/.test(m)),
    ['Sections done: 0 / 3', 'Sections done: 1 / 3', 'Sections done: 2 / 3', 'Sections done: 3 / 3'],
  );
  assert.deepEqual(s.notes, ['1 code block was not read as prose.']);
});

test("with room for one section only, the whole comes from the section nearest the document's topics", async () => {
  const model = fakeModel(12);
  const s = await summarizeSections(readDocument(DOC, 'markdown'), model, recorder());
  // With the window at 12 "tokens" the river parts' summaries (7 and 5) fill it; the code section is farthest from the topics.
  assert.equal(s.sections[1].fedOverall, false);
  assert.ok(s.sections[0].fedOverall);
});

test('a Cancel stops the run: nothing comes back', async () => {
  await assert.rejects(summarizeSections(readDocument(DOC, 'markdown'), fakeModel(), recorder(2)), CancelledError);
});

test('a section past the time limit is said so, and the others are summarized', async () => {
  const slow = fakeModel(40, async (text, ctx) => {
    if (!text.includes('code')) return;
    for (;;) {
      await new Promise((r) => setTimeout(r, 5));
      ctx.checkCancelled();
    }
  });
  const s = await summarizeSections(readDocument(DOC, 'markdown'), slow, recorder(), 100);
  assert.equal(s.sections[1].status, 'timed-out');
  assert.equal(s.sections[0].status, 'summarized');
  assert.match(s.notes.join(' '), /1 part ran past the time limit/);
});

test('a document that is all code gets a clear message, not a summary of code', async () => {
  await assert.rejects(
    summarizeSections(readDocument('```\nconst a = 1;\n```\n\n```\nb();\n```\n', 'markdown'), fakeModel(), recorder()),
    (e: unknown) =>
      e instanceof EngineError &&
      e.code === 'bad-input' &&
      /no prose to summarize: 2 code blocks were not read as prose/.test(e.message),
  );
});

test("plain text without headings is read in parts of the model's window, cut between paragraphs", () => {
  const para = (i: number) => `Paragraph ${i} has a few words in it. It has two sentences here.`; // 13 words
  const text = Array.from({ length: 10 }, (_, i) => para(i)).join('\n\n');
  const parts = planParts(readDocument(text, 'plain'), 40, (t) => words(t).length);
  assert.equal(parts.length, 4); // 3 paragraphs (39 words) per part
  for (const p of parts) {
    assert.ok(words(text.slice(p.start, p.end)).length <= 40);
    assert.match(text.slice(p.start, p.end), /^Paragraph \d+ .*here\.$/s);
  }
});

test('one 50,000-word paragraph is cut between sentences into parts of the window', () => {
  const sentence = 'This sentence has exactly eight words in it.';
  const text = Array.from({ length: 6_250 }, () => sentence).join(' ');
  const parts = planParts(readDocument(text, 'plain'), 320, (t) => words(t).length);
  assert.equal(parts.length, Math.ceil(6_250 / 40));
  for (const p of parts)
    assert.ok(text.slice(p.start, p.end).endsWith('in it.') && words(text.slice(p.start, p.end)).length <= 320);
});

test('10,000 one-line sections are their own summaries: the model never runs', async () => {
  const text = Array.from({ length: 10_000 }, (_, i) => `## Part ${i}\n\nWord ${i} here.\n`).join('\n');
  const model = fakeModel();
  const s = await summarizeSections(readDocument(text, 'markdown'), model, recorder());
  assert.equal(s.sections.length, 10_000);
  assert.equal(s.sections[42].summary, 'Word 42 here.');
  assert.equal(s.sections[42].status, 'whole');
  // Only the summary of the whole ran the model, on the first sections' lines.
  assert.equal(model.runs.length, 1);
});

test('a long plain text is summarized whole, section by section, and its progress moves with every part', async () => {
  const paragraph = (n: number) =>
    `Paragraph ${n} tells of the river. The river runs to the sea. Boats use the river. People love the river.`;
  const text = Array.from({ length: 400 }, (_, n) => paragraph(n)).join('\n\n');
  const doc = readDocument(text, 'plain');
  assert.ok(doc.sections.length > 1, `${doc.sections.length} sections`);
  const model = fakeModel(40);
  const fractions: number[] = [];
  const messages: string[] = [];
  const ctx: RunContext = {
    progress: (m, f) => {
      messages.push(m);
      if (f !== undefined) fractions.push(f);
    },
    partial: () => {},
    checkCancelled: () => {},
  };
  const s = await summarizeSections(doc, model, ctx);
  // Every paragraph reached the model: the last one as much as the first.
  for (const n of [0, 199, 399])
    assert.ok(
      model.runs.some((r) => r.includes(`Paragraph ${n} tells`)),
      `paragraph ${n}`,
    );
  assert.equal(s.sections.length, doc.sections.length);
  assert.ok(s.sections.every((x) => x.status === 'summarized'));
  assert.equal(messages.filter((m) => /^Sections done: \d+ \/ \d+$/.test(m)).length, doc.sections.length + 1);
  // Within a section of several parts the share done still rises, part by part.
  assert.ok(messages.some((m) => /; in section 1, 1 of \d+ parts$/.test(m)));
  assert.ok(fractions.length >= s.parts);
  for (let i = 1; i < fractions.length; i++) assert.ok(fractions[i] >= fractions[i - 1]);
});
