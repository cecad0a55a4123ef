/**
 * What every evaluation reads and takes: a held-out split that a training recipe wrote (JSON lines
 * under .data/, never committed), and the options `draftsmith eval` gives each (cli.ts evalOptions).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { z } from 'zod';
import { EngineError } from '../errors';
import type { RuntimeOptions } from '../systems/context';
import type { ModelSystemId } from '../systems/registry';
import type { Dump } from './dump';

/** The options every `draftsmith eval SYSTEM` takes; each evaluation adds its own. */
export interface EvalOptions {
  /** The folder of the split (--data). */
  dataDir: string;
  /** At most this many test items. */
  limit: number;
  /** The model folders compared (--variant NAME=DIR). */
  variants: { name: string; dir: string }[];
  runtime: RuntimeOptions;
  /** --dump FILE: each item's source, output and reference(s) as a JSON line (dump.ts). */
  dump?: Dump;
  /** The decoding guards (default on, as in the editor; false: the paper's plain decoding, --no-guards). */
  guards?: boolean;
}

/** A system's held-out split, <dataDir>/<system>.<split>.jsonl, as its recipe's `prepare` writes it. */
export async function readSplit<S extends z.ZodTypeAny>(
  system: ModelSystemId,
  dataDir: string,
  schema: S,
  split: 'test' | 'val' | 'train' = 'test',
): Promise<z.infer<S>[]> {
  const file = path.join(dataDir, `${system}.${split}.jsonl`);
  const howToMake = `cd models/train && python3 -m draftsmith_train.${system} prepare --data ${dataDir}`;
  const raw = await fs.readFile(file, 'utf8').catch(() => {
    throw new EngineError('bad-input', `${file} is missing: run (${howToMake}) first.`);
  });
  return raw
    .split('\n')
    .filter(Boolean)
    .map((l, i) => {
      const parsed = schema.safeParse(JSON.parse(l));
      if (!parsed.success)
        throw new EngineError('bad-input', `${file}:${i + 1}: ${parsed.error.issues[0]?.message ?? 'not a test pair'}`);
      return parsed.data as z.infer<S>;
    });
}

/**
 * A recipe's sample of a split (roundtrip_data.load, reply eval): the sources take turns, each in
 * file order, until `limit`, so a sample is not all of the first source.
 */
export function takeTurns<R extends { source: string }>(rows: readonly R[], limit: number): R[] {
  if (!Number.isFinite(limit)) return rows.slice();
  const bySource = new Map<string, R[]>();
  for (const r of rows) {
    const list = bySource.get(r.source);
    if (list) list.push(r);
    else bySource.set(r.source, [r]);
  }
  const queues = [...bySource.values()];
  const out: R[] = [];
  for (let k = 0; out.length < limit && queues.some((q) => k < q.length); k++) {
    for (const q of queues) if (k < q.length) out.push(q[k]);
  }
  return out.slice(0, limit);
}
