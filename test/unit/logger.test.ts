import { pbkdf2 } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createLogger, endLogs } from '../../src/logger';

/** Keeps libuv's thread pool (4 threads by default) busy, as a loaded process's DNS, fs and crypto work does. */
function busyThreadPool(tasks = 16): Promise<unknown[]> {
  return Promise.all(
    Array.from(
      { length: tasks },
      () => new Promise((resolve) => pbkdf2('secret', 'salt', 200_000, 32, 'sha256', resolve)),
    ),
  );
}

describe('endLogs', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'broadsheet-logger-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when the thread pool is busy, then a line just logged is not yet written, and endLogs waits until it is', async () => {
    const file = path.join(dir, 'log');
    const logger = createLogger(
      'info',
      'broadsheet',
      pino.destination({ dest: openSync(file, 'w'), sync: false }),
    );
    const busy = busyThreadPool();
    logger.info('shutting down: finishing in-flight requests');
    // What process.exit() would have found: the write waits its turn in the pool.
    expect(readFileSync(file, 'utf8')).toBe('');
    await endLogs(logger);
    expect(readFileSync(file, 'utf8')).toContain('shutting down: finishing in-flight requests');
    await busy;
  });

  it('when the logger writes somewhere that is not a pino stream, then endLogs resolves at once', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', 'broadsheet', { write: (line: string) => lines.push(line) });
    logger.info('hello');
    await endLogs(logger);
    expect(lines).toHaveLength(1);
  });
});
