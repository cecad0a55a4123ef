/**
 * Ctrl+C (SIGINT) in the CLI. The first one cancels: every engine of the run watches `interrupted`
 * (EngineOptions.isCancelled), so a download aborts within a tenth of a second and removes its
 * temporary file, and decoding stops at its next step; once the command has ended (with the
 * engine's CancelledError), main prints one line and exits 130 (128 + SIGINT, as shells report it). Work
 * that watches no engine (scoring, the evaluations) is ended after GRACE_MS, and a second Ctrl+C
 * ends at once: both remove this process's unfinished downloads first.
 */
import { removeOwnTemporaries } from '../engine/hub/cacheTemporaries';

export const INTERRUPTED_EXIT = 130;
export const INTERRUPTED_LINE = 'draftsmith: interrupted (Ctrl+C); nothing unfinished was kept';
const GRACE_MS = 2000;

let interrupted = false;

/** True once Ctrl+C was pressed: what every engine of the CLI is cancelled by. */
export const isInterrupted = (): boolean => interrupted;

/** The options every engine of the CLI is made with. */
export const CLI_ENGINE = { isCancelled: isInterrupted };

/**
 * Ends the process as Ctrl+C does, once the command has ended (with the engine's CancelledError,
 * or whatever the cancel became): the one line, exit code 130.
 */
export function exitInterrupted(): never {
  removeOwnTemporaries();
  process.stderr.write(`${INTERRUPTED_LINE}\n`);
  process.exit(INTERRUPTED_EXIT);
}

export function handleInterrupt(): void {
  process.on('SIGINT', () => {
    if (interrupted) exitInterrupted();
    interrupted = true;
    // A run that watches the flag ends well before this; unref: a run that ended lets the process go.
    setTimeout(exitInterrupted, GRACE_MS).unref();
  });
}
