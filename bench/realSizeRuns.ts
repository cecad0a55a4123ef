/**
 * The benches of Hub models at their real sizes (random weights with the real shapes, made by
 * models/train/draftsmith_train/hub_fixtures.py --real-size into .work/real-size, git-ignored): each
 * model folder, each of its q4 and int8 files and each thread count measured in a process of its own,
 * so that each run's peak memory is its own and one run's native allocations do not slow the next.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Dtype } from '../extension/engine/hub/fileChoice';
import { root } from './loopBench';
import type { Reporter } from './report';

export const REAL_SIZE_DIR = process.env.REAL_SIZE_DIR ?? path.join(root, '.work', 'real-size', 'fixtures');

/** One child's measurement: the model folder, the file's data type, threads, and the bench's own flag. */
export interface RealSizeRun {
  dir: string;
  name: string;
  dtype: Dtype;
  threads: number;
  extra: boolean;
}

const CHILD = 'REAL_SIZE_CHILD';

/**
 * In a child: runs `measure` on the run the parent named and prints its result; true. In the parent:
 * false, at once.
 */
export async function measureInChild<M>(measure: (run: RealSizeRun) => Promise<M>): Promise<boolean> {
  const spec = process.env[CHILD];
  if (!spec) return false;
  const [dir, dtype, threads, extra] = spec.split('|');
  const run = { dir, name: path.basename(dir), dtype: dtype as Dtype, threads: Number(threads), extra: extra === '1' };
  process.stdout.write(`RESULT ${JSON.stringify(await measure(run))}\n`);
  return true;
}

/**
 * Every model under REAL_SIZE_DIR that `models` keeps (and MODELS=regex), each of its q4 and int8
 * files (DTYPES, default q4,int8) and each of THREADS_LIST (default 1,2), measured by this same
 * script in a child (bundled into each bench, `__filename` is the bench's own file); `report`
 * writes its rows under a section of its own. A missing folder is one row saying how to make it.
 */
export function eachRealSizeRun<M>(
  r: Reporter,
  title: string,
  options: { models?: (name: string) => boolean; extra?: (run: Omit<RealSizeRun, 'extra'>, last: boolean) => boolean },
  report: (m: M, run: RealSizeRun) => void,
): void {
  if (!existsSync(REAL_SIZE_DIR)) {
    r.section(title);
    r.row(
      'skipped',
      null,
      undefined,
      `no ${REAL_SIZE_DIR}: make it with (cd models/train && /usr/bin/python3 -m draftsmith_train.hub_fixtures ` +
        `--real-size ../../.work/real-size)`,
    );
    return;
  }
  const threadsList = (process.env.THREADS_LIST ?? '1,2').split(',').map(Number);
  const only = process.env.MODELS ? new RegExp(process.env.MODELS) : null;
  const dtypes = (process.env.DTYPES ?? 'q4,int8').split(',');
  const names = readdirSync(REAL_SIZE_DIR)
    .sort()
    .filter((n) => (options.models?.(n) ?? true) && (!only || only.test(n)));
  for (const name of names) {
    const dir = path.join(REAL_SIZE_DIR, name);
    const files = existsSync(path.join(dir, 'onnx')) ? readdirSync(path.join(dir, 'onnx')) : [];
    for (const dtype of ['q4', 'int8'] as const) {
      if (!files.includes(`model_${dtype}.onnx`) || !dtypes.includes(dtype)) continue;
      for (const threads of threadsList) {
        const base = { dir, name, dtype, threads };
        const run = { ...base, extra: options.extra?.(base, threads === threadsList[threadsList.length - 1]) ?? false };
        const child = spawnSync(process.execPath, [__filename], {
          env: { ...process.env, [CHILD]: `${dir}|${dtype}|${threads}|${run.extra ? 1 : 0}` },
          encoding: 'utf8',
          maxBuffer: 16 * 1024 * 1024,
        });
        const line = child.stdout.split('\n').find((l) => l.startsWith('RESULT '));
        r.section(`${name} ${dtype}, ${threads} thread${threads > 1 ? 's' : ''}`);
        if (!line) {
          r.row('failed', null, undefined, (child.stderr || child.stdout).split('\n').slice(-3).join(' '));
          continue;
        }
        report(JSON.parse(line.slice(7)) as M, run);
      }
    }
  }
}
