import type { Router } from 'express';
import { sendJsonInSlices } from '../../json-slices';
import { requestLifetime } from '../../request-lifetime';
import { parseQueryOrThrow } from '../../query-params';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import type { RouteDeps } from '../deps';
import { documentListParams, documentListQuery, documentListsQuery } from './document-lists.schema';

/**
 * GET document-lists and GET document-lists/{id} (api-spec §4.7, §4.8, supplement §8): the project's lists
 * with their published documents resolved. The listing is wrapped as `{results}` from 2026-01; one list is an
 * object in every version. Another project's list is a 404. Answered in slices (sendJsonInSlices): 100
 * documents with their content can be 100 MB of JSON; a client that goes away stops the views and the
 * serialising (requestLifetime).
 */
export function documentListRoutes(
  router: Router,
  { auth, projectConfigs, reads }: Pick<RouteDeps, 'auth' | 'projectConfigs' | 'reads'>,
): void {
  router.get('/document-lists', ...auth, requireScope('public-api:read'), async (req, res) => {
    const signal = requestLifetime(res);
    const query = parseQueryOrThrow(documentListsQuery, req.query);
    const project = await projectConfigs.get(req.auth.projectId);
    const results = await reads.documentLists.search(project, query, signal);
    await sendJsonInSlices(res, req.apiVersion.wrapsLists ? { results } : results, signal);
  });

  router.get('/document-lists/:id', ...auth, requireScope('public-api:read'), async (req, res) => {
    const signal = requestLifetime(res);
    const { id } = parseOrThrow(documentListParams, req.params);
    const query = parseQueryOrThrow(documentListQuery, req.query);
    const project = await projectConfigs.get(req.auth.projectId);
    await sendJsonInSlices(res, await reads.documentLists.byId(project, id, query, signal), signal);
  });
}
