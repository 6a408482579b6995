import type { RequestHandler, Router } from 'express';
import { AppError } from '../../domain/errors';
import { shownInput } from '../../domain/shown-input';
import { listRoutes, pathParamNames } from '../route-table';

/**
 * No parameter of this API means a NUL character (U+0000), and Postgres cannot store one in text: a NUL that
 * got that far was a 500. Both guards refuse it at the edge, with a 400 naming the parameter.
 */
const NUL_MESSAGE = 'must not contain a NUL character (%00)';
const ENCODED_NUL = /%00/i;

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, nested]) => key.includes('\0') || holdsNul(nested));
}

/**
 * A query string can only carry a NUL as `%00`, so the URL is scanned once and the parsed query only when it
 * has one; each top-level parameter holding a NUL (in its name, its value or nested ones) is named (cut, as
 * every name a client chose is: a URL can carry a name of many kilobytes).
 */
export const rejectNulInQuery: RequestHandler = (req, _res, next) => {
  const query = req.url.indexOf('?');
  if (query < 0 || !ENCODED_NUL.test(req.url.slice(query))) {
    next();
    return;
  }
  const offending = Object.entries(req.query as Record<string, unknown>).filter(
    ([name, value]) => name.includes('\0') || holdsNul(value),
  );
  if (offending.length > 0) {
    throw AppError.validation(Object.fromEntries(offending.map(([name]) => [shownInput(name), NUL_MESSAGE])));
  }
  next();
};

/**
 * Guards every path parameter of the router's routes (call it after registering them): Express calls a
 * `router.param` callback with the decoded value before any handler of a route that has the parameter.
 */
export function rejectNulInPathParams(router: Router): void {
  const names = new Set(listRoutes(router).flatMap((route) => pathParamNames(route.path)));
  for (const name of names) {
    router.param(name, (_req, _res, next, value: unknown) => {
      if (typeof value === 'string' && value.includes('\0')) {
        throw AppError.validation({ [name]: NUL_MESSAGE });
      }
      next();
    });
  }
}
