/**
 * The one list of systems: which ops each answers, where its model folder lies, how it
 * loads, what the user sees while it loads, which requests carry free text and what it says of text
 * it cannot read. The engine dispatches through it, the CLI and the evaluations load systems through
 * it, and the fuzz and soak tests draw their requests per op from it; nothing else names the systems
 * one by one. A new system is one entry here, its module (implementing System), its protocol
 * messages and its panel view.
 */
import * as path from 'node:path';
import type { HubConfig, RoundTripVariant, TextOrigin } from '../../protocol';
import type { ExternalChoice, LoadWatch } from '../hub/hubModel';
import type { ModelSource } from '../runtime/modelSource';
import { acceleratorOf, CudaDecision } from '../runtime/onnx';
import type { InputTask } from '../text/origin';
import type { RuntimeOptions, TextScorer } from './context';
import { StoryLikelihood } from '../eval/storyLikelihood';
import { EssaySystem } from './essay';
import { REPLY_INPUT, ReplySystem } from './reply';
import { ROUNDTRIP_INPUT, RoundTripSystem } from './roundtrip';
import { ScoringSystem } from './scoring';
import { HubEssaySystem } from './hubEssay';
import { HubRewriteSystem, NoInstructModel, REWRITE_INPUT } from './hubRewrite';
import { HubStorySystem } from './hubStory';
import { NothingToMeasure, SpeedSystem } from './speed';
import { HubSummarizeSystem } from './hubSummarize';
import { StorySystem } from './story';
import { SUMMARIZE_INPUT, SummarizeSystem } from './summarize';
import type { Op, RequestOf, System } from './system';

/**
 * One system. Methods, not function properties: an entry of one system must widen to
 * SystemEntry<Op> for the engine's generic dispatch (each entry's ops and loader agree; the
 * registry test and Engine.run's op check hold that).
 */
export interface SystemEntry<O extends Op = Op, S extends System<O> = System<O>, V extends string = string> {
  /** The ops of the protocol it answers; every op has exactly one entry. */
  readonly ops: readonly O[];
  /** Progress while its model loads; none for a system without a model. */
  readonly loading?: string;
  /**
   * The free text its requests carry, and what it says of text it cannot read (empty, no words,
   * binary): the engine refuses such text before any model loads, the same for every model of the
   * command. Absent: its requests carry no such text (topic words, a prompt that may be empty).
   */
  readonly input?: { task: InputTask; of(request: RequestOf<O>): { text: string; origin?: TextOrigin } };
  /**
   * Loaded for one request and released after it (Measure Speed: measuring every downloaded model must
   * not leave them all in memory).
   */
  readonly transient?: boolean;
  /** Its folder in a models folder: the default one, or a variant's (none without a model). */
  folder?(variant: V | undefined): string;
  /** The variant a request asks for (a model folder of another architecture); undefined: the default. */
  variant?(request: RequestOf<O>): V | undefined;
  /** Loads it from a model source (the manifest checks happen inside, whatever the source). */
  load(source: ModelSource, runtime: RuntimeOptions, variant: V | undefined): Promise<S>;
  /**
   * Loads a model in transformers.js's layout in its place: a Hub id or a local folder
   * (draftsmith.<command>.model). Absent: the system runs its own models only.
   */
  external?(choice: ExternalChoice, hub: HubConfig, runtime: RuntimeOptions, watch: LoadWatch): Promise<System<O>>;
  /** The engine's text scorer (RunContext.withTextScorer), from this system's built-in model; one entry has it. */
  scorer?(system: S): TextScorer;
}

const roundtripFolder = (variant: RoundTripVariant | undefined) => (variant ? `roundtrip-${variant}` : 'roundtrip');

/** The folder and loader of a system with one model folder, named once. */
function oneFolder<S>(name: string, load: (dir: string, runtime: RuntimeOptions) => Promise<S>) {
  return {
    folder: () => name,
    load: async (source: ModelSource, runtime: RuntimeOptions) => load(await source.folder(name), runtime),
  };
}

