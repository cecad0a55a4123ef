/**
 * What the host (extension/host) may use of the engine, besides the protocol's messages: the error
 * type the worker's answers become, and the few pure text and score helpers a command needs on its
 * side of the worker (reading the selection, naming a limit, exporting a folder's table, listing and
 * deleting the downloaded models, finding the GGUF models already on this computer). Nothing here runs
 * a model or touches a tensor; the rest of the
 * engine is the worker's and the CLI's.
 * eslint.config.mjs keeps host/ to this module.
 */
export { EngineError, errorMessage } from './errors';
export { disableOrtTelemetry } from './runtime/ortTelemetry';
export { DEFAULT_THREADS } from './runtime/threads';
export { maxLengthNote } from './systems/lengthLimit';
export { deleteDownloaded, downloadedModels, importFolder, type DownloadedModel } from './hub/downloads';
export { findLocalGgufs, type LocalGguf } from './gguf/localModels';
export { folderResult, folderTotals, jsonlFields, pairFolders, pairJsonl, type Paired } from './eval/folderScores';
export { folderCsv, folderJson } from './eval/folderTable';
export { scoreSignatures, signaturesOf } from './eval/metricList';
export { report } from './eval/report';
export { REPORT_VERSIONS } from './metrics/signature';
export { smoothValueApplies } from './eval/scoreOptions';
export { describeSkippedList, formatOf, type DocumentFormat } from './text/markdown';
export { documentSpan, holdsMarkup, proseBlockAt, type CompactText } from './text/proseText';
export { formatSize } from './hub/fileChoice';
export { REWRITE_PRESETS, type RewritePreset } from './hub/rewritePresets';
export { rewriteBlockAt } from './text/rewriteBlocks';
export { applyWordChanges } from './text/wordDiff';
export { describeFlags, describeInvented, describeProtected } from './systems/rewriteText';
export { hasLetter, hasReadableText, paragraphAt } from './text/reader';
export { parseTopics } from './text/topics';
export { countWords } from './text/words';

// Checks as you write: the light parts at once; the checker (Harper's WebAssembly, the dictionary)
// and the readability formulas (their word lists) only when a document is first checked.
export type { CheckFinding, ProseChecker } from './checks/checker';
export { addToDictionary, DICTIONARY_FILE, readDictionary, userDictionaryPath } from './checks/dictionary';
export { addToCspellWords, projectWords, usesCodeSpellChecker } from './checks/projectDictionaries';
export { describeAdded, findingsAdded, type AddedFinding } from './checks/changeFindings';
export { safeFixes } from './checks/fixes';
export { lineTextAt, NO_IGNORES, withoutIgnored, type Ignores } from './checks/ignores';
export { FAMILIES, FAMILY_NAMES, type Severity } from './checks/rules';
export type { TextStats } from './checks/readability';
export const checkerModule = () => require('./checks/checker') as typeof import('./checks/checker');
export const checkOptionsModule = () => require('./checks/options') as typeof import('./checks/options');
export const readabilityModule = () => require('./checks/readability') as typeof import('./checks/readability');
