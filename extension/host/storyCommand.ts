/**
 * Continue Story and Write a Premise (hierarchical story generation with fusion, Fan et al. 2018).
 *
 * Continue Story: the story so far (the selection, or the text before the cursor) goes to the
 * engine under a cancellable progress notification, and the continuation is written into the
 * editor after it as the model samples it, token by token: ONE undo step for the whole of it
 * (streamedInsertion.ts). Stop (the notification's Cancel) keeps what was written. With no prompt
 * at all, the premise model first writes one (the paper's hierarchical first step) and the story
 * continues it, all in the same undo step.
 *
 * Write a Premise: the premise alone, at the cursor, as a paragraph of its own.
 *
 * The commands and the test API share continueStory() and writePremise().
 */
import * as vscode from 'vscode';
import { hasReadableText } from '../engine/text/reader';
import { countWords } from '../engine/text/words';
import { PremiseResult, StoryResult } from '../protocol';
import { Ctx } from './context';
import { Offer, OPEN_IN_NEW_EDITOR, offerInNewEditor } from './edits';
import { reportFailure, requestWithProgress } from './engineProgress';
import { EngineError } from './engineClient';
import { reportMaxLength } from './notices';
import { chosenModel, modelField } from './chosenModel';
import { MAX_LENGTH_SETTING, readDecodingGuards, readStoryOptions, type ChosenModel } from './settings';
import { StreamedInsertion } from './streamedInsertion';
import { hintInlineOnce } from './inlineProvider';
import { toPanel } from '../panelViews';
import { describeModelChoice } from '../modelChoice';

/** What every story command can end in besides its own success. `text`: what it wrote, which stays. */
type Unfinished =
  /** Stop (Cancel): the text written so far stays. */
  | { kind: 'stopped'; text: string; message: string }
  /** The writer edited the streamed text: streaming into the document stopped; the rest is offered. */
  | { kind: 'changed'; text: string; message: string; offer: Offer }
  | { kind: 'error'; text: string; message: string };

export type StoryOutcome =
  /** `text`: everything written (a separating space, the premise when one was written first, the story). */
  { kind: 'inserted'; text: string; premise: string | undefined; result: StoryResult; notices: string[] } | Unfinished;

export type PremiseOutcome = { kind: 'inserted'; text: string; result: PremiseResult } | Unfinished;

export const STORY_CHANGED = `Draftsmith: you edited the text being written, so Draftsmith stopped writing into it; your text is as you left it. ${OPEN_IN_NEW_EDITOR} shows the rest.`;

function stoppedMessage(text: string): string {
  const words = countWords(text);
  return words === 0
    ? 'Draftsmith: stopped before any text was written.'
    : `Draftsmith: stopped; the ${words} word${words === 1 ? '' : 's'} written so far stay${words === 1 ? 's' : ''} (one Undo removes them).`;
}

/**
 * Turns the engine's partial texts (each the whole text so far) into pieces for the stream; `lead`
 * goes before the first piece (a space after a word, a blank line before a new paragraph).
 */
function streamWriter(stream: StreamedInsertion, lead: string) {
  let received = '';
  let prefix = lead;
  const put = (piece: string) => {
    if (!piece) return;
    stream.append(prefix + piece);
    prefix = '';
  };
  return {
    partial(text: string): void {
      if (!text.startsWith(received)) return;
      put(text.slice(received.length));
      received = text;
    },
    /** The whole text came with the result: writes what the partial texts had not, then `after`; the next text starts afresh. */
    done(text: string, after = ''): void {
      if (text.startsWith(received)) put(text.slice(received.length));
      put(after);
      received = '';
    },
  };
}

/** A space after a word; nothing at the start of the document or after whitespace. */
function spaceBefore(doc: vscode.TextDocument, position: vscode.Position): string {
  const offset = doc.offsetAt(position);
  if (offset === 0) return '';
  return /\s/.test(doc.getText(new vscode.Range(doc.positionAt(offset - 1), position))) ? '' : ' ';
}

