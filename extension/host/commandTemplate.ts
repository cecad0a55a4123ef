/**
 * The template every generating command follows (Summarize Document, Summarize Sections, Expand
 * Topic Words into Essay, Continue Story, Write a Premise, Round-Trip Paragraph, Suggest Replies):
 * the active editor, the text the command works on (or why there is none), the model its setting
 * chooses, engine requests under a cancellable progress notification with their failures reported
 * alike, and the result written only while the document is still at the version the text was read
 * from. A command supplies what differs (a GeneratingCommand and its work); the rest is here once.
 */
import * as vscode from 'vscode';
import type { EngineRequest, ResultFor } from '../protocol';
import { chosenModel } from './chosenModel';
import type { Ctx } from './context';
import { writeUnlessChanged, type Insertion } from './edits';
import { reportFailure, requestWithProgress } from './engineProgress';
import type { ChosenModel, ModelSettingKey } from './settings';

export type Empty = { kind: 'empty'; message: string };
/** How a command ends before its own outcome: nothing to work on, a setting it cannot use, a failed request. */
export type Ended = Empty | { kind: 'cancelled' } | { kind: 'error'; message: string };

type ModelKey = ModelSettingKey | undefined;

export interface GeneratingCommand<S extends object, K extends ModelKey = undefined> {
  /** Log prefix: the command's short name. */
  readonly op: string;
  /** Said when no editor is active (the command palette's entry only). */
  readonly noEditor: string;
  /** Said when the user cancels a request. */
  readonly cancelled: string;
  /** The setting that chooses the model (draftsmith.<key>), for the commands that have one. */
  readonly model: K;
  /** The text the command works on, read from the editor; a string: why there is none. */
  source(editor: vscode.TextEditor): S | string;
  /** Whether the command works in this editor; `noEditor` is said otherwise. */
  accepts?(editor: vscode.TextEditor): boolean;
}

/** What a command's work gets: the source, the model, and the request and write guarded alike. */
export interface Run<S, K extends ModelKey> {
  readonly ctx: Ctx;
  readonly editor: vscode.TextEditor;
  readonly source: S;
  /** The document's version when the source was read. */
  readonly version: number;
  readonly model: K extends ModelSettingKey ? ChosenModel : undefined;
  /** performance.now() when the command started, for the log. */
  readonly started: number;
  readonly token: vscode.CancellationToken | undefined;
  /**
   * One request under a progress notification titled `title`; its failure (Cancel included) ends
   * the command through reportFailure unless the work catches it (requestError gives the cause).
   */
  request<R extends EngineRequest>(
    title: string,
    request: R,
    onPartial?: (text: string) => void,
  ): Promise<ResultFor<R>>;
  /**
   * Writes `text` at a position or over a range as one undo step, unless the document changed since the
   * source was read.
   */
  write(at: vscode.Position | vscode.Range, text: string, what: string, changed?: string): Promise<Insertion>;
}

/** A request's failure, kept apart from the work's own exceptions, which are not the engine's to report. */
class RequestFailed extends Error {
  constructor(readonly error: unknown) {
    super(error instanceof Error ? error.message : String(error));
  }
}

/** The engine's error behind a failed run.request(); anything else as it is. */
export function requestError(err: unknown): unknown {
  return err instanceof RequestFailed ? err.error : err;
}

/** Runs `work` on `editor`: the prologue and the failure handling every generating command shares. */
export async function generate<S extends object, K extends ModelKey, O>(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token: vscode.CancellationToken | undefined,
  command: GeneratingCommand<S, K>,
  work: (run: Run<S, K>) => Promise<O>,
): Promise<O | Ended> {
  const started = performance.now();
  const source = command.source(editor);
  if (typeof source === 'string') {
    void vscode.window.showErrorMessage(source);
    return { kind: 'empty', message: source };
  }
  const version = editor.document.version;
  let model: ChosenModel | undefined;
  if (command.model !== undefined) {
    const chosen = chosenModel(ctx, command.model, command.op);
    if ('error' in chosen) return { kind: 'error', message: chosen.error };
    model = chosen;
  }
  const run: Run<S, K> = {
    ctx,
    editor,
    source,
    version,
    model: model as Run<S, K>['model'],
    started,
    token,
    request: (title, request, onPartial) =>
      requestWithProgress(ctx, title, request, token, onPartial).catch((err: unknown) => {
        throw new RequestFailed(err);
      }),
    write: (at, text, what, changed) =>
      writeUnlessChanged({ log: ctx.log, op: command.op, what, editor, version, at, text, changed }),
  };
  try {
    return await work(run);
  } catch (err) {
    if (err instanceof RequestFailed) return reportFailure(ctx, command.op, err.error, command.cancelled, model);
    throw err;
  }
}

/** The command palette's entry: the active editor, or the command's message saying what to open. */
export async function onActiveEditor<O>(
  command: Pick<GeneratingCommand<object, ModelKey>, 'noEditor' | 'accepts'>,
  work: (editor: vscode.TextEditor) => Promise<O>,
): Promise<O | { kind: 'error'; message: string }> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || (command.accepts && !command.accepts(editor))) {
    void vscode.window.showErrorMessage(command.noEditor);
    return { kind: 'error', message: command.noEditor };
  }
  return work(editor);
}
