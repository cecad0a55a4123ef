/** What a system gets from the engine while it runs one request. */
export interface RunContext {
  progress(message: string, fraction?: number): void;
  partial(text: string): void;
  /** Throws CancelledError once the user has cancelled. */
  checkCancelled(): void;
}

/** A run with no one watching (the evaluations, the CLI's model runs outside the Engine): no progress, no partial text, never cancelled. */
export const silentRun: RunContext = { progress: () => {}, partial: () => {}, checkCancelled: () => {} };

export interface RuntimeOptions {
  device: 'auto' | 'cpu' | 'cuda';
  threads: number;
  log: (level: 'info' | 'warn', message: string) => void;
}
