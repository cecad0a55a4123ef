/**
 * Draftsmith: Score Drafts in Folder. The drafts are a folder's files, each paired
 * with the file of the same name in a references folder, or a JSONL file's rows with the fields the
 * user names. Each draft is scored by the engine as Score Draft scores it (one request per draft,
 * under one progress notification whose Cancel keeps the rows done); the totals are computed here
 * from the rows (engine/eval/folderScores.ts). The panel shows a sortable table, a chart and Export
 * CSV / Export JSON, which open the export as a new document (Save As puts it anywhere).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { pickOne } from './openDialog';
import type { CorpusScores, FolderScores, FolderSort, ScoreOptions } from '../protocol';
import {
  folderResult,
  jsonlFields,
  pairFolders,
  pairJsonl,
  type Paired,
  folderCsv,
  folderJson,
} from '../engine/public';
import type { Ctx } from './context';
import { EngineError } from './engineClient';
import { readScoreOptions, readTimeLimitMs } from './settings';
import { folderPanel } from '../panelViews';

export type FolderSource =
  | { kind: 'folders'; drafts: string; references: string }
  | { kind: 'jsonl'; file: string; draftField: string; referenceField: string; nameField?: string };

export type FolderOutcome =
  { kind: 'shown'; result: FolderScores } | { kind: 'cancelled' } | { kind: 'error'; message: string };

async function pair(source: FolderSource): Promise<Paired> {
  return source.kind === 'folders'
    ? pairFolders(source.drafts, source.references)
    : pairJsonl(source.file, source.draftField, source.referenceField, source.nameField);
}

function fail(ctx: Ctx, message: string): FolderOutcome {
  ctx.log.error(`score folder: ${message}`);
  void vscode.window.showErrorMessage(`Draftsmith: ${message}`);
  return { kind: 'error', message };
}

/** Scores every paired draft; `token` (the test API's) cancels as the notification's Cancel does. */
export async function scoreFolder(
  ctx: Ctx,
  source: FolderSource,
  token?: vscode.CancellationToken,
): Promise<FolderOutcome> {
  const started = performance.now();
  let paired: Paired;
  try {
    paired = await pair(source);
  } catch (err) {
    return fail(ctx, err instanceof Error ? err.message : String(err));
  }
  const where = source.kind === 'folders' ? source.drafts : source.file;
  const refWhere =
    source.kind === 'folders' ? source.references : `${path.basename(source.file)} (${source.referenceField})`;
  if (paired.pairs.length === 0) {
    return fail(
      ctx,
      source.kind === 'folders'
        ? `no draft in ${source.drafts} has a reference of the same name in ${source.references}.`
        : `no row of ${path.basename(source.file)} has a string "${source.referenceField}".`,
    );
  }
  const options: ScoreOptions = readScoreOptions();
  const opts = Object.keys(options).length > 0 ? { options } : {};
  ctx.log.info(
    `score folder: ${paired.pairs.length} drafts of ${where} against ` +
      `${refWhere}${paired.unpaired.length ? `; ${paired.unpaired.length} without a reference` : ''}`,
  );

  const rows: { name: string; scores: CorpusScores }[] = [];
  const done: typeof paired.pairs = [];
  const unpaired = [...paired.unpaired];
  let cancelled = false;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Draftsmith: Scoring drafts…', cancellable: true },
    async (progress, progressToken) => {
      const n = paired.pairs.length;
      for (const [i, p] of paired.pairs.entries()) {
        if (progressToken.isCancellationRequested || token?.isCancellationRequested) {
          cancelled = true;
          break;
        }
        progress.report({ message: `${i + 1} of ${n}: ${p.name}`, increment: i === 0 ? 0 : 100 / n });
        try {
          const result = await ctx.engine.request(
            {
              op: 'score',
              hypothesis: p.hypothesis,
              reference: p.reference,
              hypothesisName: p.name,
              referenceName: p.name,
              ...opts,
            },
            { token: progressToken, timeLimitMs: readTimeLimitMs() },
          );
          rows.push({ name: p.name, scores: result.scores });
          done.push(p);
        } catch (err) {
          if (err instanceof EngineError && err.code === 'cancelled') {
            cancelled = true;
            break;
          }
          // One unusable draft (empty, too long) does not stop the others; it is named with why.
          const why = err instanceof Error ? err.message : String(err);
          ctx.log.warn(`score folder: ${p.name}: ${why}`);
          unpaired.push(`${p.name} (${why.replace(/\.$/, '')})`);
        }
      }
    },
  );
  if (rows.length === 0) {
    if (cancelled) {
      void vscode.window.showInformationMessage('Draftsmith: scoring cancelled before the first draft.');
      return { kind: 'cancelled' };
    }
    return fail(ctx, `none of the drafts could be scored: ${unpaired.join('; ')}`);
  }
  const result = folderResult({ source: where, referenceSource: refWhere }, done, rows, options, {
    unpaired,
    cancelled,
    paired: paired.pairs.length,
    started,
  });
  ctx.folders.latest = result;
  ctx.log.info(
    `score folder: ${rows.length} rows${cancelled ? ' (cancelled)' : ''}; corpus BLEU ` +
      `${result.totals.bleu.score.toFixed(2)}, ROUGE-L ${(result.totals.rouge.rougeL.f1 * 100).toFixed(2)} in ` +
      `${Math.round(result.elapsedMs)} ms`,
  );
  if (cancelled)
    void vscode.window.showInformationMessage(
      `Draftsmith: scoring cancelled; the ${rows.length} drafts scored are in the panel.`,
    );
  ctx.present(folderPanel(result), true);
  return { kind: 'shown', result };
}

