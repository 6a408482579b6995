import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type { Pool } from '../db/pool';
import { mediaUploadQueries } from '../db/queries/media-uploads';
import { AppError } from '../domain/errors';
import type { VideoFacts } from '../domain/video-header';
import { newObjectKey, safeFilename, storedFileType, uploadTypeProblem } from '../domain/media';
import type { Logger } from '../logger';
import type { DecodeBudget } from '../media/decode-budget';
import { probeImage } from '../media/probe';
import { stageStream, TooLargeError, withStagingDir } from '../media/staging';
import { probeVideo } from '../media/video-probe';
import type { ObjectStore } from '../storage/object-store';

/** How long an upload waits for the import that names it before it is swept with its object. */
export const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;

/** Uploads made before this have expired (their expiresAt has passed): the sweep takes them, an import not. */
export function uploadsExpiredBefore(now: Date): Date {
  return new Date(now.getTime() - UPLOAD_TTL_MS);
}

export interface MediaUploadDeps {
  pool: Pool;
  objects: ObjectStore;
  logger: Logger;
  /** The largest body POST mediaLibrary/uploads accepts (MEDIA_UPLOAD_MAX_BYTES). */
  uploadMaxBytes: number;
  /** The most pixels an uploaded image may have (MEDIA_MAX_IMAGE_PIXELS). */
  maxImagePixels: number;
  /** The pixels the process may be decoding at once: every image check waits for its turn here. */
  decodeBudget: DecodeBudget;
}

export interface MediaUploadInput {
  body: Readable;
  /** The request's Content-Type: required; `image/*` promises an image, anything else is kept as a file. */
  contentType: string | undefined;
  /** The request's Content-Length, when it sent one: refused at once when over the limit. */
  contentLength: number | undefined;
  /** The request's Content-Encoding: the bytes are stored as sent, so none but identity is accepted. */
  contentEncoding?: string | undefined;
  filename: string | undefined;
  /** The request's lifetime: once its client is gone, an image check still waiting for its turn gives up. */
  signal?: AbortSignal | undefined;
}

export interface MediaUpload {
  uploadId: string;
  filename: string;
  mimeType: string;
  size: number;
  width?: number;
  height?: number;
  /** Seconds, from a video's header. */
  duration?: number;
  expiresAt: string;
}

const uploadCutOff = () =>
  AppError.validation({ body: 'ended before all its bytes arrived: the connection was closed' });

const tooLarge = (maxBytes: number) =>
  new AppError(413, {
    name: 'PayloadTooLarge',
    message: `The upload is larger than the limit of ${maxBytes} bytes (MEDIA_UPLOAD_MAX_BYTES)`,
  });

/**
 * POST mediaLibrary/uploads: the raw body staged on disk (bounded: 413 past the limit), probed (an image's
 * format and dimensions come from its bytes; a body sent as `image/*` that is no readable image is a 400; a
 * video's duration and frame size from its container's header),
 * written to the object store, and recorded as an upload that POST import/mediaLibrary can name with
 * `asset: {uploadId}`. The row is written only once the object is durable, and the object deleted again if the
 * row cannot be written. Unclaimed uploads older than a day are swept here, with their objects.
 */
