import type { SingleBar } from 'cli-progress';

/** Where a count's progress goes: stderr, and whether it is a terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
}

/** A plain line at most this often when the count moves slowly (a long import into a log file). */
export const PLAIN_PROGRESS_SECONDS = 10;
/** ... and at every tenth of the total, however fast it goes. */
const PLAIN_PROGRESS_STEPS = 10;

export interface ProgressLines {
  /** `done` of the total are done; `total` when the total changed (documents published meanwhile). */
  update(done: number, total?: number): void;
  /** Ends the run's progress: a terminal's line is closed, a log file gets the last count if not said yet. */
  finish(): void;
}

/**
 * A count's progress on stderr: on a terminal one line redrawn in place (`\r<label>done/total`), else, for a log
 * file or a pipe, a plain line `<label>done/total` at each tenth of the total, at most every
 * PLAIN_PROGRESS_SECONDS between them, and the last count at the end. The `\r` line went to log files too,
 * which filled with carriage returns (`\r46/46\r46/46`).
 */
export function progressLines(
  stream: ProgressStream,
  label: string,
  initialTotal: number,
  now: () => number = Date.now,
): ProgressLines {
  const tty = stream.isTTY === true;
  let total = initialTotal;
  let drawn = false;
  let lastSaid: number | undefined;
  let lastStep = 0;
  let lastAt = now();
  let latest: number | undefined;
  const say = (done: number) => {
    stream.write(`${label}${done}/${total}\n`);
    lastSaid = done;
    lastAt = now();
  };
  return {
    update(done, newTotal) {
      if (newTotal !== undefined) total = newTotal;
      latest = done;
      if (tty) {
        stream.write(`\r${label}${done}/${total}`);
        drawn = true;
        return;
      }
      const step = total > 0 ? Math.floor((done * PLAIN_PROGRESS_STEPS) / total) : PLAIN_PROGRESS_STEPS;
      if (step > lastStep || now() - lastAt >= PLAIN_PROGRESS_SECONDS * 1000) {
        lastStep = Math.max(step, lastStep);
        if (done !== lastSaid) say(done);
      }
    },
    finish() {
      if (tty) {
        if (drawn) stream.write('\n');
        drawn = false;
      } else if (latest !== undefined && latest !== lastSaid) {
        say(latest);
      }
    },
  };
}

/** A count's progress where a command draws a bar: the bar's start, each count, and the end. */
export interface BarOrLines {
  start(total: number): void;
  update(done: number, total: number): void;
  stop(): void;
}

/**
 * The cli-progress `bar` on a terminal; for a log file or a pipe, which got nothing from the bar, plain lines
 * (progressLines) labelled `label`. `payload` fills the bar's own fields for a count (a rate, say).
 */
export function barOrLines(
  bar: SingleBar,
  label: string,
  payload: (done: number) => object = () => ({}),
): BarOrLines {
  let lines: ProgressLines | undefined;
  return {
    start(total) {
      if (process.stderr.isTTY) bar.start(total, 0, payload(0));
      else lines = progressLines(process.stderr, label, total);
    },
    update(done, total) {
      if (lines) return lines.update(done, total);
      bar.setTotal(total);
      bar.update(done, payload(done));
    },
    stop() {
      bar.stop();
      lines?.finish();
    },
  };
}
