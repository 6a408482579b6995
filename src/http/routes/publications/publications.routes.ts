import type { Router } from 'express';
import { cursorAnswer } from '../../../domain/search-cursor';
import { sendJsonItems, setSearchCacheHeaders } from '../../json-items';
import { requireScope } from '../../middleware/authenticate';
import type { RouteDeps } from '../deps';
import { searchQuery } from './publications.schema';

/**
 * GET publications/search (api-spec §4.15, supplement §5): full text, filters, sort and cursors over the
 * project's published documents, answered from Elasticsearch alone.
 */
export function publicationsRoutes(
  router: Router,
  {
    auth,
    projectConfigs,
    queryCache,
    cursors,
    reads,
  }: Pick<RouteDeps, 'auth' | 'projectConfigs' | 'queryCache' | 'cursors' | 'reads'>,
): void {
  const schemaFor = searchQuery(cursors);
  router.get('/publications/search', ...auth, requireScope('public-api:read'), async (req, res) => {
    // Widgets repeat the same query string many times a second: it is parsed and checked once.
    const query = queryCache.parse(schemaFor(req.apiVersion), req);
    const project = await projectConfigs.get(req.auth.projectId);
    const page = await reads.publications.search(project, {
      search: query.search,
      contentTypes: query.contentTypes,
      categories: query.categories,
      languages: query.languages,
      languageGroupId: query.languageGroupId,
      filters: query.filters,
      sort: query.sort,
      idsOnly: query.fields === 'id',
      fields:
        query.fields === undefined || query.fields === 'id'
          ? ['systemdata', 'metadata', 'content']
          : query.fields,
      limit: query.limit,
      offset: query.offset,
      after: query.after,
      afterProjectId: query.afterProjectId,
      afterEarlierHits: query.afterEarlierHits,
      withTotal: req.apiVersion.wrapsLists,
      conditions: query.conditions,
    });
    setSearchCacheHeaders(res, project.id, page);
    sendJsonItems(
      res,
      page,
      req.apiVersion.wrapsLists ? { total: page.total, cursor: cursorAnswer(page.cursor) } : undefined,
    );
  });
}
