/**
 * Everything the insights panel's page (webview/) takes from the extension, and all it may: the
 * panel channel's messages and views, the empty panel's text, the notes a story's cut prompt gets,
 * and the pure helpers that lay out the score, folder and comparison tables the same way as the CLI
 * and the exports. eslint.config.mjs refuses any other import from extension/ in webview/, so what
 * the page bundles (for the browser, with no Node API) is read here, in one list.
 */
export type {
  CoherenceSummary,
  CoherenceView,
  DraftComparison,
  EssayView,
  ExternalModel,
  FolderSort,
  FolderView,
  GeneratedToken,
  RoundTripView,
  ScoreView,
  StoryView,
  SummarizeView,
  SystemsView,
} from './protocol';
export { FromPanel, ToPanel } from './protocol';
export { EMPTY_INSIGHTS } from './panelViews';
export { STORY_CHOOSE, SUMMARY_CHOOSE, storyCutNote, summaryCutNote } from './windowNotes';
export { formatValue, shownMetrics, type MetricValue, type ShownMetric } from './engine/eval/metricList';
export { columnsOf, sortedRows } from './engine/eval/folderTable';
export { cellLines, metricHeader, type SystemsTable } from './engine/eval/systemsTable';
