/** What a system gets from the engine while it runs one request. */
export interface RunContext {
  progress(message: string, fraction?: number): void;
  partial(text: string): void;
  /** Throws CancelledError once the user has cancelled. */
  checkCancelled(): void;
}

export interface RuntimeOptions {
  device: 'auto' | 'cpu' | 'cuda';
  threads: number;
  log: (level: 'info' | 'warn', message: string) => void;
}
