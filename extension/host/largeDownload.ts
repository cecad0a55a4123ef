/**
 * The question before a download over draftsmith.hub.maxDownloadGB: a modal with the model and its
 * size, answered Download or Cancel (the engine client sends the answer to the worker).
 */
import * as vscode from 'vscode';
import { formatSize } from '../engine/public';
import type { DownloadQuestion } from '../protocol';

export const DOWNLOAD_CHOICE = 'Download';

export async function askLargeDownload(question: DownloadQuestion): Promise<boolean> {
  const choice = await vscode.window.showWarningMessage(
    `Download ${question.model}? It is ${formatSize(question.bytes)}.`,
    {
      modal: true,
      detail:
        `That is more than ${formatSize(question.limitBytes)}, the limit draftsmith.hub.maxDownloadGB sets ` +
        'for downloading without asking. It is downloaded once, into ' +
        "Draftsmith's model cache (Manage Models removes it).",
    },
    DOWNLOAD_CHOICE,
  );
  return choice === DOWNLOAD_CHOICE;
}
