import type { Router } from 'express';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import type { RouteDeps } from '../deps';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import { categoryParams, categoryQuery } from './categories.schema';

/** GET categories and GET categories/{categoryId} (api-spec §4.1, §4.2). */
export function categoryRoutes(
  router: Router,
  { auth, projectConfigs, reads }: Pick<RouteDeps, 'auth' | 'projectConfigs' | 'reads'>,
): void {
  router.get('/categories', ...auth, requireScope('public-api:read'), async (req, res) => {
    parseQueryOrThrow(noQueryParams, req.query);
    const project = await projectConfigs.get(req.auth.projectId);
    const results = await reads.categories.list(project);
    res.json(req.apiVersion.wrapsLists ? { results } : results);
  });

  router.get('/categories/:categoryId', ...auth, requireScope('public-api:read'), async (req, res) => {
    const { categoryId } = parseOrThrow(categoryParams, req.params);
    const query = parseQueryOrThrow(categoryQuery, req.query);
    const project = await projectConfigs.get(req.auth.projectId);
    res.json(await reads.categories.byId(project, categoryId, query));
  });
}
