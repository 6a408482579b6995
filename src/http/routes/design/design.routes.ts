import type { Router } from 'express';
import { requireScope } from '../../middleware/authenticate';
import type { RouteDeps } from '../deps';

/** GET design and GET design/{designVersion} (api-spec §4.5, §4.6). */
export function designRoutes(router: Router, { auth, reads }: Pick<RouteDeps, 'auth' | 'reads'>): void {
  router.get('/design', ...auth, requireScope('public-api:read'), async (req, res) => {
    res.json(await reads.designs.current(req.auth.projectId));
  });

  router.get('/design/:designVersion', ...auth, requireScope('public-api:read'), async (req, res) => {
    res.json(await reads.designs.byVersion(req.auth.projectId, String(req.params.designVersion)));
  });
}
