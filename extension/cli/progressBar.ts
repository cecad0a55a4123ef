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
        `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${rate.toFixed(0)}/s ETA ${eta.toFixed(0)}s `,
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
