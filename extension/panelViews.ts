/**
 * The insights panel's views, each with the command whose result it shows, and the text the empty
 * panel shows (built from them). Shared by the host and the page (webview/panel.ts); free of zod so
 * the host can import it at activation (host/schemas.ts explains why that matters).
 */
import type { EngineResult, ToPanel } from './protocol';

/** Every ToPanel type but 'empty', in the order the empty panel names their commands. */
export const PANEL_VIEWS = {
  summarize: 'Summarize Document',
  essay: 'Expand Topic Words into Essay',
  story: 'Continue Story',
  roundtrip: 'Round-Trip Paragraph',
  score: 'Score Draft',
  coherence: 'Check Coherence',
} as const satisfies Record<Exclude<ToPanel['type'], 'empty' | 'folder'>, string>;
// 'folder' (Score Drafts in Folder) is no engine result: the host assembles it from many scores.

const commands: string[] = Object.values(PANEL_VIEWS);

/** What the panel shows before any result: the host sends it, and the page shows it until the host does. */
export const EMPTY_INSIGHTS = `Run Draftsmith: ${commands.slice(0, -1).join(', ')} or ${commands[commands.length - 1]} to see the results here.`;

/** The engine's results the panel has a view for. */
export type PanelResult = Extract<EngineResult, { op: keyof typeof PANEL_VIEWS }>;

/**
 * The one converter from the engine's results to the panel's messages (rust-analyzer's to_proto
 * shape): the host sends nothing else to the page. Today each view takes its result as the engine
 * gives it; a change only the panel needs (a field dropped, a view's own shape) is made here and in
 * ToPanel, and the engine's results, the CLI's --json and the commands stay as they are.
 */
export function toPanel(result: PanelResult): ToPanel {
  switch (result.op) {
    case 'summarize':
      return { type: 'summarize', result };
    case 'essay':
      return { type: 'essay', result };
    case 'story':
      return { type: 'story', result };
    case 'roundtrip':
      return { type: 'roundtrip', result };
    case 'score':
      return { type: 'score', result };
    case 'coherence':
      return { type: 'coherence', result };
  }
}
