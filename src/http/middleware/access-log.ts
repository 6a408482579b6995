import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
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

/** Query parameter names whose values are credentials (`access_token`, `client_secret`, `api_key`, ...). */
const CREDENTIAL_PARAMETER = /token|secret|passw|api[-_]?key|credential|signature|^auth(orization)?$/i;

/**
 * The URL as it may be logged: the value of every query parameter that names a credential is `[REDACTED]`.
 * Tokens are refused in the query string (only the Authorization header carries them), but a client that
 * sends one anyway must not leave it in the logs. The rest of the URL is kept as sent.
 */
export function loggableUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const pairs = url
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const end = pair.indexOf('=');
      const rawName = end < 0 ? pair : pair.slice(0, end);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: the name is matched as sent.
      }
      return CREDENTIAL_PARAMETER.test(name) ? `${rawName}=[REDACTED]` : pair;
    });
  return `${url.slice(0, start)}?${pairs.join('&')}`;
}
