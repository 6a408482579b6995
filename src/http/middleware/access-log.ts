import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { loggableUrl } from '../../domain/loggable-url';
import type { Logger } from '../../logger';

/**
 * Gives every request an id (the caller's X-Request-Id when it sends a sane one, else a new UUID), answers
 * it in X-Request-Id, and logs one line when the response is finished: method, URL, status and time; at
 * error level for a 5xx. Liveness probes are not logged.
 *
 * pino-http did the same, but serialised every request into a child logger up front, whether or not the line
 * would be written (~3% of the API's CPU on small searches with LOG_LEVEL=warn); nothing here uses a per-request
 * logger, so the line is built only when it is written.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id =
      typeof incoming === 'string' && incoming.length > 0 && incoming.length <= 200 ? incoming : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (!req.url.endsWith('/health')) {
      const started = performance.now();
      res.once('finish', () => {
        const level = res.statusCode >= 500 ? 'error' : 'info';
        if (!logger.isLevelEnabled(level)) return;
        logger[level](
          {
            reqId: id,
            req: { method: req.method, url: loggableUrl(req.originalUrl), remoteAddress: req.ip },
            res: { statusCode: res.statusCode },
            responseTime: Math.round(performance.now() - started),
          },
          'request completed',
        );
      });
    }
    next();
  };
}
