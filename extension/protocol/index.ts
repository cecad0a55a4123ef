/**
 * The typed messages between host, worker and webview, declared once (the role rust-analyzer's
 * lsp_ext.ts plays), a module per channel and per system, all re-exported here: import from
 * 'extension/protocol'. Every message that crosses a thread or a webview boundary is parsed with
 * these schemas on arrival; nothing is cast.
 *
 * Streaming follows continue's shape: a request gets any number of progress/partial messages and
 * ends with exactly one result or error; a cancel ends it with an error of code "cancelled".
 */
export * from './config';
export * from './systems/shared';
export * from './systems/summarize';
export * from './systems/essay';
export * from './systems/story';
export * from './systems/scoring';
export * from './systems/roundtrip';
export * from './systems/reply';
export * from './systems/rewrite';
export * from './systems/speed';
export * from './engine';
export * from './worker';
export * from './panel';
