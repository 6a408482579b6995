/**
 * Where the bytes of media assets live. Postgres keeps the entry and its key only; the bytes go to one
 * ObjectStore, built once in src/context.ts from config: a folder of the machine (the embedded default,
 * src/storage/local-folder-store.ts) or any S3-compatible store (src/storage/s3-store.ts).
 */

import { CONNECTION_ERRNOS } from '../domain/connection-errors';

export interface StoredObjectInfo {
  key: string;
  /** Bytes of the whole object (not of a requested range). */
  size: number;
  contentType: string;
  /** A strong HTTP entity tag of the bytes, quotes included (e.g. `"3f2a…"`), ready for `ETag`. */
  etag: string;
  lastModified: Date;
}

export interface ObjectStore {
  /** Writes the whole object; resolves once durable. Streams are consumed. */
  put(
    key: string,
    body: Buffer | NodeJS.ReadableStream,
    info: { contentType: string; size?: number },
  ): Promise<StoredObjectInfo>;
  head(key: string): Promise<StoredObjectInfo | null>;
  /** A readable stream of the bytes (or of [start, end] inclusive), or null for an unknown key. */
  get(
    key: string,
    range?: { start: number; end: number },
  ): Promise<{ info: StoredObjectInfo; body: NodeJS.ReadableStream } | null>;
  /**
   * Like get of the whole object, but one of at most `maxBytes` comes read into memory (`bytes`), not as a
   * stream: for a small image one read and one socket write cost a fraction of a stream's chunks. A larger
   * object comes as get's stream.
   */
  getSmall(key: string, maxBytes: number): Promise<SmallObject | null>;
  delete(key: string): Promise<void>;
}

/** What getSmall answers: the bytes themselves when the object is small enough, else a stream of them. */
export type SmallObject =
  { info: StoredObjectInfo; bytes: Buffer } | { info: StoredObjectInfo; body: NodeJS.ReadableStream };

/** A key no store accepts (see objectKeyProblem); a caller that lets one through has a bug, or bad input. */
export class InvalidObjectKeyError extends Error {
  constructor(
    readonly key: string,
    readonly problem: string,
  ) {
    super(`invalid object key ${JSON.stringify(key)}: ${problem}`);
    this.name = 'InvalidObjectKeyError';
  }
}

/** What put refuses when the stream's bytes disagree with the announced `size`: nothing is stored. */
export class ObjectSizeMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`the body has ${actual} bytes, not the announced ${expected}`);
    this.name = 'ObjectSizeMismatchError';
  }
}

