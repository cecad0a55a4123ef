/**
 * Round-Trip Paragraph's diff documents and the reconstructions waiting for Apply. The diff's two
 * sides are read-only virtual documents (the editor lets no one type into a TextDocumentContentProvider's) with one
 * sentence per line, so a changed sentence is one changed line.
 */
import * as vscode from 'vscode';
import type { RoundTripResult } from '../protocol';
import type { Changed } from './edits';

export const ROUNDTRIP_SCHEME = 'draftsmith-roundtrip';
/** True while some reconstruction can be applied (the command palette shows Apply only then). */
const PENDING_CONTEXT = 'draftsmith.roundTripPending';

export type ApplyOutcome =
  | { kind: 'applied'; text: string }
  | { kind: 'nothing'; message: string }
  | { kind: 'error'; message: string }
  | Changed;

/** A reconstruction shown in a diff, waiting for the user's Apply. */
export interface PendingRoundTrip {
  readonly id: number;
  readonly result: RoundTripResult;
  /** The diff's two read-only documents. */
  readonly originalUri: vscode.Uri;
  readonly reconstructionUri: vscode.Uri;
  /** What Apply writes over `range`. */
  readonly text: string;
  readonly range: vscode.Range;
  apply(): Promise<ApplyOutcome>;
}

/** One sentence per line: what the diff compares, so a changed sentence is one changed line. */
const sentenceLines = (sentences: readonly string[]) => `${sentences.join('\n')}\n`;

/**
 * The diff's documents (read-only in the editor: a content provider's documents take no typing) and
 * the reconstructions waiting to be applied, by id. Owned by the Ctx.
 */
export class RoundTrips implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private nextId = 1;
  private readonly pending = new Map<number, PendingRoundTrip>();
  private readonly contents = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.disposables.push(vscode.workspace.registerTextDocumentContentProvider(ROUNDTRIP_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  newId(): number {
    return this.nextId++;
  }

  /** Registers the diff's two documents for a round trip. */
  documents(id: number, result: RoundTripResult): { originalUri: vscode.Uri; reconstructionUri: vscode.Uri } {
    // The path ends in the file name the diff tabs show; the id keeps round trips apart.
    const originalUri = vscode.Uri.from({ scheme: ROUNDTRIP_SCHEME, path: `/${id}/original` });
    const reconstructionUri = vscode.Uri.from({ scheme: ROUNDTRIP_SCHEME, path: `/${id}/reconstruction` });
    this.contents.set(originalUri.toString(), sentenceLines(result.input.map((s) => s.text)));
    this.contents.set(reconstructionUri.toString(), sentenceLines(result.output.map((s) => s.text)));
    return { originalUri, reconstructionUri };
  }

  add(p: PendingRoundTrip): void {
    this.pending.set(p.id, p);
    void vscode.commands.executeCommand('setContext', PENDING_CONTEXT, true);
  }

  remove(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) void vscode.commands.executeCommand('setContext', PENDING_CONTEXT, false);
  }

  /** The round trip a diff document belongs to, or else the latest one. */
  find(uri?: vscode.Uri): PendingRoundTrip | undefined {
    if (uri?.scheme === ROUNDTRIP_SCHEME) {
      const id = Number(uri.path.split('/')[1]);
      return this.pending.get(id);
    }
    return [...this.pending.values()].at(-1);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.pending.clear();
    this.contents.clear();
  }
}
