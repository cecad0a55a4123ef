/**
 * Summarize Document on a document of any length: the document is read as Markdown or
 * plain text (text/markdown.ts) into sections by heading; each section's prose is cut into parts
 * the model reads whole (at paragraph boundaries, a paragraph longer than the window at sentence
 * boundaries), and each part is summarized on its own, under a time limit.
 *
 * The summary of the whole is made from the sections': the parts whose topic distribution is
 * nearest the document's are chosen, then summarized once more together. A part's topic
 * distribution is softmax_k of the mean over its tokens of h_t·P_kᵀ (TAAS Eq. 10's topic scores,
 * which the encoder returns); the document's is the same over all the parts' tokens. Nearness is
 * the Jensen-Shannon divergence. Parts are taken nearest first while their summaries together fit
 * one window (at most MAX_OVERALL_PARTS), then their summaries, in document order, are summarized
 * as one text. A part of one sentence is its own summary (no model runs); it joins the choice only
 * when no part was read by the model.
 *
 * Everything here works through a UnitModel, so it is tested without a model.
 */
import type { AttendedToken, MaxLengthHit, SectionSummary } from '../../protocol';
import { CancelledError, EngineError } from '../errors';
import { describeSkipped, type ReadDocument } from '../text/markdown';
import { sentenceSpans, type Span } from '../text/reader';
import type { RunContext } from './context';

/** At most this many parts feed the summary of the whole. */
export const MAX_OVERALL_PARTS = 8;

/** The default time limit for one part (a section or a piece of one). */
export const DEFAULT_SECTION_TIME_LIMIT_MS = 30_000;

/** What the model made of one part. Spans are relative to the text it was given. */
export interface UnitSummary {
  summary: string;
  /** Extractive mode: the chosen sentences' spans. */
  extracted?: Span[];
  tokens: AttendedToken[];
  /** Mean over the part's tokens of each topic's score (TAAS Eq. 10), before the softmax. */
  topicMeans?: Float64Array;
  /** Abstractive mode: decoding stopped at the length limit. */
  hitMaxLength?: MaxLengthHit | null;
  inputTokens: number;
  outputTokens: number;
  encodeMs: number;
  decodeMs: number;
}

/** The summarizer as the sectioned reading needs it. */
export interface UnitModel {
  /** Tokens the model reads at once. */
  readonly window: number;
  /** The tokens of `text`, counted up to `limit` + 1 (more than limit means "too long"). */
  countTokens(text: string, limit: number): number;
  /** `whole`: this is the summary of the whole, from the parts' summaries; its length is the document's
   * (`documentWords` of prose), not the joined summaries'. */
  summarize(text: string, ctx: RunContext, whole?: { documentWords: number }): Promise<UnitSummary>;
}

/** A stretch of one section's prose that the model reads at once. */
export interface Part extends Span {
  section: number;
  /** Sentences in the part (1: it is its own summary). */
  sentences: number;
}

export class SectionTimeout extends Error {}

/**
 * The run of one summary inside the document's: it reports no progress of its own, and its checks
 * throw SectionTimeout once `timeLimitMs` have passed from now (a cancel still cancels).
 */
function timeLimited(ctx: RunContext, timeLimitMs: number): RunContext {
  const deadline = performance.now() + timeLimitMs;
  return {
    ...ctx,
    progress: () => {},
    partial: () => {},
    checkCancelled: () => {
      ctx.checkCancelled();
      if (performance.now() > deadline) throw new SectionTimeout();
    },
  };
}

/**
 * The parts of a document: each section's prose paragraphs packed in order while they fit the
 * window; a paragraph longer than the window is cut between sentences (a sentence longer than it
 * is a part alone; the model reads its beginning).
 */