/** A blank line before a paragraph that starts after text on the cursor's line. */
function paragraphBefore(doc: vscode.TextDocument, position: vscode.Position): string {
  return doc.lineAt(position.line).text.slice(0, position.character).trim() ? '\n\n' : '';
}

/**
 * Ends a stream after a failure: writes what was received (Stop keeps it), and tells the user
 * what happened and that the text written stays.
 */
async function unfinished(
  ctx: Ctx,
  what: string,
  stream: StreamedInsertion,
  err: unknown,
  language: string,
  model: ChosenModel,
): Promise<Unfinished> {
  const text = await stream.finish();
  if (err instanceof EngineError && err.code === 'cancelled') {
    const message = stoppedMessage(text);
    ctx.log.info(`${what}: stopped after ${text.length} characters`);
    void vscode.window.showInformationMessage(message);
    return { kind: 'stopped', text, message };
  }
  if (stream.interrupted) return changed(ctx, what, stream, language);
  const failure = reportFailure(ctx, what, err, '', model);
  const message = failure.kind === 'error' ? failure.message : String(err);
  return { kind: 'error', text, message };
}

/** draftsmith.story.model: the chosen model, or the command's end with the setting's message. */
function storyModel(ctx: Ctx, what: string): ChosenModel | Unfinished {
  const model = chosenModel(ctx, 'story.model', what);
  return 'error' in model ? { kind: 'error', text: '', message: model.error } : model;
}

function changed(ctx: Ctx, what: string, stream: StreamedInsertion, language: string): Unfinished {
  ctx.log.warn(
    `${what}: the writer edited the streamed text; ${stream.text.length} characters written, ${stream.held.length} offered`,
  );
  const offer = offerInNewEditor(stream.held, language);
  void vscode.window.showWarningMessage(STORY_CHANGED, OPEN_IN_NEW_EDITOR).then((choice) => {
    if (choice === OPEN_IN_NEW_EDITOR)
      offer.open().catch((e: unknown) => ctx.log.error(`${what}: could not open the rest: ${String(e)}`));
  });
  return { kind: 'changed', text: stream.text, message: STORY_CHANGED, offer };
}

