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
export function resolveModelsDir(inspected: InspectedSetting | undefined, workspaceTrusted: boolean, shippedModels: string): string {
  const candidates = workspaceTrusted
    ? [inspected?.workspaceFolderValue, inspected?.workspaceValue, inspected?.globalValue]
    : [inspected?.globalValue];
  for (const value of candidates) {
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return shippedModels;
}