export function planParts(doc: ReadDocument, window: number, countTokens: UnitModel['countTokens']): Part[] {
  const parts: Part[] = [];
  doc.sections.forEach((sec, section) => {
    // Pieces: whole paragraphs, or the sentences of one that does not fit.
    const pieces: { start: number; end: number; tokens: number; sentences: number }[] = [];
    for (const p of sec.paragraphs) {
      const sentences = sentenceSpans(p.text).map((s) => ({ start: p.start + s.start, end: p.start + s.end }));
      const tokens = countTokens(p.text, window);
      if (tokens <= window) {
        pieces.push({ start: p.start, end: p.end, tokens, sentences: sentences.length });
        continue;
      }
      for (const s of sentences)
        pieces.push({ ...s, tokens: countTokens(doc.prose.slice(s.start, s.end), window), sentences: 1 });
    }
    let current: (Part & { tokens: number }) | undefined;
    for (const piece of pieces) {
      if (current && current.tokens + piece.tokens <= window) {
        current.end = piece.end;
        current.tokens += piece.tokens;
        current.sentences += piece.sentences;
        continue;
      }
      if (current) parts.push({ section, start: current.start, end: current.end, sentences: current.sentences });
      current = { section, ...piece };
    }
    if (current) parts.push({ section, start: current.start, end: current.end, sentences: current.sentences });
  });
  return parts;
}

function softmax(x: Float64Array): Float64Array {
  let max = -Infinity;
  for (const v of x) max = Math.max(max, v);
  const e = x.map((v) => Math.exp(v - max));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}

/** Jensen-Shannon divergence (natural log) of two distributions. */
export function jensenShannon(p: Float64Array, q: Float64Array): number {
  let d = 0;
  for (let i = 0; i < p.length; i++) {
    const m = (p[i] + q[i]) / 2;
    if (p[i] > 0) d += 0.5 * p[i] * Math.log(p[i] / m);
    if (q[i] > 0) d += 0.5 * q[i] * Math.log(q[i] / m);
  }
  return d;
}

