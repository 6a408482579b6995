import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';
import { storeUnavailableOr, type ObjectStore, type StoredObjectInfo } from '../storage/object-store';
import { decideRange, evaluatePreconditions, ifRangeAllows, type Preconditions } from './conditional-get';

/**
 * Objects up to this size are answered from one read into memory (ObjectStore.getSmall), larger ones streamed:
 * most web images are smaller, and memory stays bounded by this much per request in flight.
 */
export const IN_MEMORY_BYTES = 1024 * 1024;

/** Headers that describe the bytes: taken back when an error answers instead. */
const ENTITY_HEADERS = [
  'Accept-Ranges',
  'Cache-Control',
  'Content-Length',
  'Content-Range',
  'Content-Security-Policy',
  'Content-Type',
  'ETag',
  'Last-Modified',
];

function clearEntityHeaders(res: Response): void {
  for (const name of ENTITY_HEADERS) res.removeHeader(name);
}

function setValidators(res: Response, info: StoredObjectInfo, cacheControl: string): void {
  res.setHeader('ETag', info.etag);
  res.setHeader('Last-Modified', info.lastModified.toUTCString());
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('Accept-Ranges', 'bytes');
}

/**
 * Answers a GET (or HEAD) with an object of the store, streamed: 200 whole, 206 for one range, 304 when the
 * client's copy is current (If-None-Match, else If-Modified-Since), 412 when If-Match (else If-Unmodified-Since)
 * fails, 416 for a range beyond the end; a HEAD ignores Range (RFC 9110 §14.2). A plain GET costs one store request (its
 * answer brings the headers); a conditional, ranged or HEAD request asks for the object's head first. An object
 * of up to IN_MEMORY_BYTES may come read whole (one write); a larger one is streamed, so memory stays at one
 * chunk in flight whatever its size.
 */
export async function serveObject(
  objects: ObjectStore,
  key: string,
  req: Request,
  res: Response,
  options: { cacheControl: string; notFound: () => AppError },
): Promise<void> {
  const preconditions: Preconditions = {
    ifMatch: req.headers['if-match'],
    ifNoneMatch: req.headers['if-none-match'],
    ifModifiedSince: req.headers['if-modified-since'],
    ifUnmodifiedSince: req.headers['if-unmodified-since'],
  };
  // RFC 9110 §14.2: Range is defined for GET only; any other method (HEAD) answers as without it.
  const rangeHeader = req.method === 'GET' ? req.headers.range : undefined;
  const plain =
    req.method === 'GET' &&
    rangeHeader === undefined &&
    Object.values(preconditions).every((value) => value === undefined);
  let info: StoredObjectInfo | null;
  let body: NodeJS.ReadableStream | undefined;
  let bytes: Buffer | undefined;
  if (plain) {
    const got = await objects.getSmall(key, IN_MEMORY_BYTES);
    info = got?.info ?? null;
    if (got !== null) {
      if ('bytes' in got) bytes = got.bytes;
      else body = got.body;
    }
  } else {
    info = await objects.head(key);
  }
  if (info === null) throw options.notFound();

  setValidators(res, info, options.cacheControl);
  // Stored bytes are the publisher's, not ours: should a browser open one, it runs nothing and loads nothing.
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  const outcome = evaluatePreconditions(preconditions, info);
  if (outcome === 'not-modified') {
    res.status(304).end();
    return;
  }
  if (outcome === 'failed') {
    clearEntityHeaders(res);
    throw new AppError(412, {
      name: 'PreconditionFailed',
      message:
        'The image does not match If-Match or If-Unmodified-Since: it is not the version the client has',
    });
  }
  const range =
    body === undefined && bytes === undefined && ifRangeAllows(req.get('if-range'), info.etag)
      ? decideRange(rangeHeader, info.size)
      : ({ kind: 'whole' } as const);
  if (range.kind === 'unsatisfiable') {
    clearEntityHeaders(res);
    res.setHeader('Content-Range', `bytes */${info.size}`);
    throw new AppError(416, {
      name: 'RangeNotSatisfiable',
      message: `The range ${quoted(rangeHeader ?? '')} is outside the ${info.size} bytes of the image`,
    });
  }
  res.setHeader('Content-Type', info.contentType);
  if (range.kind === 'partial') {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
    res.setHeader('Content-Length', String(range.end - range.start + 1));
  } else {
    res.status(200);
    res.setHeader('Content-Length', String(info.size));
  }
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  if (bytes !== undefined) {
    res.end(bytes);
    return;
  }
  if (body === undefined) {
    // The client went away while the head was read: no read of the bytes for nobody.
    if (res.destroyed) return;
    const got = await objects.get(key, range.kind === 'partial' ? range : undefined);
    if (got === null) {
      clearEntityHeaders(res);
      throw options.notFound();
    }
    body = got.body;
  }
  try {
    await sendBody(body as Readable, res);
  } catch (error) {
    // Nothing sent yet: the error answers in the envelope (a store that dropped or left the read: 503).
    clearEntityHeaders(res);
    throw storeUnavailableOr(error);
  }
}

/**
 * Streams `body` to the client, with backpressure. A body that fails before its first byte went out rejects
 * with its error, the response still unsent, so that the error can answer in the envelope. One that fails later
 * closes the connection: the client sees a short body (its Content-Length unmet), never one that looks whole.
 * A client that goes away destroys the body, also one gone before the body came: the store's read is aborted,
 * its connection not left open.
 */
function sendBody(body: Readable, res: Response): Promise<void> {
  // The client went away while the store was asked: its 'close' is past, nobody would ever read the body.
  if (res.destroyed) {
    body.destroy();
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const settle = () => {
      body.off('error', onError);
      res.off('close', onClose);
    };
    const onError = (error: Error) => {
      settle();
      body.unpipe(res);
      body.destroy();
      if (res.headersSent) {
        res.destroy();
        resolve();
      } else {
        reject(error);
      }
    };
    const onClose = () => {
      settle();
      if (!res.writableFinished) body.destroy();
      resolve();
    };
    body.on('error', onError);
    res.on('close', onClose);
    body.pipe(res);
  });
}
