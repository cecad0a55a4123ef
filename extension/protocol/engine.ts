/**
 * Every request the engine answers and every result it gives, one union each: what the worker
 * channel and the CLI carry.
 */
import { z } from 'zod';
import { EssayRequest, EssayResult } from './systems/essay';
import { ReplyRequest, ReplyResult } from './systems/reply';
import { RewriteRequest, RewriteResult } from './systems/rewrite';
import { RoundTripRequest, RoundTripResult } from './systems/roundtrip';
import {
  CoherenceRequest,
  CoherenceResult,
  ScoreRequest,
  ScoreResult,
  SystemsRequest,
  SystemsResult,
} from './systems/scoring';
import { PremiseRequest, PremiseResult, StoryRequest, StoryResult } from './systems/story';
import { SpeedRequest, SpeedResult } from './systems/speed';
import { SummarizeRequest, SummarizeResult } from './systems/summarize';

export const EngineRequest = z.discriminatedUnion('op', [
  SummarizeRequest,
  EssayRequest,
  StoryRequest,
  PremiseRequest,
  ScoreRequest,
  CoherenceRequest,
  RoundTripRequest,
  ReplyRequest,
  RewriteRequest,
  SystemsRequest,
  SpeedRequest,
]);
export type EngineRequest = z.infer<typeof EngineRequest>;
export const EngineResult = z.discriminatedUnion('op', [
  SummarizeResult,
  EssayResult,
  StoryResult,
  PremiseResult,
  ScoreResult,
  CoherenceResult,
  RoundTripResult,
  ReplyResult,
  RewriteResult,
  SystemsResult,
  SpeedResult,
]);
export type EngineResult = z.infer<typeof EngineResult>;
export type ResultFor<R extends EngineRequest> = Extract<EngineResult, { op: R['op'] }>;
