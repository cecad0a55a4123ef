/** A one-line progress bar on standard error, drawn only on a terminal (logs and pipes stay clean). */
export interface ProgressBar {
  update(done: number, total: number): void;
  done(): void;
}

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  const started = performance.now();
  let lastDraw = 0;
  let drawn = false;
  return {
    update(done, total) {
      const now = performance.now();
      if (now - lastDraw < 100 && done < total) return; // ~10 redraws a second at most
      lastDraw = now;
      const width = 30;
      const fraction = total > 0 ? done / total : 1;
      const filled = Math.round(fraction * width);
      const rate = done / Math.max((now - started) / 1000, 1e-3);
      const eta = rate > 0 ? (total - done) / rate : 0;
      stream.write(
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${rate.toFixed(0)}/s ` +
          `ETA ${eta.toFixed(0)}s `,
      );
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}

/**
 * A progress message that replaces itself on standard error (a Hub model's download: "Downloading
 * owner/name: 3.1 of 17.2 MB (18 %)"). On a terminal one line is redrawn; elsewhere (a log, a pipe)
 * a line is written at the start and at each quarter, so a long download still shows it is moving.
 */
export function progressLine(stream: NodeJS.WriteStream = process.stderr): {
  update(message: string, fraction?: number): void;
  done(): void;
} {
  let lastDraw = 0;
  let drawn = false;
  let quarter = -1;
  return {
    update(message, fraction) {
      if (!stream.isTTY) {
        const q = fraction === undefined ? 0 : Math.floor(fraction * 4);
        if (q > quarter) stream.write(`${message}\n`);
        quarter = Math.max(quarter, q);
        return;
      }
      const now = performance.now();
      if (now - lastDraw < 100 && fraction !== 1) return; // ~10 redraws a second at most
      lastDraw = now;
      stream.write(`\r${message}\x1b[K`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

/**
 * The engine's progress messages for a command that may download its model (a Hub model, --models-url):
 * the "Downloading …" ones drawn on a progressLine, the rest left to the command. `when` narrows it further.
 */
export function downloadProgress(when: () => boolean = () => true): {
  progress(message: string, fraction?: number): void;
  done(): void;
} {
  const line = progressLine();
  return {
    progress: (message, fraction) => {
      if (when() && message.startsWith('Downloading ')) line.update(message, fraction);
    },
    done: () => line.done(),
  };
}

/** Work shorter than this shows no progress: a quick run's standard error stays as it was. */
export const PROGRESS_DELAY_MS = 2_000;

/** Where workProgress writes: standard error, or a stand-in in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * The engine's progress messages for work that may take a while (a long document summarized section
 * by section: "Sections done: 12 / 830"), on standard error once the work has run PROGRESS_DELAY_MS
 * from its first message. On a
 * terminal one line is redrawn with the share done and an estimate of the time left; elsewhere (a
 * log, a pipe) a line is written at each tenth of the work and at each new stage, so a long run
 * still shows it is moving without a line per section.
 */
export function workProgress(
  label: string,
  stream: ProgressStream = process.stderr,
  now: () => number = () => performance.now(),
): { progress(message: string, fraction?: number): void; done(): void } {
  // The clock starts at the first message, when the work starts: loading a model before it is not the work.
  let started: number | undefined;
  let lastDraw = -Infinity;
  let drawn = false;
  let tenth = -1;
  let lastStage = '';
  return {
    progress(message, fraction) {
      const t = now();
      started ??= t;
      const elapsed = t - started;
      if (elapsed < PROGRESS_DELAY_MS) return;
      const f = fraction === undefined ? undefined : Math.min(1, Math.max(0, fraction));
      const share = f === undefined ? '' : ` (${Math.floor(f * 100)} %${etaText(elapsed, f)})`;
      if (!stream.isTTY) {
        // A line per tenth of the work, and one per stage: the words before the first number
        // ("Sections done: " is one stage, whatever its numbers).
        const stage = message.replace(/\d.*$/s, '');
        const step = f === undefined ? tenth : Math.floor(f * 10);
        if (step <= tenth && stage === lastStage) return;
        tenth = Math.max(tenth, step);
        lastStage = stage;
        stream.write(`${label}: ${message}${share}\n`);
        return;
      }
      if (t - lastDraw < 100 && f !== 1) return; // ~10 redraws a second at most
      lastDraw = t;
      stream.write(`\r${label}: ${message}${share}\x1b[K`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

/** ", about 2 min left" from the time spent and the share done (nothing until a little is done). */
function etaText(elapsedMs: number, fraction: number): string {
  if (fraction < 0.02 || fraction >= 1) return '';
  const left = (elapsedMs * (1 - fraction)) / fraction / 1000;
  return left < 90 ? `, about ${Math.max(1, Math.round(left))} s left` : `, about ${Math.round(left / 60)} min left`;
}
