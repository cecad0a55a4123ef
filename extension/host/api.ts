/** What activate() returns: the extension's surface for the integration tests (and other extensions). */
import type * as vscode from 'vscode';
import type { SummarizeResult } from '../protocol';
import type { SummarizeOutcome } from './summarizeCommand';

export type { SummarizeOutcome };

export interface DraftsmithApi {
  /** The same function the Summarize Document command runs, on the given editor. */
  summarize(editor: vscode.TextEditor, token?: vscode.CancellationToken): Promise<SummarizeOutcome>;
  lastResult(): SummarizeResult | undefined;
  engine: {
    restart(): void;
    /** Terminates the worker as a crash would (the client is not told first). */
    crashForTest(): void;
    /** Requests sent to the worker and not yet answered. */
    inFlight(): number;
  };
}