/**
 * The store could not be reached or answered that it cannot serve now (refused or cut connection, unknown
 * host, timeout, a 5xx): the server's trouble for a while, not a bug nor the client's fault. The API answers
 * it 503 StorageUnavailable with Retry-After. `cause` is what the store's client threw.
 */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the object store is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Socket and DNS errors that mean the store's host could not be reached or the connection was lost: those of
 * any connection (as the database pool's), and the store's own as an HTTP client: a connection aborted and
 * undici's socket error (the pool does not count these).
 */
const UNREACHABLE_ERRNOS = new Set([...CONNECTION_ERRNOS, 'ECONNABORTED', 'UND_ERR_SOCKET']);

/**
 * Whether an error a remote store's client threw means the store is unavailable (see StoreUnavailableError):
 * a network error (its errno, also inside an AggregateError), the SDK's own timeouts, or an answer of 5xx.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (error instanceof StoreUnavailableError) return true;
  const { code, name, errors, $metadata, status } = error as {
    code?: unknown;
    name?: unknown;
    errors?: unknown;
    $metadata?: { httpStatusCode?: unknown };
    status?: unknown;
  };
  if (typeof code === 'string' && UNREACHABLE_ERRNOS.has(code)) return true;
  // The SDK may hand a network error on re-made, its errno only in the message ("... connect ECONNREFUSED ...").
  const { message } = error as { message?: unknown };
  if (typeof message === 'string' && message.split(/[^A-Z_]+/).some((word) => UNREACHABLE_ERRNOS.has(word))) {
    return true;
  }
  if (name === 'TimeoutError' || name === 'RequestTimeout' || name === 'SlowDown') return true;
  if (Array.isArray(errors) && errors.some(isStoreUnavailable)) return true;
  const httpStatus = $metadata?.httpStatusCode ?? status;
  return typeof httpStatus === 'number' && httpStatus >= 500 && httpStatus <= 599;
}

/**
 * `error` as a StoreUnavailableError when it says the store is unavailable (isStoreUnavailable), else as it
 * is: for what a remote store's body fails with (its connection lost midway), which is no sign of the database
 * being away, nor a bug.
 */
export function storeUnavailableOr(error: unknown): unknown {
  return error instanceof StoreUnavailableError || !isStoreUnavailable(error)
    ? error
    : new StoreUnavailableError(error);
}

/** A range that starts at or beyond the object's end (HTTP 416). */
export class UnsatisfiableRangeError extends Error {
  constructor(readonly size: number) {
    super(`the range starts beyond the object's ${size} bytes`);
    this.name = 'UnsatisfiableRangeError';
  }
}

/** S3's limit on a key, in UTF-8 bytes. */
export const MAX_OBJECT_KEY_BYTES = 1024;
/** Most file systems' limit on one path segment, in bytes: the local store makes each segment a name. */
export const MAX_OBJECT_KEY_SEGMENT_BYTES = 255;

// Control characters (C0, DEL, C1): never part of a key, and a NUL would cut a file-system path short.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `key` cannot name an object, or undefined when it can. Keys are `<projectId>/<mediaId>/<random>/<file>`
 * style: slash-separated segments, none empty, `.` or `..` (so that no key climbs out of the local store's
 * folder, or means something else to a file system than to S3), no leading or trailing slash, no backslash, no
 * control character.
 */
export function objectKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string' || key.length === 0) return 'must be a non-empty string';
  if (Buffer.byteLength(key, 'utf8') > MAX_OBJECT_KEY_BYTES) {
    return `must be at most ${MAX_OBJECT_KEY_BYTES} bytes`;
  }
  if (CONTROL_CHARACTER.test(key)) return 'must not contain control characters';
  if (key.includes('\\')) return 'must not contain backslashes';
  if (key.startsWith('/')) return 'must not start with a slash';
  if (key.endsWith('/')) return 'must not end with a slash';
  for (const segment of key.split('/')) {
    if (segment === '') return 'must not contain empty segments (//)';
    if (segment === '.' || segment === '..') return 'must not contain . or .. segments';
    if (Buffer.byteLength(segment, 'utf8') > MAX_OBJECT_KEY_SEGMENT_BYTES) {
      return `must not have a segment longer than ${MAX_OBJECT_KEY_SEGMENT_BYTES} bytes`;
    }
  }
  return undefined;
}

/** Throws InvalidObjectKeyError unless `key` is a valid object key (objectKeyProblem); every store calls it. */
export function checkObjectKey(key: string): void {
  const problem = objectKeyProblem(key);
  if (problem !== undefined) throw new InvalidObjectKeyError(String(key), problem);
}

/**
 * The inclusive range a store serves for `range` over an object of `size` bytes: the end is clamped to the last
 * byte (as HTTP does), a start at or beyond the end is unsatisfiable.
 */
export function clampRange(
  range: { start: number; end: number },
  size: number,
): { start: number; end: number } {
  if (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end)) {
    throw new RangeError('range bounds must be integers');
  }
  if (range.start < 0 || range.end < range.start) throw new RangeError('range must have 0 <= start <= end');
  if (range.start >= size) throw new UnsatisfiableRangeError(size);
  return { start: range.start, end: Math.min(range.end, size - 1) };
}