/** Export CSV / Export JSON: the last folder's table, in the order given, as a new document to save. */
export async function exportFolderScores(
  ctx: Ctx,
  format: 'csv' | 'json',
  sort?: FolderSort,
): Promise<vscode.TextDocument | undefined> {
  const latest = ctx.folders.latest;
  if (latest === undefined) {
    void vscode.window.showErrorMessage(
      'Draftsmith: score a folder of drafts first (Draftsmith: Score Drafts in Folder).',
    );
    return undefined;
  }
  const content = format === 'csv' ? folderCsv(latest, sort) : folderJson(latest, sort);
  // A new untitled document with a name (Save offers it) for each export: an anonymous untitled
  // document can come back with a closed one's text.
  const uri = vscode.Uri.from({ scheme: 'untitled', path: `draftsmith-scores-${++ctx.folders.exports}.${format}` });
  const doc = await vscode.workspace.openTextDocument(uri);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(0, 0, doc.lineCount, 0), content);
  await vscode.workspace.applyEdit(edit);
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
  return doc;
}

/** The command: the drafts (from the explorer's context menu, or chosen), then their references. */
export async function scoreFolderCommand(ctx: Ctx, arg?: unknown): Promise<FolderOutcome> {
  let drafts = arg instanceof vscode.Uri ? arg : undefined;
  if (!drafts) {
    drafts = await pickOne(
      'Draftsmith: Score Drafts in Folder — the drafts: a folder of files, or a JSONL file',
      'Score these drafts',
      'file-or-folder',
    );
  }
  if (!drafts) return { kind: 'cancelled' };
  const isFolder = ((await vscode.workspace.fs.stat(drafts)).type & vscode.FileType.Directory) !== 0;
  if (isFolder) {
    const parent = vscode.Uri.joinPath(drafts, '..');
    const candidates: vscode.Uri[] = [];
    for (const n of ['references', 'refs', 'reference', 'gold']) {
      const c = vscode.Uri.joinPath(parent, n);
      if (
        await vscode.workspace.fs.stat(c).then(
          (st) => (st.type & vscode.FileType.Directory) !== 0,
          () => false,
        )
      )
        candidates.push(c);
    }
    // A sibling references folder is offered first; any other folder through the dialog.
    let references: vscode.Uri | undefined;
    if (candidates.length > 0) {
      const other = '$(folder-opened) Choose another folder…';
      const picked = await vscode.window.showQuickPick(
        [
          ...candidates.map((c) => ({
            label: path.basename(c.fsPath),
            description: vscode.workspace.asRelativePath(c),
            uri: c,
          })),
          { label: other, description: '', uri: undefined },
        ],
        {
          title:
            `Draftsmith: Score Drafts in Folder — the references of ${path.basename(drafts.fsPath)} (files of ` +
            `the same names)`,
          placeHolder: 'The references folder',
        },
      );
      if (!picked) return { kind: 'cancelled' };
      references = picked.uri;
    }
    if (!references) {
      references = await pickOne(
        'Draftsmith: Score Drafts in Folder — the references: a folder with files of the same names',
        'Use as references',
        'folder',
        { defaultUri: parent },
      );
    }
    if (!references) return { kind: 'cancelled' };
    return scoreFolder(ctx, { kind: 'folders', drafts: drafts.fsPath, references: references.fsPath });
  }
  const fields = await jsonlFields(drafts.fsPath);
  if (fields.length < 2)
    return fail(
      ctx,
      `${path.basename(drafts.fsPath)} is neither a folder nor a JSONL file whose rows have a draft and a ` +
        `reference field.`,
    );
  const pick = async (placeHolder: string, items: string[]) =>
    vscode.window.showQuickPick(items, {
      title: `Draftsmith: Score Drafts in Folder — ${path.basename(drafts!.fsPath)}`,
      placeHolder,
    });
  const draftField = await pick('The field that holds the drafts', fields);
  if (!draftField) return { kind: 'cancelled' };
  const referenceField = await pick(
    'The field that holds the references',
    fields.filter((f) => f !== draftField),
  );
  if (!referenceField) return { kind: 'cancelled' };
  const none = '(none: number the rows)';
  const nameField = await pick('The field that names each row (optional)', [
    none,
    ...fields.filter((f) => f !== draftField && f !== referenceField),
  ]);
  if (!nameField) return { kind: 'cancelled' };
  return scoreFolder(ctx, {
    kind: 'jsonl',
    file: drafts.fsPath,
    draftField,
    referenceField,
    ...(nameField === none ? {} : { nameField }),
  });
}
