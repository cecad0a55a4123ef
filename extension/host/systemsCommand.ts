/**
 * Draftsmith: Compare Drafts against a Baseline. Several drafts of the same segments (files with one
 * segment per line, or folders whose files are the segments, paired by name with the reference
 * folder's) and a reference; the user picks the baseline. The engine runs sacreBLEU's paired
 * bootstrap for every draft against it (engine/eval/systemsComparison.ts) and the drill-down; the
 * panel shows the table and each draft's worst segments, whose buttons open the line here (the host
 * keeps where each segment was read: the page names no file). Export Report writes the one-file
 * report (engine/eval/report.ts) as a new document to save.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { pickMany, pickOne } from './openDialog';
import type { SystemsRequest, SystemsResult } from '../protocol';
import { pairFolders, report, REPORT_VERSIONS } from '../engine/public';
import type { Ctx } from './context';
import { EngineError } from './engineClient';
import { readScoreOptions, readTimeLimitMs } from './settings';
import { toPanel } from '../panelViews';

/** Where a segment was read: a file and its 0-based line. */
interface Location {
  file: string;
  line: number;
}
interface Draft {
  name: string;
  segments: string[];
  locations: Location[];
}

export type SystemsOutcome =
  { kind: 'shown'; result: SystemsResult } | { kind: 'cancelled' } | { kind: 'error'; message: string };

/** The latest comparison: what the panel's buttons refer to. */
const latest: { result?: SystemsResult; drafts?: Draft[]; inputs?: string } = {};

function fail(ctx: Ctx, message: string): SystemsOutcome {
  ctx.log.error(`compare drafts: ${message}`);
  void vscode.window.showErrorMessage(`Draftsmith: ${message}`);
  return { kind: 'error', message };
}

const isFolder = async (uri: vscode.Uri) =>
  ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;

/** A file's segments, one a line (sacreBLEU's convention); the final newline ends the last. */
async function lines(uri: vscode.Uri): Promise<string[]> {
  const text = new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri)).replace(/^\uFEFF/, '');
  const all = text.split(/\r?\n/);
  if (all.length > 0 && all[all.length - 1] === '') all.pop();
  return all;
}

/** The drafts and the reference as segments that pair up. */
async function readInputs(drafts: vscode.Uri[], reference: vscode.Uri): Promise<{ drafts: Draft[]; refs: string[] }> {
  if (await isFolder(reference)) {
    // Each draft folder's files paired by name with the reference folder's; the segments are the
    // names every draft has, in name order.
    const paired = await Promise.all(
      drafts.map(async (d) => {
        if (!(await isFolder(d)))
          throw new EngineError(
            'bad-request',
            `${path.basename(d.fsPath)} is a file, the reference a folder: give folders of drafts`,
          );
        return { uri: d, paired: await pairFolders(d.fsPath, reference.fsPath) };
      }),
    );
    const names = paired
      .map((p) => new Set(p.paired.pairs.map((x) => x.name)))
      .reduce((a, b) => new Set([...a].filter((n) => b.has(n))));
    const order = [...names].sort();
    if (order.length === 0)
      throw new EngineError('bad-input', 'no file name is in every draft folder and the reference folder');
    const byName = (p: (typeof paired)[number]) => new Map(p.paired.pairs.map((x) => [x.name, x]));
    const first = byName(paired[0]);
    return {
      drafts: paired.map((p) => {
        const m = byName(p);
        return {
          name: path.basename(p.uri.fsPath),
          segments: order.map((n) => m.get(n)!.hypothesis),
          locations: order.map((n) => ({ file: path.join(p.uri.fsPath, n), line: 0 })),
        };
      }),
      refs: order.map((n) => first.get(n)!.reference),
    };
  }
  const out: Draft[] = [];
  for (const d of drafts) {
    if (await isFolder(d))
      throw new EngineError(
        'bad-request',
        `${path.basename(d.fsPath)} is a folder, the reference a file: give files with one segment per line`,
      );
    const segs = await lines(d);
    out.push({
      name: path.basename(d.fsPath),
      segments: segs,
      locations: segs.map((_, line) => ({ file: d.fsPath, line })),
    });
  }
  return { drafts: out, refs: await lines(reference) };
}

