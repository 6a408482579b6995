import type { RequestHandler } from 'express';
import { ALL_VERSION_LABELS, ApiVersion, type VersionLabel } from '../../domain/api-versions';
import { AppError } from '../../domain/errors';

/** Reads `/api/{version}` into `req.apiVersion`; an unknown label is 404 UnknownApiVersion (supplement §1). */
export const apiVersion: RequestHandler = (req, _res, next) => {
  const label = String(req.params.apiVersion);
  const version = ApiVersion.parse(label);
  if (!version) {
    throw new AppError(404, {
      name: 'UnknownApiVersion',
      message: `Unknown API version '${label}'. Known versions: ${ALL_VERSION_LABELS.join(', ')}`,
    });
  }
  req.apiVersion = version;
  next();
};

/**
 * Restricts a route to a range of versions. Outside it the route does not exist: Express skips to the
 * next route, and in the end the plain unknown-route 404 answers.
 */
export function onlyIn(range: { from?: VersionLabel; to?: VersionLabel; labels?: string[] }): RequestHandler {
  return (req, _res, next) => {
    const v = req.apiVersion;
    const inRange =
      (!range.from || v.atLeast(range.from)) &&
      (!range.to || v.atMost(range.to)) &&
      (!range.labels || range.labels.includes(v.label));
    next(inRange ? undefined : 'route');
  };
}
