import type { Express, Request } from 'express';
import { clientCopyCurrent, parseHttpDate } from './conditional-get';

/**
 * Replaces Express's `req.fresh` on the app's requests: what res.send (every JSON answer, the docs assets) and
 * sendJsonItems answer 304 by. Express's (the `fresh` package) says "not fresh" to any request carrying
 * `Cache-Control: no-cache`, and fetch (browsers, Node's undici) adds exactly that, with `Pragma: no-cache`,
 * to every request whose caller sets If-None-Match: pollers and widgets built on fetch never got a 304. A
 * request's `no-cache` is addressed to caches (RFC 9111 §5.2.1.4: use nothing stored without asking the
 * origin); the origin, this process, still evaluates the validators (RFC 9110 §13.2.1). The rest is as
 * Express had it: only a GET or HEAD answered 2xx (or 304), If-None-Match (weak comparison, `*`) before
 * If-Modified-Since; serve-image decides its conditions with the same clientCopyCurrent.
 */
export function answerConditionalRequestsAtOrigin(app: Express): void {
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request): boolean {
      const ifNoneMatch = this.headers['if-none-match'];
      const ifModifiedSince = this.headers['if-modified-since'];
      if (ifNoneMatch === undefined && ifModifiedSince === undefined) return false;
      if (this.method !== 'GET' && this.method !== 'HEAD') return false;
      const res = this.res!;
      const status = res.statusCode;
      if (!((status >= 200 && status < 300) || status === 304)) return false;
      const lastModifiedHeader = res.get('Last-Modified');
      const lastModified = lastModifiedHeader === undefined ? undefined : parseHttpDate(lastModifiedHeader);
      return clientCopyCurrent(
        { ifNoneMatch, ifModifiedSince },
        {
          etag: res.get('ETag'),
          lastModified: lastModified === undefined ? undefined : new Date(lastModified),
        },
      );
    },
  });
}
