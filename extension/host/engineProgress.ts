/**
 * One engine request under a cancellable progress notification, and the user-facing handling of its
 * failure. Shared by every command that asks the engine for something.
 */
import * as vscode from 'vscode';
import type { EngineRequest, ResultFor } from '../protocol';
import { Ctx } from './context';
import { EngineError } from './engineClient';
import { showModelFailure } from './notices';
import { readTimeLimitMs, type ChosenModel } from './settings';

export type Failure = { kind: 'cancelled' } | { kind: 'error'; message: string };

/**
 * Sends `request` while a notification titled `title` shows the worker's progress messages. Its
 * Cancel button and the caller's `token` (the test API's) both cancel. Rejects with the engine's
 * error, an EngineError of code 'cancelled' on cancel, or 'time-limit' past draftsmith.maxSecondsPerRequest.
 * `onPartial` gets the text generated so far, as the engine streams it.
 */
export function requestWithProgress<R extends EngineRequest>(
  ctx: Ctx,
  title: string,
  request: R,
  token?: vscode.CancellationToken,
  onPartial?: (text: string) => void,
): Promise<ResultFor<R>> {
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (progress, progressToken) => {
        let reported = 0; // percent so far; withProgress wants increments
        ctx.progressShown.length = 0;
        const timeLimitMs = readTimeLimitMs();
        return withEitherToken(progressToken, token, (combined) =>
          ctx.engine.request(request, {
            token: combined,
            timeLimitMs,
            onPartial,
            onProgress: (message, fraction) => {
              let increment: number | undefined;
              if (fraction !== undefined && fraction * 100 > reported) {
                increment = fraction * 100 - reported;
                reported = fraction * 100;
              }
              progress.report({ message, increment });
              if (message !== undefined && ctx.progressShown.length < 1000) ctx.progressShown.push(message);
            },
          }),
        );
      },
    ),
  );
}

/**
 * Logs a failed request and tells the user: an information message on cancel, an error otherwise.
 * `model`: the model the request ran (draftsmith.<command>.model). A model that could not be
 * downloaded ('model-unavailable'), or a chosen one whose files do not load ('bad-model'), gets an
 * error that offers the built-in model and the log (notices.ts's showModelFailure).
 */
export function reportFailure(
  ctx: Ctx,
  what: string,
  err: unknown,
  cancelledMessage: string,
  model?: ChosenModel,
): Failure {
  if (err instanceof EngineError && err.code === 'cancelled') {
    ctx.log.info(`${what}: cancelled`);
    void vscode.window.showInformationMessage(cancelledMessage);
    return { kind: 'cancelled' };
  }
  const message = err instanceof Error ? err.message : String(err);
  ctx.log.error(`${what} failed${err instanceof EngineError ? ` (${err.code})` : ''}: ${message}`);
  const chosen = model !== undefined && model.choice.kind !== 'built-in';
  if (err instanceof EngineError && (err.code === 'model-unavailable' || (err.code === 'bad-model' && chosen))) {
    showModelFailure(ctx, message, model);
    return { kind: 'error', message };
  }
  void vscode.window.showErrorMessage(`Draftsmith: ${message}`);
  return { kind: 'error', message };
}

/** Runs `work` with a token that fires when either the notification's Cancel or the caller's token fires. */
async function withEitherToken<T>(
  a: vscode.CancellationToken,
  b: vscode.CancellationToken | undefined,
  work: (token: vscode.CancellationToken) => Promise<T>,
): Promise<T> {
  if (!b) return work(a);
  const source = new vscode.CancellationTokenSource();
  const links = [a, b].map((t) => t.onCancellationRequested(() => source.cancel()));
  if (a.isCancellationRequested || b.isCancellationRequested) source.cancel();
  try {
    return await work(source.token);
  } finally {
    for (const link of links) link.dispose();
    source.dispose();
  }
}
