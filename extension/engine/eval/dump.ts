/**
 * `draftsmith eval SYSTEM --dump FILE`: one JSON line per held-out test item and model variant,
 * {system, variant, id, domain?, source, output, references}, for scorers outside the engine (the
 * fluency scorer, models/train/draftsmith_train/fluency.py). Each line is appended as soon as the
 * item is done, so a long run that is stopped keeps what it wrote.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ModelSystemId } from '../systems/registry';

export interface DumpRecord {
  /** The registry's name of the system evaluated. */
  system: ModelSystemId;
  /** The variant's name as given to --variant NAME=DIR. */
  variant: string;
  /** The item's id in its split (or its position in the sample). */
  id: string;
  /** The item's domain or source in its split (news, tech, story, wiki, a dialogue corpus…), when it has one. */
  domain?: string;
  /** What the model read: the document, the topic words, the prompt, the paragraph, the post. */
  source: string;
  output: string;
  /** The human text(s) for the same item. */
  references: string[];
}

export type Dump = (record: DumpRecord) => void;

/** A writer for FILE (emptied first, its folder made), or undefined when no FILE is given. */
export function openDump(file: string | undefined): Dump | undefined {
  if (file === undefined) return undefined;
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, '');
  return (record) => appendFileSync(file, JSON.stringify(record) + '\n');
}
