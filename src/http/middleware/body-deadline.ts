import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { AppError } from '../../domain/errors';
import { errorEnvelope, errorNameOf } from './errors';

/** The requests whose body may take the server's whole requestTimeout (allowSlowBody). */
const slowBodiesAllowed = new WeakSet<IncomingMessage>();

/**
 * A request body's deadline, for every route but uploads: the server's requestTimeout (request-timeouts.ts:
 * 300 s, for a 25 MiB upload on a slow link) also let a client that declared a JSON body and sent it a byte at
 * a time hold its connection, and a body-parser waiting on it, for 5 minutes, where headersTimeout closes a
 * slowloris on the headers in 20 s. A body not in by `ms` after the request reached the app (BODY_TIMEOUT_MS,
 * 60 s: a 5 MB body at under 1 Mbit/s) is a 408 in the envelope and the connection closes; a body still
 * arriving after the answer went out (one the route did not read, which Node reads off) has its connection
 * closed then. A route that streams a large body (POST mediaLibrary/uploads) lifts it with allowSlowBody.
 */
export function bodyDeadline(ms: number): RequestHandler {
  return (req, res, next) => {
    const declared =
      req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!declared || req.complete) {
      next();
      return;
    }
    const timer = setTimeout(() => {
      if (req.complete || slowBodiesAllowed.has(req)) return;
      if (!res.headersSent) {
        // renderErrors: the body's reader fails as the connection closes (body-parser's 'request aborted'),
        // after this answer went out, which is no news.
        res.locals.bodyTimedOut = true;
        const error = new AppError(408, {
          name: errorNameOf(408),
          message: `The request body did not arrive in time: a body must arrive within ${ms / 1000} s`,
        });
        res.status(408).set('Connection', 'close').json(errorEnvelope(error));
      } else if (res.writableEnded) {
        req.socket.destroy();
      }
    }, ms);
    timer.unref();
    const clear = () => clearTimeout(timer);
    req.once('end', clear);
    req.once('close', clear);
    next();
  };
}

/** For a route that streams a large body on purpose: only the server's requestTimeout bounds it. */
export function allowSlowBody(req: IncomingMessage): void {
  slowBodiesAllowed.add(req);
}