export async function uploadMedia(
  deps: MediaUploadDeps,
  projectId: number,
  input: MediaUploadInput,
): Promise<MediaUpload> {
  const declared = (input.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const refused = uploadTypeProblem(declared, input.contentEncoding);
  if (refused !== undefined) {
    await discardRest(input.body, DISCARD_AT_MOST);
    throw new AppError(415, { name: 'UnsupportedMediaType', message: refused });
  }
  if (input.contentLength !== undefined && input.contentLength > deps.uploadMaxBytes) {
    await discardRest(input.body, DISCARD_AT_MOST);
    throw tooLarge(deps.uploadMaxBytes);
  }
  await sweepExpiredUploads(deps, new Date());
  return withStagingDir(async (dir) => {
    const path = join(dir, 'upload');
    let size: number;
    // Through a tap, so that a failed staging does not destroy the request: past the limit the rest of the
    // body is read and dropped, and the client, still sending, gets to read its 413.
    const tap = new PassThrough();
    input.body.pipe(tap);
    // pipe() passes on the bytes and their end, not a client that went away (now, or while the sweep ran): the
    // staging would wait for the rest for ever, its file open and on disk.
    const cutOff = () => {
      if (!input.body.readableEnded) tap.destroy(uploadCutOff());
    };
    if (input.body.closed) cutOff();
    else input.body.once('close', cutOff);
    try {
      size = await stageStream(tap, path, deps.uploadMaxBytes);
    } catch (error) {
      if (error instanceof TooLargeError) {
        await discardRest(input.body, DISCARD_AT_MOST);
        throw tooLarge(deps.uploadMaxBytes);
      }
      throw error;
    }
    if (size === 0) throw AppError.validation({ body: 'is empty: send the bytes of the file' });
    const probed = await probeImage(path, {
      maxPixels: deps.maxImagePixels,
      budget: deps.decodeBudget,
      signal: input.signal,
    });
    if (!probed.ok && declared.startsWith('image/')) {
      throw AppError.validation({ body: `${probed.reason} (sent as ${declared})` });
    }
    // Bytes that are no image may be a video (or a sound): its header gives its duration and frame size.
    const facts: VideoFacts = probed.ok
      ? { width: probed.facts.width, height: probed.facts.height }
      : ((await probeVideo(path)) ?? {});
    const mimeType = probed.ok ? probed.facts.mimeType : storedFileType(declared);
    const extension = probed.ok
      ? probed.facts.extension
      : declared
          .split('/')[1]!
          .replace(/[^a-z0-9]/g, '')
          .slice(0, 10) || 'bin';
    const uploadId = randomUUID();
    const key = newObjectKey(projectId, randomUUID(), extension, new Date());
    const filename = safeFilename(input.filename, `upload.${extension}`);
    await deps.objects.put(key, createReadStream(path), { contentType: mimeType, size });
    try {
      const row = await mediaUploadQueries(deps.pool).insert(projectId, {
        id: uploadId,
        key,
        filename,
        mimeType,
        size,
        width: facts.width ?? null,
        height: facts.height ?? null,
        duration: facts.duration ?? null,
      });
      return {
        uploadId,
        filename,
        mimeType,
        size,
        ...(facts.width === undefined ? {} : { width: facts.width }),
        ...(facts.height === undefined ? {} : { height: facts.height }),
        ...(facts.duration === undefined ? {} : { duration: facts.duration }),
        expiresAt: new Date(row.createdAt.getTime() + UPLOAD_TTL_MS).toISOString(),
      };
    } catch (error) {
      await deps.objects.delete(key).catch(() => undefined);
      throw error;
    }
  });
}

/** How much of a body past the upload limit is read and dropped before the connection is cut instead. */
const DISCARD_AT_MOST = 64 * 1024 * 1024;

/** Reads and drops what is left of a body, up to `cap` bytes; past that the stream (the connection) is destroyed. */
function discardRest(stream: Readable, cap: number): Promise<void> {
  stream.unpipe();
  if (stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    stream.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > cap) stream.destroy();
    });
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
    stream.resume();
  });
}

/** Deletes a few uploads nobody imported within UPLOAD_TTL_MS, rows first, then their objects. */
export async function sweepExpiredUploads(
  deps: Pick<MediaUploadDeps, 'pool' | 'objects' | 'logger'>,
  now: Date,
) {
  const keys = await mediaUploadQueries(deps.pool).takeExpired(uploadsExpiredBefore(now), 20);
  for (const key of keys) {
    await deps.objects.delete(key).catch((error: unknown) => {
      deps.logger.warn({ err: error, key }, 'expired upload: its object could not be deleted');
    });
  }
}