export const SYSTEMS = {
  summarize: {
    ops: ['summarize'],
    loading: 'Loading the summarization model…',
    input: { task: SUMMARIZE_INPUT, of: (r) => r },
    ...oneFolder('summarize', (dir, runtime) => SummarizeSystem.load(dir, runtime)),
    // An encoder-decoder summarizer, or an instruct model through its chat template.
    external: (choice, hub, runtime, watch) => HubSummarizeSystem.open(choice, hub, runtime, watch),
  } satisfies SystemEntry<'summarize', SummarizeSystem, never>,
  essay: {
    ops: ['essay'],
    loading: 'Loading the essay model…',
    ...oneFolder('essay', (dir, runtime) => EssaySystem.load(dir, runtime)),
    external: (choice, hub, runtime, watch) => HubEssaySystem.load(choice, hub, runtime, watch),
  } satisfies SystemEntry<'essay', EssaySystem, never>,
  story: {
    ops: ['story', 'premise'],
    loading: 'Loading the story model…',
    ...oneFolder('story', (dir, runtime) => StorySystem.load(dir, runtime)),
    external: (choice, hub, runtime, watch) => HubStorySystem.load(choice, hub, runtime, watch),
    // Score Draft's perplexity: the story paper's measure, under its language model.
    scorer: (system) => {
      const lm = StoryLikelihood.of(system);
      return { name: system.name, textPerplexity: (text, hooks) => lm.textPerplexity(text, hooks) };
    },
  } satisfies SystemEntry<'story' | 'premise', StorySystem, never>,
  roundtrip: {
    ops: ['roundtrip'],
    loading: 'Loading the round-trip model…',
    input: { task: ROUNDTRIP_INPUT, of: (r) => r },
    folder: roundtripFolder,
    variant: (request) => request.variant,
    load: async (source, runtime, variant) =>
      RoundTripSystem.load(await source.folder(roundtripFolder(variant)), runtime, variant),
  } satisfies SystemEntry<'roundtrip', RoundTripSystem, RoundTripVariant>,
  reply: {
    ops: ['reply'],
    loading: 'Loading the reply model…',
    input: { task: REPLY_INPUT, of: (r) => r },
    ...oneFolder('reply', (dir, runtime) => ReplySystem.load(dir, runtime)),
  } satisfies SystemEntry<'reply', ReplySystem, never>,
  /**
   * Rewrite Selection: an instruct model the writer chooses; none of the built-in models follows an
   * instruction, so the built-in choice refuses, saying what to choose. No folder: nothing to evaluate.
   */
  rewrite: {
    ops: ['rewrite'],
    input: { task: REWRITE_INPUT, of: (r) => r },
    load: async () => new NoInstructModel(),
    external: (choice, hub, runtime, watch) => HubRewriteSystem.load(choice, hub, runtime, watch),
  } satisfies SystemEntry<'rewrite', NoInstructModel, never>,
  /** Measure Speed (Manage Models): a chosen language model timed on this machine; nothing to keep loaded. */
  speed: {
    ops: ['speed'],
    transient: true,
    load: async () => new NothingToMeasure(),
    external: (choice, hub, runtime, watch) => SpeedSystem.load(choice, hub, runtime, watch),
  } satisfies SystemEntry<'speed', NothingToMeasure, never>,
  /** Score Draft, Check Coherence and Compare Drafts against a Baseline: metrics, no model. */
  scoring: {
    ops: ['score', 'coherence', 'systems'],
    load: async () => new ScoringSystem(),
  } satisfies SystemEntry<'score' | 'coherence' | 'systems', ScoringSystem, never>,
};

export type SystemId = keyof typeof SYSTEMS;
/** The systems with a model folder (all but Score Draft's metrics): what the evaluations run. */
export type ModelSystemId = {
  [K in SystemId]: (typeof SYSTEMS)[K] extends { folder(variant: never): string } ? K : never;
}[SystemId];
/** The loaded system of an entry, with its own methods (the evaluations use more than run). */
export type SystemOf<K extends SystemId> = Awaited<ReturnType<(typeof SYSTEMS)[K]['load']>>;
/** The variants an entry's folder comes in (never: one folder only). */
type VariantOf<K extends SystemId> = (typeof SYSTEMS)[K] extends { variant(request: never): infer V }
  ? Extract<V, string>
  : never;

/** Every entry, typed for generic code. */
export const ENTRIES: readonly (readonly [SystemId, SystemEntry])[] = Object.entries(SYSTEMS) as [
  SystemId,
  SystemEntry,
][];

/** The system whose built-in model scores texts (RunContext.withTextScorer), and how it does. */
export function textScorer(): { id: SystemId; scorer: (system: System) => TextScorer } {
  const found = ENTRIES.flatMap(([id, e]) => (e.scorer ? [{ id, scorer: e.scorer.bind(e) }] : []));
  if (found.length !== 1) throw new Error(`${found.length} systems score texts; one must`);
  return found[0];
}

/** The system that answers an op. */
export function systemFor(op: Op): SystemId {
  const found = ENTRIES.find(([, e]) => e.ops.includes(op));
  if (!found) throw new Error(`no system answers "${op}" requests`);
  return found[0];
}

/** Loads one system from a source: the CLI's --model folder, an evaluation's variants. */
export function loadSystem<K extends SystemId>(
  id: K,
  source: ModelSource,
  runtime: RuntimeOptions,
  variant?: VariantOf<K>,
): Promise<SystemOf<K>> {
  const entry = SYSTEMS[id] as SystemEntry;
  // A load outside the Engine is a configuration of its own: it decides about CUDA for itself and
  // says once, not per session, when it falls back to the CPU.
  const cuda =
    runtime.cuda ??
    new CudaDecision(undefined, acceleratorOf(runtime.device) ?? 'cuda').forLoad(
      `the ${id}${variant ? ` (${variant})` : ''} model`,
    );
  return entry.load(source, { ...runtime, cuda }, variant) as Promise<SystemOf<K>>;
}

/** A system's folder in a models folder, <modelsDir>/<its folder> (the CLI's default --variant of an evaluation). */
export function modelDir(modelsDir: string, id: SystemId, variant?: string): string {
  const entry: SystemEntry = SYSTEMS[id];
  if (!entry.folder) throw new Error(`the ${id} system has no model folder`);
  return path.join(modelsDir, entry.folder(variant));
}

// Compile-time half of the registry test: an op of the protocol no entry answers is a type error here.
type Answered = (typeof SYSTEMS)[SystemId]['ops'][number];
const everyOpAnswered: [Exclude<Op, Answered>] extends [never] ? true : never = true;
void everyOpAnswered;
