import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(
  level: string,
  name = 'broadsheet',
  destination?: pino.DestinationStream,
): Logger {
  return destination === undefined ? pino({ name, level }) : pino({ name, level }, destination);
}

/** How long exiting waits for the log's last lines when nothing reads them (a full pipe). */
const LAST_LINES_WAIT_MS = 2_000;

interface EndableStream {
  end(): void;
  once(event: 'close' | 'error', listener: () => void): unknown;
}

/**
 * Resolves once every line logged so far is written, then the logger takes no more. pino writes through libuv's
 * thread pool, and `process.exit()` does not wait for a write in flight: on a busy machine a process's last
 * lines ("shutting down…") were lost. Call it just before exiting; it gives up after two seconds.
 */
export function endLogs(logger: Logger): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    Partial<EndableStream> | undefined;
  if (typeof stream?.end !== 'function' || typeof stream.once !== 'function') return Promise.resolve();
  const endable = stream as EndableStream;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, LAST_LINES_WAIT_MS);
    timer.unref();
    endable.once('close', done);
    endable.once('error', done);
    endable.end();
  });
}

/** Exits with `code` once the log's last lines are written (see endLogs). */
export function exitAfterLogs(logger: Logger, code: number): void {
  void endLogs(logger).then(() => process.exit(code));
}
