import { open } from 'node:fs/promises';
import { readVideoFacts, type VideoFacts } from '../domain/video-header';
import { StoreUnavailableError, storeUnavailableOr, type ObjectStore } from '../storage/object-store';

/**
 * A staged file's video facts (duration, width, height) from its container's header (src/domain/video-header.ts):
 * a few small reads at the offsets the header names, never the whole file. Undefined when the bytes are no
 * MP4/MOV or Matroska/WebM, say none of them, or cannot be read.
 */
export async function probeVideo(path: string): Promise<VideoFacts | undefined> {
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = await file.stat();
    return await readVideoFacts({
      size,
      async read(offset, length) {
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
        let filled = 0;
        while (filled < buffer.length) {
          const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, offset + filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        return buffer.subarray(0, filled);
      },
    });
  } finally {
    await file.close().catch(() => undefined);
  }
}

/** What the header of an object in the store gave (see probeStoredVideo). */
export type StoredVideoProbe =
  | { ok: true; facts: VideoFacts }
  /** `unsaid`: the object was read, and its header gives nothing (no container this reads, or cut). */
  | { ok: false; reason: string; unsaid?: true };

/**
 * The video facts of an object in the media store, read as probeVideo reads a staged file: a few ranged reads
 * of its header (a request each to an S3 store), never the whole object. Not ok, saying why, when the store has
 * no such object, a read fails or the header gives nothing. Throws StoreUnavailableError when the store is
 * unavailable: that is no fault of the object's, and every object after it would fail the same.
 */
export async function probeStoredVideo(store: ObjectStore, key: string): Promise<StoredVideoProbe> {
  const unavailable = (error: unknown) => {
    const seen = storeUnavailableOr(error);
    return seen instanceof StoreUnavailableError ? seen : undefined;
  };
  let info;
  try {
    info = await store.head(key);
  } catch (error) {
    throw unavailable(error) ?? error;
  }
  if (info === null) return { ok: false, reason: 'its object is not in the media store' };
  let failure: unknown;
  const facts = await readVideoFacts({
    size: info.size,
    async read(offset, length) {
      try {
        const got = await store.get(key, { start: offset, end: offset + length - 1 });
        if (got === null) throw new Error('its object is no longer in the media store');
        const chunks: Buffer[] = [];
        for await (const chunk of got.body) chunks.push(Buffer.from(chunk as Uint8Array));
        return Buffer.concat(chunks);
      } catch (error) {
        failure ??= error;
        throw error;
      }
    },
  });
  if (failure !== undefined) {
    const storeDown = unavailable(failure);
    if (storeDown) throw storeDown;
    return {
      ok: false,
      reason: `its object could not be read: ${failure instanceof Error ? failure.message : 'unknown error'}`,
    };
  }
  if (facts === undefined) {
    return {
      ok: false,
      reason: 'its header gives no duration, width or height (not an MP4/MOV or Matroska/WebM, or cut)',
      unsaid: true,
    };
  }
  return { ok: true, facts };
}
