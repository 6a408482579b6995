import type { Express, Request, Response } from 'express';
import { AppError } from '../domain/errors';
import { clientCopyCurrent, ifMatchFailureOnRead, parseHttpDate } from './conditional-get';

/** What a 2xx answer said of its representation, which a 412 in its place does not carry. */
const REPRESENTATION_HEADERS = ['Cache-Control', 'Content-Type', 'ETag', 'Last-Modified', 'Surrogate-Key'];

/**
 * Replaces Express's `req.fresh` on the app's requests: what res.send (every JSON answer, the docs assets) and
 * sendJsonItems answer 304 by. Express's (the `fresh` package) says "not fresh" to any request carrying
 * `Cache-Control: no-cache`, and fetch (browsers, Node's undici) adds exactly that, with `Pragma: no-cache`,
 * to every request whose caller sets If-None-Match: pollers and widgets built on fetch never got a 304. A
 * request's `no-cache` is addressed to caches (RFC 9111 §5.2.1.4: use nothing stored without asking the
 * origin); the origin, this process, still evaluates the validators (RFC 9110 §13.2.1). The rest is as
 * Express had it: only a GET or HEAD answered 2xx (or 304), If-None-Match (weak comparison, `*`) before
 * If-Modified-Since; serve-image decides its conditions with the same clientCopyCurrent.
 *
 * It is also where a GET or HEAD's If-Match is judged (RFC 9110 §13.1.1: a 412 when it does not hold, for
 * any method), first, as §13.2.2 orders them: the one place every answer passes with its ETag set and its
 * status known, before a byte is written. A failing one throws the 412 from the handler's res.send (or
 * sendJsonChunks), which the error middleware renders in the envelope. A request without any of these
 * headers costs three header reads, as before.
 */
export function answerConditionalRequestsAtOrigin(app: Express): void {
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request): boolean {
      const ifNoneMatch = this.headers['if-none-match'];
      const ifModifiedSince = this.headers['if-modified-since'];
      const ifMatch = this.headers['if-match'];
      if (ifNoneMatch === undefined && ifModifiedSince === undefined && ifMatch === undefined) return false;
      if (this.method !== 'GET' && this.method !== 'HEAD') return false;
      const res = this.res!;
      const status = res.statusCode;
      if (!((status >= 200 && status < 300) || status === 304)) return false;
      const etag = res.get('ETag');
      if (ifMatch !== undefined && status < 300) refuseUnlessMatched(res, ifMatch, etag);
      if (ifNoneMatch === undefined && ifModifiedSince === undefined) return false;
      const lastModifiedHeader = res.get('Last-Modified');
      const lastModified = lastModifiedHeader === undefined ? undefined : parseHttpDate(lastModifiedHeader);
      return clientCopyCurrent(
        { ifNoneMatch, ifModifiedSince },
        {
          etag,
          lastModified: lastModified === undefined ? undefined : new Date(lastModified),
        },
      );
    },
  });
}

/** Throws the 412 of an If-Match that does not hold on the answer about to be sent. */
function refuseUnlessMatched(res: Response, ifMatch: string, etag: string | undefined): void {
  const failure = ifMatchFailureOnRead(ifMatch, etag);
  if (failure === undefined) return;
  for (const name of REPRESENTATION_HEADERS) res.removeHeader(name);
  throw new AppError(412, { name: 'PreconditionFailed', message: failure });
}
