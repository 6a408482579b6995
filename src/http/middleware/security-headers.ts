import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * The headers Helmet sets (`set`) and removes (`removed`) with its default options, worked out once. None of
 * them depends on the request (the Content-Security-Policy has no per-request directive).
 */
export function helmetHeaders(): { set: [string, string][]; removed: string[] } {
  const set: [string, string][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader(name: string, value: unknown) {
      set.push([name, String(value)]);
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  let finished = false;
  let failed: unknown;
  helmet()({ headers: {} } as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    failed = error;
    finished = true;
  });
  if (failed !== undefined) throw failed instanceof Error ? failed : new Error('helmet() failed');
  // A Helmet that one day reads the request or answers asynchronously is not one this list can stand for.
  if (!finished) throw new Error('helmet() did not finish at once: its headers cannot be worked out once');
  return { set, removed };
}

/**
 * Helmet's security headers (helmetHeaders): instead of running Helmet's dozen middlewares on every request,
 * each working out and setting one header, the headers they set are recorded at start and set from that list.
 * The docs page still sets its own policy on its routes.
 */
export function securityHeaders(): RequestHandler {
  const { set, removed } = helmetHeaders();
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}
