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
import { hasReadableText, countWords } from '../engine/public';
import { PremiseResult, StoryResult } from '../protocol';
import { Ctx } from './context';
import { generate, requestError, type Ended, type GeneratingCommand } from './commandTemplate';
import { Offer, OPEN_IN_NEW_EDITOR, offerInstead } from './edits';
import { reportFailure } from './engineProgress';
import { EngineError } from './engineClient';
import { reportMaxLength } from './notices';
import { modelField } from './chosenModel';
import { MAX_LENGTH_SETTING, readDecodingGuards, readStoryOptions, type ChosenModel } from './settings';
import { StreamedInsertion } from './streamedInsertion';
import { hintInlineOnce } from './inlineProvider';
import { toPanel } from '../panelViews';
import { describeModelChoice } from '../modelChoice';
import { STORY_CHOOSE, storyCutNote } from '../windowNotes';

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

export const STORY_CHANGED =
  `Draftsmith: you edited the text being written, so Draftsmith stopped writing into it; your text is as you ` +
  `left it. ${OPEN_IN_NEW_EDITOR} shows the rest.`;
export const STORY_CLOSED =
  `Draftsmith: the document was closed while the text was being ` + `written. ${OPEN_IN_NEW_EDITOR} shows all of it.`;

function stoppedMessage(text: string): string {
  const words = countWords(text);
  return words === 0
    ? 'Draftsmith: stopped before any text was written.'
    : `Draftsmith: stopped; the ${words} word${words === 1 ? '' : 's'} written so far ` +
        `stay${words === 1 ? 's' : ''} (one Undo removes them).`;
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
    /**
     * The whole text came with the result: writes what the partial texts had not, then `after`; the
     * next text starts afresh.
     */
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

/**
 * The template's own ends (the model setting it cannot use: the stories have no empty source, and
 * their requests' failures are handled here) as a story command's: nothing was written.
 */
function nothingWritten<O extends { text: string }>(outcome: O | Ended): O | Unfinished {
  if ('text' in outcome) return outcome;
  return { kind: 'error', text: '', message: 'message' in outcome ? outcome.message : '' };
}

function changed(ctx: Ctx, what: string, stream: StreamedInsertion, language: string): Unfinished {
  // A closed document took what was written with it: all of the text is offered.
  const closed = stream.closed;
  const offered = closed ? stream.text + stream.held : stream.held;
  ctx.log.warn(
    `${what}: ${closed ? 'the document was closed' : 'the writer edited the streamed text'}; ` +
      `${stream.text.length} characters written, ${offered.length} offered`,
  );
  const { message, offer } = offerInstead(
    ctx.log,
    what,
    closed ? 'text' : 'rest',
    offered,
    language,
    closed ? STORY_CLOSED : STORY_CHANGED,
  );
  return { kind: 'changed', text: stream.text, message, offer };
}

/** Where the text goes: after the selection, or at the cursor. */
function insertionPoint(editor: vscode.TextEditor): vscode.Position {
  return editor.selection.isEmpty ? editor.selection.active : editor.selection.end;
}

export const CONTINUE_STORY: GeneratingCommand<{ position: vscode.Position; prompt: string }, 'story.model'> = {
  op: 'story',
  noEditor:
    'Draftsmith: open a text document, and put the cursor after the story so far (or select a writing prompt) ' +
    'to continue it.',
  // Unused: Stop keeps the text written, so the stories handle their requests' failures themselves.
  cancelled: '',
  model: 'story.model',
  source(editor) {
    const position = insertionPoint(editor);
    const selection = editor.selection;
    // The story so far: the selection (a writing prompt), or everything before the cursor.
    const prompt = editor.document.getText(
      selection.isEmpty ? new vscode.Range(new vscode.Position(0, 0), position) : selection,
    );
    return { position, prompt };
  },
};

export const WRITE_PREMISE: GeneratingCommand<{ position: vscode.Position }, 'story.model'> = {
  op: 'premise',
  noEditor: 'Draftsmith: open a text document to write a premise into.',
  cancelled: '',
  model: 'story.model',
  source: (editor) => ({ position: insertionPoint(editor) }),
};

export async function continueStory(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
): Promise<StoryOutcome> {
  const outcome = await generate(ctx, editor, token, CONTINUE_STORY, async (run): Promise<StoryOutcome> => {
    const { position, prompt } = run.source;
    const { started, model } = run;
    const doc = editor.document;
    const selection = editor.selection;
    const options = readStoryOptions();
    const stream = new StreamedInsertion(editor, position, ctx.log);
    const hasPrompt = hasReadableText(prompt);
    const writer = streamWriter(stream, hasPrompt ? spaceBefore(doc, position) : paragraphBefore(doc, position));
    let firstText: number | undefined;
    const onPartial = (text: string) => {
      firstText ??= performance.now() - started;
      writer.partial(text);
    };
    ctx.log.info(
      `story: ${hasPrompt ? `${prompt.length} characters of prompt` : 'no prompt: a premise first'} from ` +
        `${doc.uri.toString(true)}, ${options.words} words, ${describeModelChoice(model.choice)}`,
    );
    let premise: string | undefined;
    let result: StoryResult;
    try {
      let source = prompt;
      if (!hasPrompt) {
        // The hierarchical first step (section 3.1): a premise to write the story from.
        const p = await run.request(
          'Draftsmith: Writing a premise…',
          { op: 'premise', sampling: options.sampling, guards: readDecodingGuards(), ...modelField(model) },
          onPartial,
        );
        writer.done(p.premise, '\n\n');
        premise = p.premise;
        source = p.premise;
      }
      result = await run.request(
        'Draftsmith: Continuing the story…',
        {
          op: 'story',
          prompt: source,
          words: options.words,
          sampling: options.sampling,
          guards: readDecodingGuards(),
          ...modelField(model),
        },
        onPartial,
      );
      writer.done(result.continuation);
    } catch (err) {
      return unfinished(ctx, 'story', stream, requestError(err), doc.languageId, model);
    }
    const text = await stream.finish();
    // Shown in the panel if it is open (the fusion gates over the words), whether or not all was written.
    ctx.present(toPanel(result), false);
    if (stream.interrupted) return changed(ctx, 'story', stream, doc.languageId);
    // An insertion at the selection's end extends it over the story; keep the prompt selected instead.
    if (!selection.isEmpty && vscode.window.visibleTextEditors.includes(editor)) editor.selection = selection;

    const s = result.stats;
    ctx.log.info(
      `story: wrote ${result.wordCount} words (${s.outputTokens} tokens, ended by ${result.endedBy}) in ` +
        `${Math.round(performance.now() - started)} ms, ` +
        (`first text after ${Math.round(firstText ?? 0)} ms (encode ${Math.round(s.encodeMs)} ms, ` +
          `${s.tokensPerSecond.toFixed(1)} tokens/s, ${s.device}, ${s.model}, seed ${result.sampling.seed})`),
    );
    const notices: string[] = [];
    const cut = storyCutNote(result, s.usedInputTokens);
    if (cut) {
      const message = `Draftsmith: ${cut}. ${STORY_CHOOSE.editor}`;
      notices.push(message);
      ctx.log.info(`story: ${cut}`);
      // The part read, as it lies in the document now (the story was written after it).
      const start = doc.offsetAt(selection.isEmpty ? new vscode.Position(0, 0) : selection.start) + result.usedFrom;
      const read = new vscode.Range(doc.positionAt(start), doc.positionAt(start + result.usedPrompt.length));
      // A premise the model wrote first is not in the document before the story: nothing there to select.
      const buttons = hasPrompt ? [SELECT_WHAT_IT_READ] : [];
      void vscode.window.showInformationMessage(message, ...buttons).then((choice) => {
        if (choice === SELECT_WHAT_IT_READ) void selectWhatItRead(ctx, doc, read, result.usedPrompt);
      });
    }
    reportMaxLength(ctx, 'story', 'story', result.hitMaxLength, MAX_LENGTH_SETTING.story, notices);
    // Once, after the first story written: inline suggestions exist.
    hintInlineOnce(ctx);
    return { kind: 'inserted', text, premise, result, notices };
  });
  return nothingWritten(outcome);
}

/** The notification's button that selects the part of the story the model read. */
export const SELECT_WHAT_IT_READ = 'Select What It Read';

/** Selects `range` in `doc` when it still holds `text` (the writer may have edited since); says so otherwise. */
async function selectWhatItRead(ctx: Ctx, doc: vscode.TextDocument, range: vscode.Range, text: string): Promise<void> {
  if (doc.isClosed || doc.getText(range) !== text) {
    void vscode.window.showInformationMessage(
      'Draftsmith: the text the story was continued from has changed since, so it cannot be selected.',
    );
    return;
  }
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  editor.selection = new vscode.Selection(range.start, range.end);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  ctx.log.info(`story: selected the ${text.length} characters the model read`);
}

export async function writePremise(
  ctx: Ctx,
  editor: vscode.TextEditor,
  token?: vscode.CancellationToken,
): Promise<PremiseOutcome> {
  const outcome = await generate(ctx, editor, token, WRITE_PREMISE, async (run): Promise<PremiseOutcome> => {
    const { position } = run.source;
    const doc = editor.document;
    const options = readStoryOptions();
    const stream = new StreamedInsertion(editor, position, ctx.log);
    const writer = streamWriter(stream, paragraphBefore(doc, position));
    let result: PremiseResult;
    try {
      result = await run.request(
        'Draftsmith: Writing a premise…',
        { op: 'premise', sampling: options.sampling, guards: readDecodingGuards(), ...modelField(run.model) },
        (t) => writer.partial(t),
      );
      // A paragraph of its own: Continue Story at the cursor, after it, then continues this premise.
      writer.done(result.premise, '\n\n');
    } catch (err) {
      return unfinished(ctx, 'premise', stream, requestError(err), doc.languageId, run.model);
    }
    const text = await stream.finish();
    if (stream.interrupted) return changed(ctx, 'premise', stream, doc.languageId);
    ctx.log.info(
      `premise: ${JSON.stringify(result.premise)} (${result.stats.outputTokens} tokens, seed ${result.sampling.seed})`,
    );
    return { kind: 'inserted', text, result };
  });
  return nothingWritten(outcome);
}
