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

/** `:name` and `*name` parameters of an Express path template, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/[:*]([A-Za-z_$][\w$]*)/g)].map((match) => match[1] ?? '');
}
