/**
 * The insights panel's views, each with the command whose result it shows, and the text the empty
 * panel shows (built from them). Shared by the host and the page (webview/panel.ts); free of zod so
 * the host can import it at activation (host/schemas.ts explains why that matters).
 */
import type {
  CoherenceResult,
  EngineResult,
  EssayResult,
  FolderScores,
  RoundTripResult,
  ScoreResult,
  StoryResult,
  SystemsResult,
  SummarizeResult,
  ToPanel,
} from './protocol';

/** Every ToPanel type but 'empty', in the order the empty panel names their commands. */
export const PANEL_VIEWS = {
  summarize: 'Summarize Document',
  essay: 'Expand Topic Words into Essay',
  story: 'Continue Story',
  roundtrip: 'Round-Trip Paragraph',
  score: 'Score Draft',
  coherence: 'Check Coherence',
  systems: 'Compare Drafts against a Baseline',
} as const satisfies Record<Exclude<ToPanel['type'], 'empty' | 'folder'>, string>;
// 'folder' (Score Drafts in Folder) is no engine result: the host assembles it from many scores.

const commands: string[] = Object.values(PANEL_VIEWS);

/** What the panel shows before any result: the host sends it, and the page shows it until the host does. */
export const EMPTY_INSIGHTS =
  `Run Draftsmith: ${commands.slice(0, -1).join(', ')} or ${commands[commands.length - 1]} to see the results ` +
  `here.`;

/** The engine's results the panel has a view for. */
export type PanelResult = Extract<EngineResult, { op: keyof typeof PANEL_VIEWS }>;

/** The message of a view: its type and what it shows. */
type Message<T extends ToPanel['type']> = Extract<ToPanel, { type: T }>;
type ViewOf<T extends Exclude<ToPanel['type'], 'empty'>> = Message<T>['view'];

/**
 * The one converter from the engine's results to the panel's messages (rust-analyzer's to_proto
 * shape): the host sends nothing else to the page. Each view (protocol/panel.ts) holds
 * what its page shows; a change only the panel needs is made here and there, and the engine's
 * results, the CLI's --json and the commands stay as they are.
 */
export function toPanel(result: PanelResult): ToPanel {
  return messageOf(result.op, result);
}

/** Each view's converter, by the op of the result it shows: a view without one does not compile. */
const CONVERTERS: { [O in PanelResult['op']]: (r: Extract<PanelResult, { op: O }>) => ViewOf<O> } = {
  summarize: summarizeView,
  essay: essayView,
  story: storyView,
  roundtrip: roundTripView,
  score: scoreView,
  coherence: coherenceView,
  systems: systemsView,
};

function messageOf<O extends PanelResult['op']>(op: O, result: Extract<PanelResult, { op: O }>): ToPanel {
  // TypeScript cannot relate CONVERTERS[op] to op's own result (a union of converters); the table's type does.
  const convert = CONVERTERS[op] as (r: Extract<PanelResult, { op: O }>) => ViewOf<O>;
  return { type: op, view: convert(result) } as Message<O>;
}

/** Score Drafts in Folder's message: the host's own result, shown as it is. */
export function folderPanel(result: FolderScores): Message<'folder'> {
  return { type: 'folder', view: result };
}

/** The fields `keys` of a result that it has: an optional one it lacks stays absent from the view. */
function fieldsOf<T extends object, K extends keyof T>(r: T, keys: readonly K[]): Pick<T, K> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (r[k] !== undefined) out[k] = r[k];
  return out as Pick<T, K>;
}

export function summarizeView(r: SummarizeResult): ViewOf<'summarize'> {
  return {
    summary: r.summary,
    source: r.source,
    mode: r.mode ?? 'abstractive',
    ...(r.experimental ? { experimental: r.experimental } : {}),
    ...(r.invented?.length ? { invented: r.invented } : {}),
    extractedSentences: r.extracted?.length ?? 0,
    truncated: r.truncated,
    usedChars: r.usedChars,
    ...(r.inputLimit !== undefined ? { inputLimit: r.inputLimit } : {}),
    tokens: r.tokens,
    // The paper's Figure 4 shows five.
    topPhrases: [...r.topPhrases].sort((a, b) => b.weight - a.weight).slice(0, 5),
    topics: r.topics,
    sections: (r.sections ?? []).map(({ title, level, start, summary, status, fedOverall }) => ({
      title,
      level,
      start,
      summary,
      status,
      fedOverall,
    })),
    readNotes: r.readNotes ?? [],
    ...(r.external ? { external: r.external } : {}),
    stats: r.stats,
  };
}

export function essayView(r: EssayResult): ViewOf<'essay'> {
  return {
    ...fieldsOf(r, ['topics', 'unknownTopics']),
    candidates: r.candidates.map((c) => fieldsOf(c, ['text', 'covered', 'score', 'logProb'])),
    ...fieldsOf(r, ['layerWeights', 'encoderLayers', 'external', 'stats']),
  };
}

export function storyView({
  op: _op,
  hitMaxLength: _hit,
  suggestion: _suggestion,
  ...view
}: StoryResult): ViewOf<'story'> {
  return view;
}

export function roundTripView(r: RoundTripResult): ViewOf<'roundtrip'> {
  return {
    architecture: r.architecture,
    ...(r.experimental ? { experimental: r.experimental } : {}),
    inputSentences: r.input.length,
    totalSentences: r.totalSentences,
    outputSentences: r.output.length,
    truncatedBy: r.truncatedBy,
    stopped: r.stopped,
    limits: r.limits,
    unknownTokens: r.unknownTokens,
    scores: r.scores,
    attention: r.output.some((s) => s.attention) ? r.output.map((s) => s.attention ?? []) : null,
    readNotes: r.readNotes ?? [],
    stats: r.stats,
  };
}

export function scoreView({ op: _op, ...view }: ScoreResult): ViewOf<'score'> {
  return view;
}

export function coherenceView({ op: _op, ...view }: CoherenceResult): ViewOf<'coherence'> {
  return view;
}

export function systemsView({ op: _op, ...view }: SystemsResult): ViewOf<'systems'> {
  return view;
}
