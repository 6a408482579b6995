import type { Router } from 'express';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import type { RouteDeps } from '../deps';
import { designParams } from './design.schema';

/** GET design and GET design/{designVersion} (api-spec §4.5, §4.6); neither takes a query parameter. */
export function designRoutes(router: Router, { auth, reads }: Pick<RouteDeps, 'auth' | 'reads'>): void {
  router.get('/design', ...auth, requireScope('public-api:read'), async (req, res) => {
    parseQueryOrThrow(noQueryParams, req.query);
    res.json(await reads.designs.current(req.auth.projectId));
  });

  router.get('/design/:designVersion', ...auth, requireScope('public-api:read'), async (req, res) => {
    const { designVersion } = parseOrThrow(designParams, req.params);
    parseQueryOrThrow(noQueryParams, req.query);
    res.json(await reads.designs.byVersion(req.auth.projectId, designVersion));
  });
}