export async function continueStory(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
): Promise<StoryOutcome> {
  const started = performance.now();
  const doc = editor.document;
  const selection = editor.selection;
  const position = selection.isEmpty ? selection.active : selection.end;
  // The story so far: the selection (a writing prompt), or everything before the cursor.
  const prompt = doc.getText(selection.isEmpty ? new vscode.Range(new vscode.Position(0, 0), position) : selection);
  const options = readStoryOptions();
  const model = storyModel(ctx, 'story');
  if ('kind' in model) return model;
  const stream = new StreamedInsertion(editor, position, ctx.log);
  const hasPrompt = hasReadableText(prompt);
  const writer = streamWriter(stream, hasPrompt ? spaceBefore(doc, position) : paragraphBefore(doc, position));
  let firstText: number | undefined;
  const onPartial = (text: string) => {
    firstText ??= performance.now() - started;
    writer.partial(text);
  };
  ctx.log.info(
    `story: ${hasPrompt ? `${prompt.length} characters of prompt` : 'no prompt: a premise first'} from ${doc.uri.toString(true)}, ${options.words} words, ${describeModelChoice(model.choice)}`,
  );
  let premise: string | undefined;
  let result: StoryResult;
  try {
    let source = prompt;
    if (!hasPrompt) {
      // The hierarchical first step (section 3.1): a premise to write the story from.
      const p = await requestWithProgress(
        ctx,
        'Draftsmith: Writing a premise…',
        { op: 'premise', sampling: options.sampling, guards: readDecodingGuards(), ...modelField(model) },
        token,
        onPartial,
      );
      writer.done(p.premise, '\n\n');
      premise = p.premise;
      source = p.premise;
    }
    result = await requestWithProgress(
      ctx,
      'Draftsmith: Continuing the story…',
      {
        op: 'story',
        prompt: source,
        words: options.words,
        sampling: options.sampling,
        guards: readDecodingGuards(),
        ...modelField(model),
      },
      token,
      onPartial,
    );
    writer.done(result.continuation);
  } catch (err) {
    return unfinished(ctx, 'story', stream, err, doc.languageId, model);
  }
  const text = await stream.finish();
  // Shown in the panel if it is open (the fusion gates over the words), whether or not all was written.
  ctx.present(toPanel(result), false);
  if (stream.interrupted) return changed(ctx, 'story', stream, doc.languageId);
  // An insertion at the selection's end extends it over the story; keep the prompt selected instead.
  if (!selection.isEmpty && vscode.window.visibleTextEditors.includes(editor)) editor.selection = selection;

  const s = result.stats;
  ctx.log.info(
    `story: wrote ${result.wordCount} words (${s.outputTokens} tokens, ended by ${result.endedBy}) in ${Math.round(performance.now() - started)} ms, ` +
      `first text after ${Math.round(firstText ?? 0)} ms (encode ${Math.round(s.encodeMs)} ms, ${s.tokensPerSecond.toFixed(1)} tokens/s, ${s.device}, ${s.model}, seed ${result.sampling.seed})`,
  );
  const notices: string[] = [];
  if (result.truncated) {
    const message = `Draftsmith: the story so far is longer than the model reads (${s.usedInputTokens} tokens); it continued from the last ${result.promptChars - result.usedFrom} of ${result.promptChars} characters.`;
    notices.push(message);
    void vscode.window.showInformationMessage(message);
  }
  reportMaxLength(ctx, 'story', 'story', result.hitMaxLength, MAX_LENGTH_SETTING.story, notices);
  // Once, after the first story written: inline suggestions exist.
  hintInlineOnce(ctx);
  return { kind: 'inserted', text, premise, result, notices };
}

export async function writePremise(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
): Promise<PremiseOutcome> {
  const doc = editor.document;
  const position = editor.selection.isEmpty ? editor.selection.active : editor.selection.end;
  const options = readStoryOptions();
  const model = storyModel(ctx, 'premise');
  if ('kind' in model) return model;
  const stream = new StreamedInsertion(editor, position, ctx.log);
  const writer = streamWriter(stream, paragraphBefore(doc, position));
  let result: PremiseResult;
  try {
    result = await requestWithProgress(
      ctx,
      'Draftsmith: Writing a premise…',
      { op: 'premise', sampling: options.sampling, guards: readDecodingGuards(), ...modelField(model) },
      token,
      (t) => writer.partial(t),
    );
    // A paragraph of its own: Continue Story at the cursor, after it, then continues this premise.
    writer.done(result.premise, '\n\n');
  } catch (err) {
    return unfinished(ctx, 'premise', stream, err, doc.languageId, model);
  }
  const text = await stream.finish();
  if (stream.interrupted) return changed(ctx, 'premise', stream, doc.languageId);
  ctx.log.info(
    `premise: ${JSON.stringify(result.premise)} (${result.stats.outputTokens} tokens, seed ${result.sampling.seed})`,
  );
  return { kind: 'inserted', text, result };
}

/** The commands: work on the active editor. */
export async function continueStoryActiveEditor(ctx: Ctx): Promise<StoryOutcome | undefined> {
  const editor = activeEditorOrSay(
    'Draftsmith: open a text document, and put the cursor after the story so far (or select a writing prompt) to continue it.',
  );
  return editor && continueStory(ctx, editor);
}

export async function writePremiseActiveEditor(ctx: Ctx): Promise<PremiseOutcome | undefined> {
  const editor = activeEditorOrSay('Draftsmith: open a text document to write a premise into.');
  return editor && writePremise(ctx, editor);
}

function activeEditorOrSay(message: string): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) void vscode.window.showErrorMessage(message);
  return editor;
}
