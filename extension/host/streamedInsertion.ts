/**
 * Text written into a document while the engine streams it (Continue Story, Write a Premise):
 * every piece is appended after the pieces before it, and the whole of it is ONE undo step: the
 * first edit opens an undo stop before it, the later ones add none, and the last one closes it
 * (the newest piece is held back until the next arrives, so that there is a last edit to close with).
 *
 * The writer may go on editing meanwhile. The place the text goes is tracked through every change
 * to the document: an edit elsewhere (before the streamed text, or anywhere after its end) moves it
 * and streaming goes on there; an edit that touches the streamed text (inside it, or at its end,
 * where the next piece would go) stops the streaming, so nothing the writer typed is written over
 * or interleaved, and what was not written is kept as `held` for the caller to offer.
 */
import * as vscode from 'vscode';

export class StreamedInsertion implements vscode.Disposable {
  private readonly doc: vscode.TextDocument;
  /** Offset of the streamed text's first character. */
  private start: number;
  private written = '';
  /** Received and not yet written; the last piece waits for the next one (or finish). */
  private queue: string[] = [];
  private rest = '';
  /**
   * The end of the last piece, held back when it may be half of something the next piece completes:
   * a CR (of a CR LF) or the first half of a surrogate pair. Written alone, VS Code would store a line
   * break or U+FFFD instead, and the change would not be recognised as ours.
   */
  private carry = '';
  private touched = false;
  private firstEdit = true;
  /** Our own edit in flight, to tell its change event from the writer's. */
  private pending: { offset: number; text: string } | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly editor: vscode.TextEditor,
    position: vscode.Position,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.doc = editor.document;
    this.start = this.doc.offsetAt(position);
    this.subscription = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document === this.doc) this.onChange(e.contentChanges);
    });
  }

  /** The text written into the document so far. */
  get text(): string {
    return this.written;
  }

  /** What was not written because the writer edited the streamed text: the caller offers it. */
  get held(): string {
    return this.rest;
  }

  /** True when the document was closed under the streaming: what was written went with it. */
  get closed(): boolean {
    return this.doc.isClosed;
  }

  /** True once an edit of the writer's touched the streamed text (streaming into the document stopped). */
  get interrupted(): boolean {
    return this.touched;
  }

  /** Where the streamed text ends now. */
  get end(): vscode.Position {
    return this.doc.positionAt(this.start + this.written.length);
  }

  append(piece: string): void {
    if (!piece) return;
    let text = this.carry + piece;
    const last = text.charCodeAt(text.length - 1);
    const split = text.endsWith('\r') || (last >= 0xd800 && last <= 0xdbff);
    this.carry = split ? text.slice(-1) : '';
    if (split) text = text.slice(0, -1);
    if (!text) return;
    this.queue.push(this.asStored(text));
    // All but the newest piece: it waits, so that finish() has an edit to close the undo step with.
    this.schedule(false);
  }

  /**
   * Text as the document stores it, so that the change event of our edit is recognised as ours: every
   * line break (CR LF, a lone CR or LF) in the document's own, a lone surrogate as U+FFFD.
   */
  private asStored(text: string): string {
    return text
      .replace(/\r\n|\r|\n/g, this.doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n')
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  }

  /** Writes everything received (closing the undo step) and stops listening; resolves with the text written. */
  async finish(): Promise<string> {
    if (this.carry) this.queue.push(this.asStored(this.carry));
    this.carry = '';
    this.schedule(true);
    await this.writing;
    this.dispose();
    return this.written;
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private schedule(last: boolean): void {
    this.writing = this.writing
      .then(() => this.writeQueued(last))
      .catch((e: unknown) => {
        this.log.error(`streaming into the document failed: ${String(e)}`);
        this.stop();
      });
  }

  private async writeQueued(last: boolean): Promise<void> {
    let failures = 0;
    while (!this.touched && this.queue.length > (last ? 0 : 1)) {
      const count = last ? this.queue.length : this.queue.length - 1;
      const chunk = this.queue.slice(0, count).join('');
      if (await this.insert(chunk, last)) {
        this.queue.splice(0, count);
        this.written += chunk;
        failures = 0;
      } else if (++failures >= 5) {
        // Not a concurrent edit (that moves the place and is retried): the document cannot take it.
        this.log.warn(
          `streaming: the document ${this.doc.uri.toString(true)} refused an edit ${failures} times; the rest is held`,
        );
        this.stop();
      }
    }
    if (this.touched) this.stop();
  }

  /**
   * Appends at the tracked end; false when the document changed under the edit (it is then retried at the new place).
   */
  private async insert(chunk: string, closeUndo: boolean): Promise<boolean> {
    if (this.doc.isClosed) {
      this.stop();
      return false;
    }
    const offset = this.start + this.written.length;
    const position = this.doc.positionAt(offset);
    this.pending = { offset, text: chunk };
    let ok: boolean;
    const editor = this.liveEditor();
    try {
      if (editor) {
        ok = await editor.edit((b) => b.insert(position, chunk), {
          undoStopBefore: this.firstEdit,
          undoStopAfter: closeUndo,
        });
      } else {
        // No editor shows the document now: a WorkspaceEdit still writes it (as its own undo step).
        const edit = new vscode.WorkspaceEdit();
        edit.insert(this.doc.uri, position, chunk);
        ok = await vscode.workspace.applyEdit(edit);
      }
    } catch {
      ok = false; // the editor was disposed between the check and the edit
    }
    if (!ok) this.pending = undefined;
    else this.firstEdit = false;
    return ok;
  }

  /** The editor the text was asked for, or another one showing the same document (the undo stack is the document's). */
  private liveEditor(): vscode.TextEditor | undefined {
    const visible = vscode.window.visibleTextEditors;
    return visible.includes(this.editor) ? this.editor : visible.find((e) => e.document === this.doc);
  }

  private onChange(changes: readonly vscode.TextDocumentContentChangeEvent[]): void {
    const end = this.start + this.written.length;
    let shift = 0;
    for (const c of changes) {
      const p = this.pending;
      if (p && c.rangeOffset === p.offset && c.rangeLength === 0 && c.text === p.text) {
        this.pending = undefined; // our own piece
        continue;
      }
      const from = c.rangeOffset;
      const to = c.rangeOffset + c.rangeLength;
      if (to <= this.start) {
        shift += c.text.length - c.rangeLength; // before the streamed text (or typed where it is to begin): it moves
      } else if (from > end || (this.written === '' && from >= end)) {
        // after it (nothing written yet: anything from the insertion point on): nothing moves
      } else {
        // inside the streamed text, or at its end where the next piece would go
        this.log.info(
          `streaming: the document was edited at offset ${from}, in or at the end of the text being written; ` +
            `streaming stopped`,
        );
        this.touched = true;
      }
    }
    this.start += shift;
  }

  private stop(): void {
    this.touched = true;
    this.rest += this.queue.join('') + this.carry;
    this.queue = [];
    this.carry = '';
  }
}
