/**
 * Which draftsmith.modelsPath counts. The models folder holds files the engine loads and runs, so
 * in a restricted (untrusted) workspace only the user's own (user or machine scope) value is taken:
 * a cloned repository's .vscode/settings.json must not point the engine at its own model files.
 * VS Code applies package.json's restrictedConfigurations too; this keeps the rule in our code, where
 * a test can hold it. Kept free of 'vscode' for that test.
 */

/** The part of WorkspaceConfiguration.inspect() that says where a value was set. */
export interface InspectedSetting {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The folder with one sub-folder per system: the setting that counts, else the shipped models. */
export function resolveModelsDir(
  inspected: InspectedSetting | undefined,
  workspaceTrusted: boolean,
  shippedModels: string,
): string {
  const candidates = workspaceTrusted
    ? [inspected?.workspaceFolderValue, inspected?.workspaceValue, inspected?.globalValue]
    : [inspected?.globalValue];
  for (const value of candidates) {
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return shippedModels;
}

/** Where a setting's value was set (the levels of WorkspaceConfiguration.inspect()). */
export type SettingLevel = 'global' | 'workspace' | 'workspaceFolder';

/**
 * The value of a restricted setting that counts (the same rule as modelsPath: in a restricted
 * workspace only the user's own), and the level it comes from; undefined when none is set. Any
 * value set counts, whatever its type, so that a hand-edited wrong one is reported, not skipped.
 * draftsmith.story.model and draftsmith.hub.endpoint choose what the engine downloads
 * and runs, as modelsPath does.
 */
export function trustedSetting(
  inspected: InspectedSetting | undefined,
  workspaceTrusted: boolean,
): { value: unknown; level: SettingLevel } | undefined {
  const levels: [SettingLevel, unknown][] = workspaceTrusted
    ? [
        ['workspaceFolder', inspected?.workspaceFolderValue],
        ['workspace', inspected?.workspaceValue],
        ['global', inspected?.globalValue],
      ]
    : [['global', inspected?.globalValue]];
  for (const [level, value] of levels) {
    if (value !== undefined && value !== null) return { value, level };
  }
  return undefined;
}
