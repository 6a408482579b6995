import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Bytes that went over a limit while being staged: the caller turns it into its 413 or its 400. */
export class TooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than the limit of ${maxBytes} bytes`);
    this.name = 'TooLargeError';
  }
}

/**
 * Runs `work` with a fresh temporary directory, removed afterwards whatever happens: incoming bytes are
 * staged on disk, never held in memory, until they are probed and written to the object store.
 */
export async function withStagingDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'broadsheet-staging-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Copies a stream into `path`, failing with TooLargeError past `maxBytes`; resolves to the size written. */
export async function stageStream(
  source: Readable,
  path: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<number> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) callback(new TooLargeError(maxBytes));
      else callback(null, chunk);
    },
  });
  await pipeline(source, counter, createWriteStream(path), signal ? { signal } : {});
  return size;
}
