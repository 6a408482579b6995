import type { Router } from 'express';
import type { ApiVersion } from '../domain/api-versions';
import { inVersionRange, type VersionRange } from './middleware/api-version';

/** One route as registered: its method and path template, prefixed with where its router is mounted. */
export interface RouteEntry {
  /** Upper case: `GET`, `PATCH`, ... */
  method: string;
  /** Express path syntax: `/api/:apiVersion/documents/:documentId/commands`. */
  path: string;
  /** The versions the route exists in, when an `onlyIn` gate in its pipeline restricts them; else every one. */
  versions?: VersionRange;
}

/** Whether a route exists in an API version (it has no gate, or the version is in its gate's range). */
export function routeExistsIn(route: RouteEntry, version: ApiVersion): boolean {
  return !route.versions || inVersionRange(route.versions, version);
}

/** The shape of a router layer this walk reads (Express does not type `rawPath` or the route's methods). */
interface Layer {
  route?: { path: unknown; methods?: Record<string, boolean>; stack?: unknown };
  handle?: unknown;
  /** Express's own matching of a path against the layer: false, or the match; throws when a parameter does not decode. */
  match?: (path: string) => unknown;
  /** The path the layer was registered with (router 2.x); `use()` layers of a sub-router carry their mount path. */
  rawPath?: unknown;
}

interface Stacked {
  stack?: unknown;
}

/**
 * Every route of a router and the routers mounted in it, read from the router's own stack, so whoever asks
 * (param guards, the route fuzz test) sees exactly what Express dispatches to, routes added later included.
 */
export function listRoutes(router: Pick<Router, 'stack'>): RouteEntry[] {
  return routesOf(router.stack, '');
}

function routesOf(layers: readonly Layer[], prefix: string): RouteEntry[] {
  const routes: RouteEntry[] = [];
  for (const layer of layers) {
    if (layer.route) {
      const paths: unknown[] = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      const versions = versionGateOf(layer.route.stack);
      for (const path of paths) {
        if (typeof path !== 'string') continue;
        for (const [method, handled] of Object.entries(layer.route.methods ?? {})) {
          if (handled && method !== '_all')
            routes.push({ method: method.toUpperCase(), path: prefix + path, ...(versions && { versions }) });
        }
      }
      continue;
    }
    const nested = (layer.handle as Stacked | undefined)?.stack;
    if (Array.isArray(nested) && typeof layer.rawPath === 'string') {
      const mount = layer.rawPath === '/' ? '' : layer.rawPath;
      routes.push(...routesOf(nested as Layer[], prefix + mount));
    }
  }
  return routes;
}

/** The range of the first `onlyIn` gate among a route's handlers, if it has one. */
function versionGateOf(stack: unknown): VersionRange | undefined {
  if (!Array.isArray(stack)) return undefined;
  for (const layer of stack as Layer[]) {
    const range = (layer.handle as { versionRange?: VersionRange } | undefined)?.versionRange;
    if (range) return range;
  }
  return undefined;
}

/**
 * A route of a router (not of routers mounted in it) as Express matches it: its methods, the versions it exists
 * in, and whether a path (relative to the router) is one of its paths, judged as the router judges it.
 */
export interface RouteMatcher {
  methods: Record<string, boolean>;
  versions?: VersionRange;
  matches(path: string): boolean;
}

export function routeMatchers(router: Pick<Router, 'stack'>): RouteMatcher[] {
  return (router.stack as readonly Layer[]).flatMap((layer): RouteMatcher[] => {
    const { route, match } = layer;
    if (!route || !match) return [];
    const versions = versionGateOf(route.stack);
    const matches = (path: string): boolean => {
      try {
        return match.call(layer, path) !== false;
      } catch {
        // Only a path the route's pattern takes gets as far as decoding its parameters.
        return true;
      }
    };
    return [{ methods: route.methods ?? {}, ...(versions && { versions }), matches }];
  });
}

/** `:name` and `*name` parameters of an Express path template, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/[:*]([A-Za-z_$][\w$]*)/g)].map((match) => match[1] ?? '');
}
