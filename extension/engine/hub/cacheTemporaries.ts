/**
 * The download cache's temporary files and folders: every file is written under a temporary name
 * (<final name>.tmp.<pid>.<random>) and renamed once checked. A download that fails or is cancelled
 * removes its own; one whose process died (killed, or the machine went down) cannot, so every
 * download into the cache first sweeps the temporaries no live download holds.
 *
 * A temporary is left over when the process named in it is not running here, or when it is this
 * process's and none of its downloads holds it (a process id reused after a restart). A temporary
 * of another live process is kept unless it has not been written for an hour: a live download writes
 * at least every stall limit (at most 10 minutes, HubConfig.stallSeconds) or stops itself, so one
 * untouched that long belongs to a process that died and whose id was taken since. The age alone
 * would not do: a rerun right after Ctrl+C or a kill would keep the dead one's file for an hour.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, rmSync, type Stats } from 'node:fs';
import * as path from 'node:path';

/** Untouched this long, a temporary is left over whatever process its name gives. */
export const ABANDONED_MS = 60 * 60 * 1000;

const TEMPORARY = /\.tmp\.(\d+)\.[0-9a-z]+$/;

/** The temporaries this process is writing now: never swept, and removed by removeOwnTemporaries. */
const held = new Set<string>();

/** A temporary name beside `dest`, held by this process until `release`. */
export function holdTemporary(dest: string): { path: string; release(): void } {
  const p = `${dest}.tmp.${process.pid}.${randomBytes(4).toString('hex')}`;
  held.add(p);
  return {
    path: p,
    release: () => {
      held.delete(p);
    },
  };
}

/** Whether `name` is a temporary's name. */
export const isTemporary = (name: string): boolean => TEMPORARY.test(name);

/** Whether a process with this id is running (one of another user counts too). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the temporary at `p` (its name matched) is left over: see the module's comment. */
function leftOver(p: string, pid: number, st: Stats, now: number): boolean {
  if (pid === process.pid) return !held.has(p);
  return !running(pid) || now - st.mtimeMs > ABANDONED_MS;
}

/**
 * Removes the left-over temporaries under `cacheDir` (at most 8 folders deep, symbolic links not
 * followed) and returns their paths. Anything that cannot be removed is skipped: a sweep never fails
 * the download that runs it.
 */
export function sweepTemporaries(cacheDir: string, now = Date.now()): string[] {
  const removed: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      let st: Stats;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      const m = TEMPORARY.exec(name);
      if (m && leftOver(p, Number(m[1]), st, now)) {
        try {
          rmSync(p, { recursive: true, force: true });
          removed.push(p);
        } catch {
          // Another process's sweep, or a permission: the next sweep tries again.
        }
      } else if (st.isDirectory() && depth < 8) walk(p, depth + 1);
    }
  };
  if (existsSync(cacheDir)) walk(cacheDir, 0);
  return removed;
}

/**
 * Removes, synchronously, every temporary this process is writing: for a process about to exit
 * before its downloads could clean up after themselves (the CLI's second Ctrl+C).
 */
export function removeOwnTemporaries(): void {
  for (const p of held) rmSync(p, { recursive: true, force: true });
  held.clear();
}
