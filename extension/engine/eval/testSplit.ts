/** Reading a held-out split that a training recipe wrote (JSON lines under .data/, never committed). */
import { promises as fs } from 'node:fs';
import type { z } from 'zod';
import { EngineError } from '../errors';

export async function readSplit<S extends z.ZodTypeAny>(
  file: string,
  schema: S,
  howToMake: string,
): Promise<z.infer<S>[]> {
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
