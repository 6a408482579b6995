import type { Request, Response, Router } from 'express';
import { parseQueryOrThrow } from '../../query-params';
import { parseOrThrow } from '../../../domain/validation';
import { onlyIn } from '../../middleware/api-version';
import { requireScope } from '../../middleware/authenticate';
import type { RouteDeps } from '../deps';
import { menusParams, menusQuery } from './menus.schema';

/**
 * GET menus?handle= and GET menus/{channelHandle}?handle= (supplement §8): only in v1, beta and 2025-03
 * (api-spec §9 removes them from 2025-05, where the plain unknown-route 404 answers). Always a bare array.
 */
export function menuRoutes(router: Router, { auth, reads }: Pick<RouteDeps, 'auth' | 'reads'>): void {
  const listMenus = async (req: Request, res: Response) => {
    const { channelHandle } = parseOrThrow(menusParams, req.params);
    const { handle } = parseQueryOrThrow(menusQuery, req.query);
    res.json(await reads.menus.list(req.auth.projectId, { channelHandle, handle }));
  };
  const menuVersions = onlyIn({ to: '2025-03' });

  router.get('/menus', menuVersions, ...auth, requireScope('public-api:read'), listMenus);
  router.get('/menus/:channelHandle', menuVersions, ...auth, requireScope('public-api:read'), listMenus);
}
