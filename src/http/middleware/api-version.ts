import type { RequestHandler } from 'express';
import { ALL_VERSION_LABELS, ApiVersion, type VersionLabel } from '../../domain/api-versions';
import { AppError } from '../../domain/errors';
import { quoted } from '../../domain/shown-input';

/** Reads `/api/{version}` into `req.apiVersion`; an unknown label is 404 UnknownApiVersion (supplement §1). */
export const apiVersion: RequestHandler = (req, _res, next) => {
  const label = String(req.params.apiVersion);
  const version = ApiVersion.parse(label);
  if (!version) {
    throw new AppError(404, {
      name: 'UnknownApiVersion',
      message: `Unknown API version ${quoted(label)}. Known versions: ${ALL_VERSION_LABELS.join(', ')}`,
    });
  }
  req.apiVersion = version;
  next();
};

/** The API versions a route exists in (`onlyIn`): every bound optional, `labels` names literal labels. */
export interface VersionRange {
  from?: VersionLabel;
  to?: VersionLabel;
  labels?: string[];
}

/** Whether a version is in a range; what `onlyIn` decides per request and the OpenAPI documents per version. */
export function inVersionRange(range: VersionRange, version: ApiVersion): boolean {
  return (
    (!range.from || version.atLeast(range.from)) &&
    (!range.to || version.atMost(range.to)) &&
    (!range.labels || range.labels.includes(version.label))
  );
}

/** The handler `onlyIn` returns carries its range, so the route table can tell which versions have a route. */
export type VersionGate = RequestHandler & { versionRange: VersionRange };

/**
 * Restricts a route to a range of versions. Outside it the route does not exist: Express skips to the
 * next route, and in the end the plain unknown-route 404 answers.
 */
export function onlyIn(range: VersionRange): VersionGate {
  const gate: RequestHandler = (req, _res, next) => {
    next(inVersionRange(range, req.apiVersion) ? undefined : 'route');
  };
  return Object.assign(gate, { versionRange: range });
}