/** Collapses whitespace (the prose view's blanked markup included: "see [the guide](url)." reads "see the guide."). */
const oneLine = (s: string) =>
  s
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?)\]])/g, '$1')
    .replace(/([([]) /g, '$1')
    .trim();

export interface SectionedSummary {
  summary: string;
  /** Extractive mode: the overall summary's sentences as spans of the document. */
  extracted?: Span[];
  sections: SectionSummary[];
  tokens: AttendedToken[];
  /** How the document was read, for the panel and the CLI: what was skipped, unclosed fences, timeouts. */
  notes: string[];
  /** The summary of the whole stopped at the length limit (abstractive mode). */
  hitMaxLength: MaxLengthHit | null;
  parts: number;
  inputTokens: number;
  outputTokens: number;
  encodeMs: number;
  decodeMs: number;
}

/**
 * Summarizes every section of `doc` and the whole from them (see the header). `timeLimitMs` bounds
 * each part; a part past it is left without a summary and said so. A cancel throws CancelledError.
 */
export async function summarizeSections(
  doc: ReadDocument,
  model: UnitModel,
  ctx: RunContext,
  timeLimitMs = DEFAULT_SECTION_TIME_LIMIT_MS,
): Promise<SectionedSummary> {
  const notes: string[] = [];
  const skipped = describeSkipped(doc.skipped);
  if (skipped) notes.push(`${skipped[0].toUpperCase()}${skipped.slice(1)}.`);
  notes.push(...doc.notes);
  const parts = planParts(doc, model.window, (t, l) => model.countTokens(t, l));
  if (parts.length === 0) {
    throw new EngineError('bad-input', `There is no prose to summarize${skipped ? `: ${skipped}` : ''}.`);
  }
  const withProse = new Set(parts.map((p) => p.section)).size;
  const results: (UnitSummary | undefined)[] = [];
  const timedOut = new Set<number>();
  const unreadable = new Map<number, string>();
  // Per section: how many parts it has, and the index of its first.
  const partsOf = new Map<number, number>();
  const firstPartOf = new Map<number, number>();
  parts.forEach((p, i) => {
    partsOf.set(p.section, (partsOf.get(p.section) ?? 0) + 1);
    if (!firstPartOf.has(p.section)) firstPartOf.set(p.section, i);
  });
  let sectionsDone = 0;
  ctx.progress(`Sections done: 0 / ${withProse}`, 0);
  for (const [i, part] of parts.entries()) {
    ctx.checkCancelled();
    const text = doc.prose.slice(part.start, part.end);
    if (part.sentences <= 1) {
      // One sentence is its own summary: no model runs (10,000 one-line sections cost no 10,000 encodes).
      results.push({
        summary: oneLine(text),
        extracted: [{ start: 0, end: text.length }],
        tokens: [],
        inputTokens: 0,
        outputTokens: 0,
        encodeMs: 0,
        decodeMs: 0,
      });
    } else {
      const limited = timeLimited(ctx, timeLimitMs);
      try {
        results.push(await model.summarize(text, limited));
      } catch (e) {
        if (e instanceof SectionTimeout) {
          timedOut.add(i);
        } else if (e instanceof EngineError && !(e instanceof CancelledError) && e.code === 'bad-input') {
          // A part the model cannot read (another script, no words it knows): said, and the rest goes on.
          unreadable.set(i, e.message);
        } else {
          throw e;
        }
        results.push(undefined);
      }
    }
    // The share done counts parts, so that one long section (a plain-text paragraph of a megabyte) moves too.
    const fraction = ((i + 1) / parts.length) * 0.95;
    if (i + 1 === parts.length || parts[i + 1].section !== part.section) {
      sectionsDone++;
      ctx.progress(`Sections done: ${sectionsDone} / ${withProse}`, fraction);
    } else if ((partsOf.get(part.section) ?? 0) > 1) {
      const of = partsOf.get(part.section) ?? 0;
      const done = i + 1 - (firstPartOf.get(part.section) ?? 0);
      ctx.progress(
        `Sections done: ${sectionsDone} / ${withProse}; in section ${sectionsDone + 1}, ${done} of ${of} parts`,
        fraction,
      );
    }
  }

  // The document's topic distribution: token-weighted mean of the parts' topic means.
  const read = parts.map((p, i) => ({ p, i, r: results[i] })).filter((x) => x.r?.topicMeans && x.r.tokens.length > 0);
  let chosen: number[];
  if (read.length > 0) {
    const K = read[0].r!.topicMeans!.length;
    const mean = new Float64Array(K);
    let n = 0;
    for (const { r } of read) {
      for (let k = 0; k < K; k++) mean[k] += r!.topicMeans![k] * r!.tokens.length;
      n += r!.tokens.length;
    }
    const docTopics = softmax(mean.map((v) => v / n));
    const order = read
      .map((x) => ({ i: x.i, d: jensenShannon(softmax(x.r!.topicMeans!), docTopics) }))
      .sort((a, b) => a.d - b.d || a.i - b.i);
    chosen = pickWithinWindow(
      order.map((o) => o.i),
      results,
      model,
    );
  } else {
    chosen = pickWithinWindow(
      parts.map((_, i) => i).filter((i) => results[i]),
      results,
      model,
    );
  }
  chosen.sort((a, b) => a - b);

  // The summary of the whole: one chosen part's own, or a summary of the chosen parts' summaries.
  let summary = '';
  let extracted: Span[] | undefined;
  let final: UnitSummary | undefined;
  let hitMaxLength: MaxLengthHit | null = null;
  const sourceSpans = (i: number): Span[] | undefined =>
    results[i]?.extracted?.map((s) => ({ start: parts[i].start + s.start, end: parts[i].start + s.end }));
  if (chosen.length === 1) {
    summary = results[chosen[0]]!.summary;
    extracted = sourceSpans(chosen[0]);
    hitMaxLength = results[chosen[0]]!.hitMaxLength ?? null;
  } else if (chosen.length > 1) {
    ctx.progress(
      `Sections done: ${withProse} / ${withProse}; summarizing the ${chosen.length} nearest the document's ` +
        `topics together…`,
      0.96,
    );
    // In extractive mode the joined text is the chosen sentences as written, so the final choice maps
    // back to the document.
    const pieces: { at: number; source: Span }[] = [];
    let joined = '';
    for (const i of chosen) {
      const spans = sourceSpans(i);
      if (spans) {
        for (const s of spans) {
          if (joined) joined += '\n\n';
          pieces.push({ at: joined.length, source: s });
          joined += doc.prose.slice(s.start, s.end);
        }
      } else {
        if (joined) joined += '\n\n';
        joined += results[i]!.summary;
      }
    }
    const limited = timeLimited(ctx, timeLimitMs);
    try {
      const documentWords = doc.paragraphs.reduce((n, p) => n + (p.text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0), 0);
      final = await model.summarize(joined, limited, { documentWords });
      summary = final.summary;
      hitMaxLength = final.hitMaxLength ?? null;
      if (final.extracted && pieces.length > 0) {
        extracted = final.extracted.map((s) => {
          const piece = [...pieces].reverse().find((p) => p.at <= s.start) ?? pieces[0];
          return { start: piece.source.start + (s.start - piece.at), end: piece.source.start + (s.end - piece.at) };
        });
        summary = extracted.map((s) => oneLine(doc.prose.slice(s.start, s.end))).join(' ');
      }
    } catch (e) {
      if (!(e instanceof SectionTimeout)) throw e;
      notes.push(
        'The summary of the section summaries ran past the time limit; the summary of the nearest section ' +
          'stands in for it.',
      );
      summary = results[chosen[0]]!.summary;
      extracted = sourceSpans(chosen[0]);
    }
  }
  if (!summary) {
    throw new EngineError(
      'bad-input',
      timedOut.size > 0
        ? 'Every section ran past the time limit; nothing could be summarized.'
        : ([...unreadable.values()][0] ?? 'Nothing could be summarized.'),
    );
  }
  summary = oneLine(summary);

  const fed = new Set(chosen.map((i) => parts[i].section));
  const sections: SectionSummary[] = doc.sections.map((sec, s) => {
    const mine = parts.map((p, i) => ({ p, i })).filter((x) => x.p.section === s);
    const done = mine.filter((x) => results[x.i]);
    const status: SectionSummary['status'] =
      mine.length === 0
        ? 'no-prose'
        : done.length === 0
          ? mine.some((x) => timedOut.has(x.i))
            ? 'timed-out'
            : 'unreadable'
          : mine.every((x) => x.p.sentences <= 1)
            ? 'whole'
            : 'summarized';
    return {
      title: sec.title,
      level: sec.level,
      start: sec.start,
      end: sec.end,
      ...(sec.heading ? { heading: sec.heading } : {}),
      summary: oneLine(done.map((x) => results[x.i]!.summary).join(' ')),
      status,
      parts: mine.length,
      fedOverall: fed.has(s),
      words: sec.paragraphs.reduce((n, p) => n + (p.text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0), 0),
    };
  });
  for (const [i, message] of unreadable)
    notes.push(`${doc.sections[parts[i].section].title || 'The text'}: ${message}`);
  if (timedOut.size > 0)
    notes.push(
      `${timedOut.size} part${timedOut.size === 1 ? '' : 's'} ran past the time limit of ` +
        `${Math.round(timeLimitMs / 1000)} s and ${timedOut.size === 1 ? 'has' : 'have'} no summary.`,
    );

  const tokens: AttendedToken[] = [];
  results.forEach((r, i) => {
    for (const t of r?.tokens ?? [])
      tokens.push({ ...t, start: t.start + parts[i].start, end: t.end + parts[i].start });
  });
  const all = [...results, final];
  const sum = (f: (r: UnitSummary) => number) => all.reduce((n, r) => n + (r ? f(r) : 0), 0);
  return {
    summary,
    extracted,
    sections,
    tokens,
    notes,
    hitMaxLength,
    parts: parts.length,
    inputTokens: sum((r) => r.inputTokens),
    outputTokens: sum((r) => r.outputTokens),
    encodeMs: sum((r) => r.encodeMs),
    decodeMs: sum((r) => r.decodeMs),
  };
}

/**
 * Parts in `order`, taken while their summaries together fit one window (the first always), at most MAX_OVERALL_PARTS.
 */
function pickWithinWindow(order: number[], results: readonly (UnitSummary | undefined)[], model: UnitModel): number[] {
  const out: number[] = [];
  let used = 0;
  for (const i of order) {
    if (out.length >= MAX_OVERALL_PARTS) break;
    const n = model.countTokens(results[i]!.summary, model.window);
    if (out.length > 0 && used + n > model.window) continue;
    out.push(i);
    used += n;
  }
  return out;
}