/** Runs the comparison and shows it; the test API calls this with its inputs. */
export async function compareSystems(
  ctx: Ctx,
  drafts: vscode.Uri[],
  reference: vscode.Uri,
  baseline = 0,
  token?: vscode.CancellationToken,
): Promise<SystemsOutcome> {
  let inputs: { drafts: Draft[]; refs: string[] };
  try {
    inputs = await readInputs(drafts, reference);
  } catch (err) {
    return fail(ctx, err instanceof Error ? err.message : String(err));
  }
  // The baseline first, the others in the order picked.
  const ordered = [inputs.drafts[baseline], ...inputs.drafts.filter((_, i) => i !== baseline)];
  const options = readScoreOptions();
  const request: SystemsRequest = {
    op: 'systems',
    systems: ordered.map((d) => ({ name: d.name, segments: d.segments })),
    references: [inputs.refs],
    referenceName: path.basename(reference.fsPath),
    ...(Object.keys(options).length > 0 ? { options } : {}),
  };
  let result: SystemsResult;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Draftsmith: Comparing drafts…', cancellable: true },
      (_progress, progressToken) =>
        ctx.engine.request(request, { token: token ?? progressToken, timeLimitMs: readTimeLimitMs() }),
    );
  } catch (err) {
    if (err instanceof EngineError && err.code === 'cancelled') return { kind: 'cancelled' };
    return fail(ctx, err instanceof Error ? err.message : String(err));
  }
  latest.result = result;
  latest.drafts = ordered;
  latest.inputs = `Draftsmith: Compare Drafts against a Baseline\nbaseline: ${ordered[0].name}\ndrafts: ${ordered
    .slice(1)
    .map((d) => d.name)
    .join(', ')}\nreference: ${request.referenceName}\nsettings: ${JSON.stringify(options)}`;
  ctx.log.info(
    `compare drafts: ${ordered.length - 1} against ${ordered[0].name}, ${result.table.segments} segments, ` +
      `${Math.round(result.elapsedMs)} ms`,
  );
  ctx.present(toPanel(result), true);
  return { kind: 'shown', result };
}

/** The panel's Go to segment: the segment's file at its line. */
export async function openSegment(ctx: Ctx, system: number, segment: number): Promise<vscode.TextEditor | undefined> {
  const where = latest.drafts?.[system]?.locations[segment];
  if (!where) {
    ctx.log.warn(`compare drafts: no segment ${segment} of draft ${system} in the latest comparison`);
    return undefined;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(where.file));
  const line = Math.min(where.line, Math.max(0, doc.lineCount - 1));
  const range = doc.lineAt(line).range;
  return vscode.window.showTextDocument(doc, {
    viewColumn: vscode.ViewColumn.One,
    preview: false,
    selection: new vscode.Selection(range.start, range.end),
  });
}

/** Export Report: the latest comparison as one Markdown or HTML file, a new document to save. */
export async function exportReport(ctx: Ctx, format: 'md' | 'html'): Promise<vscode.TextDocument | undefined> {
  if (!latest.result || latest.inputs === undefined) {
    void vscode.window.showErrorMessage(
      'Draftsmith: compare drafts first (Draftsmith: Compare Drafts against a Baseline).',
    );
    return undefined;
  }
  const content = report(
    latest.result,
    {
      command: latest.inputs,
      versions: { Draftsmith: String(ctx.extension.extension.packageJSON.version ?? ''), ...REPORT_VERSIONS },
      date: new Date().toISOString(),
    },
    format,
  );
  const uri = vscode.Uri.from({ scheme: 'untitled', path: `draftsmith-report-${Date.now()}.${format}` });
  const doc = await vscode.workspace.openTextDocument(uri);
  const edit = new vscode.WorkspaceEdit();
  edit.insert(uri, new vscode.Position(0, 0), content);
  await vscode.workspace.applyEdit(edit);
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
  return doc;
}

/** The command: the drafts (two or more), the reference, then the baseline. */
export async function compareSystemsCommand(ctx: Ctx): Promise<SystemsOutcome> {
  const drafts = await pickMany(
    'Draftsmith: Compare Drafts against a Baseline — the drafts (two or more): files, one segment a line, or folders',
    'Compare these drafts',
    'file-or-folder',
  );
  if (drafts.length === 0) return { kind: 'cancelled' };
  if (drafts.length < 2) return fail(ctx, 'pick two or more drafts: a baseline and the drafts to compare with it.');
  const reference = await pickOne(
    'Draftsmith: Compare Drafts against a Baseline — the reference (a file of the same lines, or a folder of ' +
      'the same file names)',
    'Use as reference',
    'file-or-folder',
  );
  if (!reference) return { kind: 'cancelled' };
  const picked = await vscode.window.showQuickPick(
    drafts.map((d, i) => ({ label: path.basename(d.fsPath), description: vscode.workspace.asRelativePath(d), i })),
    {
      title: 'Draftsmith: Compare Drafts against a Baseline',
      placeHolder: 'The baseline: every other draft is compared with it',
    },
  );
  if (!picked) return { kind: 'cancelled' };
  return compareSystems(ctx, drafts, reference, picked.i);
}
