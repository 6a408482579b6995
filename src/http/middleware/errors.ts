import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import { AppError } from '../../domain/errors';
import { quoted, shownInput } from '../../domain/shown-input';
import { zodIssuesToPaths } from '../../domain/validation';
import {
  databaseUnavailableCause,
  isDatabaseUnavailable,
  isLockConflict,
  type PoolTimeouts,
} from '../../db/pool';
import { loggableUrl } from '../../domain/loggable-url';
import { StoreUnavailableError } from '../../storage/object-store';
import { RequestAbandonedError } from '../../media/decode-budget';
import type { Logger } from '../../logger';
import { VALIDATORS } from './write-validators';

/** Any path that no route answered: the spec's `404 {url}` (supplement §1). */
export const unknownRoute: RequestHandler = (req) => {
  throw new AppError(404, { url: req.originalUrl.split('?')[0] ?? req.originalUrl });
};

/**
 * OPTIONS is no method of this API (no route or description has it, and there is no CORS), so it is the plain
 * 404 like any method a route lacks. Left to the router, it answered `200 Allow: GET, HEAD` in text, also for a
 * route that does not exist in the version asked.
 */
export const noOptions: RequestHandler = (req, res, next) => {
  if (req.method === 'OPTIONS') unknownRoute(req, res, next);
  else next();
};

/**
 * An error raised by Express, the router or body-parser (http-errors style): it carries the status it should
 * answer with, `type` for body-parser's own errors, and `expose` when its message is meant for the client.
 */
interface HttpError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  type?: unknown;
  limit?: unknown;
  /** body-parser's: the charset or Content-Encoding it does not read. */
  charset?: unknown;
  encoding?: unknown;
  errno?: unknown;
  message?: unknown;
}

/**
 * The 4xx a library error says it is. `status` is http-errors' and the router's own field; `statusCode` alone
 * counts only with http-errors' `expose`, so that another client's error (Elasticsearch answering our query
 * with a 400) stays what it is for us: a bug, not the caller's fault.
 */
function clientStatusOf(error: HttpError): number | undefined {
  const status =
    typeof error.status === 'number' ? error.status : error.expose === true ? error.statusCode : undefined;
  return typeof status === 'number' && status >= 400 && status <= 499 ? status : undefined;
}

/** `Unsupported Media Type` → `UnsupportedMediaType`; a 400 is a ValidationError, as everywhere else. */
export function errorNameOf(status: number): string {
  if (status === 400) return 'ValidationError';
  return (STATUS_CODES[status] ?? 'Error').replace(/[^A-Za-z]/g, '');
}

/** The Content-Encodings body-parser decompresses (zstd: Node 23.8 and later, which `engines` requires). */
const BODY_ENCODINGS = ['gzip', 'deflate', 'br', 'zstd'];

const UNDECODABLE_PARAM = /^Failed to decode param '(.*)'$/s;

/** What went wrong, worded for the client, for the errors whose own message is not enough. */
function clientMessageOf(error: HttpError, status: number, contentEncoding: string | undefined): string {
  const message = typeof error.message === 'string' ? error.message : (STATUS_CODES[status] ?? 'Error');
  if (error.type === 'entity.parse.failed') return `Malformed JSON in the request body: ${message}`;
  if (error.type === 'entity.too.large') return bodyTooLargeMessage(error.limit);
  // body-parser's own words (`unsupported charset "LATIN1"`) said neither which header nor what to send.
  if (error.type === 'charset.unsupported') {
    return (
      `The request body's charset ${quoted(String(error.charset))} is not supported: send JSON as UTF-8 ` +
      '(Content-Type: application/json, or application/json; charset=utf-8)'
    );
  }
  if (error.type === 'encoding.unsupported') {
    return (
      `The request body's Content-Encoding ${quoted(contentEncoding ?? String(error.encoding))} is not supported: ` +
      `send the body as it is, or compressed with one of ${BODY_ENCODINGS.join(', ')}`
    );
  }
  const undecodable = UNDECODABLE_PARAM.exec(message);
  if (undecodable) {
    return `Malformed percent-encoding in the URL path: ${quoted(undecodable[1] ?? '')} does not decode to UTF-8 text`;
  }
  // A decompression stream's error (zlib's, brotli's, zstd's) carries an errno; body-parser's own have a type.
  if (status === 400 && error.type === undefined && typeof error.errno === 'number' && contentEncoding) {
    const why = message === STATUS_CODES[status] ? '' : `: ${message}`;
    return `The request body does not decode as its Content-Encoding ${quoted(contentEncoding)} says${why}`;
  }
  return message;
}

/** What a 413 says: body-parser's, and the one for a JSON body declared too large (json-body.ts). */
export function bodyTooLargeMessage(limit: unknown): string {
  return `The request body is larger than the limit of ${typeof limit === 'number' ? limit : '?'} bytes`;
}

/** Postgres refuses a text or jsonb value: a NUL character (U+0000) or one with no UTF-8 form. */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/**
 * The one error translation: turns whatever was thrown into an AppError, or undefined for what is not
 * recognised (a bug, answered 500). `contentEncoding` is the request's Content-Encoding header, which names
 * what a body failed to decode from.
 */
