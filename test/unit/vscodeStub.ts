/**
 * A minimal 'vscode' module for unit tests of host code that reads settings or asks a question:
 * imported first (before any module that requires 'vscode'), it answers require('vscode') with
 * `vscodeStub`, whose settings and workspace trust a test sets through `settings`, and whose
 * warning messages it answers through `messages`.
 */

const Module = require('node:module') as { _resolveFilename: (request: string, ...rest: unknown[]) => string };

export interface StubSettings {
  /** Values by key under "draftsmith", at each level. */
  global: Record<string, unknown>;
  workspace: Record<string, unknown>;
  trusted: boolean;
}

export const settings: StubSettings = { global: {}, workspace: {}, trusted: true };

export function resetSettings(): void {
  settings.global = {};
  settings.workspace = {};
  settings.trusted = true;
}

enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}

/** The messages the host showed (showWarningMessage), and the button a test answers with (undefined: dismissed). */
export const messages = {
  shown: [] as { message: string; options: { modal?: boolean; detail?: string }; items: string[] }[],
  answer: undefined as string | undefined,
};

export const vscodeStub = {
  ConfigurationTarget,
  window: {
    showWarningMessage: (message: string, options: { modal?: boolean; detail?: string }, ...items: string[]) => {
      messages.shown.push({ message, options, items });
      return Promise.resolve(messages.answer);
    },
  },
  workspace: {
    get isTrusted() {
      return settings.trusted;
    },
    // Every setting the host reads is under "draftsmith"; the stub keeps them by their key below it.
    getConfiguration: (section: string) => ({
      get: (k: string, fallback?: unknown) => settings.workspace[k] ?? settings.global[k] ?? fallback,
      inspect: (k: string) => ({
        key: `${section}.${k}`,
        globalValue: settings.global[k],
        workspaceValue: settings.workspace[k],
      }),
      has: (k: string) => k in settings.global || k in settings.workspace,
    }),
  },
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = {
  id: 'vscode',
  filename: 'vscode',
  loaded: true,
  exports: vscodeStub,
} as unknown as NodeJS.Module;
