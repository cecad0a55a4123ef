/**
 * The worker's requests, one run at a time and in the order they came. onnxruntime runs
 * block the thread anyway; interleaving two decodes only made each slower and their progress
 * confusing. A request may name a channel: a newer request of the same channel supersedes the older
 * one (inline suggestions send one per keystroke and want only the last), which ends with
 * a 'cancelled' error that says it was superseded, whether it was still waiting or already running.
 * Requests of other channels, and those with none, are never superseded.
 */
import { CancelledError, EngineError } from './errors';

/** What a running job reads to know it should stop: the error it is to end with, once set. */
export interface JobSignal {
  readonly reason: EngineError | undefined;
}

export interface Job {
  readonly id: number;
  /** Requests of one channel supersede each other; none: never superseded. */
  readonly channel?: string;
  /** Runs the job; called once its turn comes. Must settle (its own errors are its to report). */
  run(signal: JobSignal): Promise<void>;
  /** Ends a job that never ran (cancelled or superseded while waiting, or the worker stopping). */
  end(error: EngineError): void;
}

export const supersededError = () => new EngineError('cancelled', 'Superseded by a newer request of the same kind.');

interface Entry {
  readonly job: Job;
  reason: EngineError | undefined;
}

export class RequestQueue {
  private readonly waiting: Entry[] = [];
  private current: Entry | undefined;
  private readonly idleWaiters: (() => void)[] = [];

  /** The id of the job running now, if any. */
  get runningId(): number | undefined {
    return this.current?.job.id;
  }

  /** Jobs waiting for their turn. */
  get waitingIds(): number[] {
    return this.waiting.map((e) => e.job.id);
  }

  add(job: Job): void {
    if (job.channel !== undefined) {
      for (const e of this.waiting.filter((w) => w.job.channel === job.channel)) this.drop(e, supersededError());
      if (this.current?.job.channel === job.channel) this.current.reason ??= supersededError();
    }
    this.waiting.push({ job, reason: undefined });
    this.next();
  }

  /** A cancel from the host: a waiting job ends now; a running one is told (it stops at its next step). */
  cancel(id: number): void {
    const waiting = this.waiting.find((e) => e.job.id === id);
    if (waiting) this.drop(waiting, new CancelledError());
    else if (this.current?.job.id === id) this.current.reason ??= new CancelledError();
  }

  /** Ends every waiting job with `error` and tells the running one to stop (the worker's 'stop'). */
  cancelAll(error: EngineError): void {
    for (const e of [...this.waiting]) this.drop(e, error);
    if (this.current) this.current.reason ??= new CancelledError();
  }

  /** Resolves once nothing runs and nothing waits. */
  idle(): Promise<void> {
    if (!this.current && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private drop(entry: Entry, error: EngineError): void {
    this.waiting.splice(this.waiting.indexOf(entry), 1);
    entry.job.end(error);
  }

  private next(): void {
    if (this.current) return;
    const entry = this.waiting.shift();
    if (!entry) {
      this.idleWaiters.splice(0).forEach((resolve) => resolve());
      return;
    }
    this.current = entry;
    const signal: JobSignal = {
      get reason() {
        return entry.reason;
      },
    };
    // A job that throws anyway must not stall the queue.
    void entry.job
      .run(signal)
      .catch(() => {})
      .finally(() => {
        this.current = undefined;
        this.next();
      });
  }
}
