import type { Router } from 'express';
import type { AppContext } from '../../../context';
import { BoundedCache } from '../../../domain/bounded-cache';
import { parseOrThrow } from '../../../domain/validation';
import { rawQueryString } from '../../query-params';
import { publicationReads } from '../../../reads/publications';
import { sendJsonItems } from '../../json-items';
import { requireScope } from '../../middleware/authenticate';
import { searchQuery } from './publications.schema';

/**
 * GET publications/search (api-spec §4.15, supplement §5): full text, filters, sort and cursors over the
 * project's published documents, answered from Elasticsearch alone.
 */
export function publicationsRoutes(router: Router, ctx: AppContext): void {
  const { auth } = ctx;
  const reads = publicationReads(ctx);
  // Widgets repeat the same query string many times a second: parse and validate each one once. A bad one
  // throws and is not remembered.
  const parsedQueries = new BoundedCache<string, ReturnType<typeof searchQuery>['_output']>(1000);

  router.get('/publications/search', ...auth, requireScope('public-api:read'), async (req, res) => {
    const query = parsedQueries.get(`${req.apiVersion.label}?${rawQueryString(req.originalUrl)}`, () =>
      Object.freeze(parseOrThrow(searchQuery(req.apiVersion), req.query)),
    );
    const page = await reads.search(
      {
        projectId: req.auth.projectId,
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
        withTotal: req.apiVersion.wrapsLists,
      },
      {
        ignoreComponentConditions: query.ignoreComponentConditions,
        componentConditions: query.componentConditions,
      },
    );
    sendJsonItems(
      res,
      page,
      req.apiVersion.wrapsLists ? { total: page.total, cursor: page.cursor } : undefined,
    );
  });
}
