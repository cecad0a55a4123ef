import type { ErrorCode } from '../protocol';

/** An error the user should read as it is: its message names what is wrong and where. */
export class EngineError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export class CancelledError extends EngineError {
  constructor() {
    super('cancelled', 'Cancelled.');
  }
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
