import type { RequestHandler, Router } from 'express';
import { routeMatchers, type RouteMatcher } from '../route-table';
import { inVersionRange } from './api-version';
import { unknownRoute } from './errors';

/**
 * Mounted in front of `router`: a request that only routes of other versions take is the plain unknown-route
 * 404 at once. Each route's `onlyIn` gate runs only after Express has decoded and checked the route's path
 * parameters, so a parameter no route could take (a NUL, broken percent-encoding: GET channels/%00 on 2025-07)
 * was a 400 naming it, telling the client of a route its version does not have. Call it once the router's
 * routes are registered. Only when a route of other versions takes the request are all routes asked.
 */
export function absentRoutesAreUnknown(router: Router): RequestHandler {
  const all = routeMatchers(router);
  const gated = all.filter((route) => route.versions !== undefined);
  return (req, res, next) => {
    const method = req.method.toLowerCase();
    // HEAD is answered by a GET route, as Express does.
    const takes = (route: RouteMatcher) =>
      route.methods[method] === true || (method === 'head' && route.methods.get === true)
        ? route.matches(req.path)
        : false;
    const exists = (route: RouteMatcher) => !route.versions || inVersionRange(route.versions, req.apiVersion);
    const elsewhere = gated.some((route) => !exists(route) && takes(route));
    if (elsewhere && !all.some((route) => exists(route) && takes(route))) unknownRoute(req, res, next);
    else next();
  };
}