export function translateError(error: unknown, contentEncoding?: string): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof ZodError) return AppError.validation(zodIssuesToPaths(error.issues));
  if (typeof error !== 'object' || error === null) return undefined;
  // Before the database's errnos: a refused connection to S3 is no sign of Postgres being away.
  if (error instanceof StoreUnavailableError) return AppError.storageUnavailable();
  // Nobody is left to read it: a 400 (not a 500 logged as a bug), as a body cut off by its client is.
  if (error instanceof RequestAbandonedError) {
    return AppError.badRequest('The connection was closed before the request was answered');
  }
  const status = clientStatusOf(error);
  if (status !== undefined) {
    return new AppError(status, {
      name: errorNameOf(status),
      message: clientMessageOf(error, status, contentEncoding),
    });
  }
  // A write Postgres aborted for a lock conflict three times (withTransaction runs it again twice): nothing of
  // it was written and it may be sent again in a moment, as when the database is away.
  if (isDatabaseUnavailable(error) || isLockConflict(error)) return AppError.databaseUnavailable();
  const pg = error as { code?: unknown; detail?: unknown };
  if (pg.code === '23505') {
    return new AppError(409, { name: 'UniqueIdViolation', message: uniqueViolationMessage(pg.detail) });
  }
  if (pg.code === '22P02') return AppError.badRequest('A value has the wrong type');
  if (typeof pg.code === 'string' && UNSTORABLE_TEXT.has(pg.code)) {
    return AppError.badRequest(
      'A text value contains a character that cannot be stored: NUL (\\u0000) or one without a UTF-8 form',
    );
  }
  return undefined;
}

/**
 * Sends an error answer (a 4xx or 5xx in the envelope) as JSON with no validator: neither the ETag or
 * Last-Modified a route set before it failed, nor the weak ETag res.send would make over the envelope. A
 * validator on an error invites a client or a CDN to keep the error and revalidate it as if it were the
 * resource (RFC 9110 §8.8: a validator describes a selected representation, which an error is not). Written
 * here rather than by res.json, so that no successful answer pays for a check: it never passes here. Node
 * leaves out the body of a HEAD, keeping its Content-Length.
 */
export function sendErrorAnswer(res: Response, status: number, body: object): void {
  for (const name of VALIDATORS) res.removeHeader(name);
  const text = JSON.stringify(body);
  res.status(status);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Postgres's detail of a unique violation: `Key (project_id, handle)=(5, www) already exists.` */
const UNIQUE_VIOLATION_DETAIL = /^Key \((.*?)\)=\((.*)\) already exists\.$/s;

/**
 * What a 409 UniqueIdViolation says: Postgres's detail, whose values are what the client sent, cut as every
 * echo is (shownInput): a 10 kB id was repeated whole. The key's columns are the schema's and stay whole.
 */
function uniqueViolationMessage(detail: unknown): string {
  if (typeof detail !== 'string') return 'The id is already taken';
  const parts = UNIQUE_VIOLATION_DETAIL.exec(detail);
  if (!parts) return shownInput(detail);
  return `Key (${parts[1] ?? ''})=(${shownInput(parts[2] ?? '')}) already exists.`;
}

/** The spec's error body: `{status, error: <reason phrase>, error_details}`. */
export function errorEnvelope(error: AppError) {
  return { status: error.status, error: error.reason, error_details: error.details };
}

/**
 * The one error middleware, registered last: renders `{status, error, error_details}` for every non-2xx. A 503
 * DatabaseUnavailable is logged with its cause (`bound`: the DATABASE_* setting that cut it, if one did), which
 * its answer does not tell: an outage and a statement cut by the operator's own bound look alike to a client.
 */
export function renderErrors(logger: Logger, databaseTimeouts: PoolTimeouts): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    // Half an answer is on the wire already: Express's own handler closes the connection.
    if (res.headersSent) {
      // The 408 of a body that did not arrive in time went out; its reader failing as the connection closed is
      // no news (and would be logged as an error).
      if (res.locals.bodyTimedOut === true) return;
      next(error);
      return;
    }
    const appError = translateError(error, req.headers['content-encoding']);
    if (appError?.details.name === 'DatabaseUnavailable' && !(error instanceof AppError)) {
      const { bound, reason } = databaseUnavailableCause(error, databaseTimeouts);
      logger.warn(
        { requestId: req.id, url: loggableUrl(req.originalUrl), bound, reason },
        'database unavailable',
      );
    }
    if (!appError) {
      logger.error({ err: error, requestId: req.id, url: loggableUrl(req.originalUrl) }, 'unhandled error');
      sendErrorAnswer(res, 500, {
        status: 500,
        error: 'Internal Server Error',
        error_details: { message: 'Internal Server Error' },
      });
      return;
    }
    // A route that takes other credentials (Basic, planner-integration/oauth/token) sets its own challenge.
    // Every 401 has one; a 403 when it carries one (a token without the route's scope, RFC 6750 §3.1).
    const challenge = appError.status === 401 ? (appError.challenge ?? 'Bearer') : appError.challenge;
    if (challenge !== undefined && !res.hasHeader('WWW-Authenticate')) res.set('WWW-Authenticate', challenge);
    if (appError.retryAfterSeconds !== undefined) res.set('Retry-After', String(appError.retryAfterSeconds));
    sendErrorAnswer(res, appError.status, errorEnvelope(appError));
  };
}
