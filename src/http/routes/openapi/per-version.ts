import { ALL_VERSION_LABELS, type ApiVersion } from '../../../domain/api-versions';
import { inVersionRange, type VersionRange } from '../../middleware/api-version';
import { routeExistsIn, type RouteEntry } from '../../route-table';

type Schema = Record<string, unknown>;

/**
 * Marks a part of the description (an alternative of a `oneOf`, a parameter, an operation) as present only in
 * some API versions. The description of one version keeps what its version has and drops the mark.
 */
export const VERSIONS_KEY = 'x-broadsheet-versions';

export const inVersions = <T extends object>(range: VersionRange, part: T): T & Schema => ({
  ...part,
  [VERSIONS_KEY]: range,
});

/** `/documents/:documentId` → `/documents/{documentId}`, and a splat `/serve-image/*key` → `/serve-image/{key}`. */
export const openApiPath = (expressPath: string): string => expressPath.replace(/[:*](\w+)/g, '{$1}');

/** The versions a route exists in, said in words for the reader. */
function describeRange(range: VersionRange): string {
  const parts: string[] = [];
  if (range.labels) parts.push(range.labels.join(', '));
  if (range.from && range.to) parts.push(`${range.from} to ${range.to}`);
  else if (range.from) parts.push(`from ${range.from}`);
  else if (range.to) parts.push(range.to === '2025-03' ? 'v1, beta and 2025-03' : `v1 to ${range.to}`);
  return parts.join('; ');
}

/** Keeps what the version has: marked parameters and `oneOf` alternatives outside it go, the marks go. */
function resolve(value: unknown, version: ApiVersion): unknown {
  if (Array.isArray(value)) {
    return value.filter((item) => !isMarkedOutside(item, version)).map((item) => resolve(item, version));
  }
  if (!value || typeof value !== 'object') return value;
  const object = value as Schema;
  const alternatives = object.oneOf;
  if (Array.isArray(alternatives) && alternatives.length > 0 && alternatives.every(isMarked)) {
    const chosen: unknown = (alternatives as unknown[]).find((item) => !isMarkedOutside(item, version));
    const { oneOf: _alternatives, ...rest } = object;
    return resolve({ ...rest, ...(chosen as Schema) }, version);
  }
  return Object.fromEntries(
    Object.entries(object)
      .filter(([key]) => key !== VERSIONS_KEY)
      .map(([key, inner]) => [key, resolve(inner, version)]),
  );
}

const isMarked = (item: unknown): boolean =>
  typeof item === 'object' && item !== null && VERSIONS_KEY in item;

const isMarkedOutside = (item: unknown, version: ApiVersion): boolean =>
  isMarked(item) && !inVersionRange((item as Record<string, VersionRange>)[VERSIONS_KEY]!, version);

/**
 * The description of one API version, from the description of all of them (`buildOpenApiDocument`) and the
 * routes the app has mounted: exactly the operations the version has (a route gated by `onlyIn` is there
 * only in its range, each operation says which versions have it), lists in the version's shape (bare arrays up
 * to 2025-11, `{results}` from 2026-01), and only the parameters the version reads.
 */
export function documentForVersion(all: Schema, routes: readonly RouteEntry[], version: ApiVersion): Schema {
  const described = all.paths as Record<string, Record<string, Schema>>;
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    if (!routeExistsIn(route, version)) continue;
    const path = openApiPath(route.path);
    const method = route.method.toLowerCase();
    const operation = described[path]?.[method];
    if (!operation) continue;
    const only = route.versions ? { [VERSIONS_KEY]: describeRange(route.versions) } : {};
    paths[path] = { ...paths[path], [method]: { ...(resolve(operation, version) as Schema), ...only } };
    // Express answers a HEAD with the handler of the GET (its route lists no HEAD of its own): a HEAD the
    // description has is there wherever its GET is.
    const head = method === 'get' ? described[path]?.head : undefined;
    if (head) paths[path] = { ...paths[path], head: { ...(resolve(head, version) as Schema), ...only } };
  }
  const info = all.info as Schema;
  const absent = routes
    .filter((route) => !routeExistsIn(route, version))
    .map((route) => `${route.method} ${openApiPath(route.path)} (${describeRange(route.versions!)})`);
  return {
    ...(resolve({ ...all, paths: {} }, version) as Schema),
    info: {
      ...info,
      version: version.label,
      description:
        `${String(info.description)}\n\n**This is API version ${version.label}**` +
        (version.label === version.effective ? '' : ` (behaves as ${version.effective})`) +
        `. Lists answer ${version.wrapsLists ? 'an object {results, ...}' : 'a bare array'} ` +
        `(bare arrays up to 2025-11, {results} from 2026-01).` +
        (absent.length > 0
          ? ` Not in this version, only in others: ${[...new Set(absent)].join(', ')}.`
          : '') +
        ` Other versions: ${ALL_VERSION_LABELS.filter((label) => label !== version.label)
          .map((label) => `[${label}](/api/${label}/docs)`)
          .join(', ')}.`,
    },
    servers: [{ url: `/api/${version.label}` }],
    paths,
  };
}
