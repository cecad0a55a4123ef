/**
 * `draftsmith check --baseline REF`: only the findings that are new since REF, so that a team can turn
 * the checks on in CI over docs that already have findings. REF is an earlier `--json` output, or a
 * git revision whose copy of each file (`git show REV:path`) is checked the same way.
 *
 * A finding is the same finding when it is in the same file, from the same rule, on the same text
 * with the same words around it: not the same line, since lines move when text is added above. Each
 * key is counted, so a third "the the" where the baseline had two is new.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { EngineError, errorMessage } from '../engine/errors';

/** The characters of context kept on each side of a finding. */
const AROUND = 24;

/** What a finding is matched by, as the JSON output carries it. */
export interface FindingKey {
  file: string;
  rule: string;
  context: string;
}

/**
 * The finding's text with up to AROUND characters either side on its own lines, white space runs as
 * one space: a line added above or below leaves it as it was.
 */
export function contextOf(text: string, start: number, end: number): string {
  const lineStart = Math.max(text.lastIndexOf('\n', start - 1) + 1, 0);
  const next = text.indexOf('\n', end);
  const lineEnd = next < 0 ? text.length : next;
  return text
    .slice(Math.max(lineStart, start - AROUND), Math.min(lineEnd, end + AROUND))
    .replace(/\s+/g, ' ')
    .trim();
}

/** A file's name as keys carry it: relative to the working folder, with forward slashes. */
export function keyPath(file: string): string {
  return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join('/');
}

const keyOf = (k: FindingKey) => `${k.file}\u0000${k.rule}\u0000${k.context}`;

/** The keys a baseline holds, counted. */
export class Baseline {
  private readonly counts = new Map<string, number>();

  constructor(keys: Iterable<FindingKey>) {
    for (const k of keys) this.counts.set(keyOf(k), (this.counts.get(keyOf(k)) ?? 0) + 1);
  }

  /** Whether `k` is new: true once the baseline's own findings with its key are used up. */
  isNew(k: FindingKey): boolean {
    const key = keyOf(k);
    const left = this.counts.get(key) ?? 0;
    if (left === 0) return true;
    this.counts.set(key, left - 1);
    return false;
  }
}

const JsonFinding = z.object({ file: z.string(), rule: z.string(), context: z.string() });

/** An earlier `draftsmith check --json` output's findings. */
export function readJsonBaseline(file: string): FindingKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EngineError('bad-request', `--baseline: ${file} is not JSON (${errorMessage(e)})`);
  }
  const r = z.array(JsonFinding).safeParse(parsed);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new EngineError(
      'bad-request',
      `--baseline: ${file} is not the output of draftsmith check --json ` +
        `(${issue ? `at ${issue.path.join('.')}: ${issue.message}` : 'not a list'})`,
    );
  }
  return r.data.map((f) => ({ file: keyPath(f.file), rule: f.rule, context: f.context }));
}

/** Whether REF names a JSON file (else it is a git revision). */
export function isJsonBaseline(ref: string): boolean {
  return existsSync(ref) && statSync(ref).isFile();
}

/** Reads files as they were at a git revision. */
export class GitRevision {
  private readonly root: string;

  constructor(private readonly rev: string) {
    try {
      this.root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8', stdio: 'pipe' }).trim();
      execFileSync('git', ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { stdio: 'pipe' });
    } catch {
      throw new EngineError(
        'bad-request',
        `--baseline: "${rev}" is neither a file nor a git revision of the repository here`,
      );
    }
  }

  /** The file's text at the revision; undefined when it did not exist there. */
  read(file: string): string | undefined {
    const inRepo = path.relative(this.root, path.resolve(file)).split(path.sep).join('/');
    try {
      return execFileSync('git', ['show', `${this.rev}:${inRepo}`], {
        cwd: this.root,
        encoding: 'utf8',
        stdio: 'pipe',
        maxBuffer: 256 * 1024 * 1024,
      });
    } catch {
      return undefined;
    }
  }
}
