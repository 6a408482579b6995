import type { Router } from 'express';
import { sendJsonItems, setSearchCacheHeaders } from '../../json-items';
import { requireScope } from '../../middleware/authenticate';
import type { RouteDeps } from '../deps';
import { defaultViewFields } from './latest-draft.schema';
import { latestPublicationsQuery } from './latest-publications.schema';

/**
 * GET documents/latestPublications (api-spec §4.9, supplement §4): the latest publication of the project's
 * documents, newest first, answered from Elasticsearch alone. Registered before `/documents/:documentId`.
 */
export function latestPublicationsRoutes(
  router: Router,
  {
    auth,
    projectConfigs,
    queryCache,
    reads,
  }: Pick<RouteDeps, 'auth' | 'projectConfigs' | 'queryCache' | 'reads'>,
): void {
  router.get('/documents/latestPublications', ...auth, requireScope('public-api:read'), async (req, res) => {
    // Widgets repeat the same query string (a homepage's teasers): it is parsed and checked once.
    const query = queryCache.parse(latestPublicationsQuery, req);
    const project = await projectConfigs.get(req.auth.projectId);
    const answer = await reads.publications.latestPublications(project, {
      fields: query.fields ?? defaultViewFields(req.apiVersion),
      limit: query.limit,
      offset: query.offset,
      reverse: query.reverse,
      homepage: query.homepage,
      contentTypes: query.contentTypes,
      documentTypes: query.documentTypes,
      ids: query.id,
      id: { gt: query['id.gt'], gte: query['id.gte'], lt: query['id.lt'], lte: query['id.lte'] },
      publishedAt: {
        gt: query['publishedAt.gt'],
        gte: query['publishedAt.gte'],
        lt: query['publishedAt.lt'],
        lte: query['publishedAt.lte'],
      },
      conditions: query.conditions,
    });
    setSearchCacheHeaders(res, project.id, answer);
    sendJsonItems(res, answer, req.apiVersion.wrapsLists ? {} : undefined);
  });
}
