import type { Router } from 'express';
import type { AppContext } from '../../../context';
import type { ViewField } from '../../../domain/document-view';
import { parseOrThrow } from '../../../domain/validation';
import { publicationReads } from '../../../reads/publications';
import { sendJsonItems } from '../../json-items';
import { requireScope } from '../../middleware/authenticate';
import { latestPublicationsQuery } from './latest-publications.schema';

/**
 * GET documents/latestPublications (api-spec §4.9, supplement §4): the latest publication of the project's
 * documents, newest first, answered from Elasticsearch alone. Registered before `/documents/:documentId`.
 */
export function latestPublicationsRoutes(router: Router, ctx: AppContext): void {
  const { auth } = ctx;
  const reads = publicationReads(ctx);

  router.get('/documents/latestPublications', ...auth, requireScope('public-api:read'), async (req, res) => {
    const query = parseOrThrow(latestPublicationsQuery, req.query);
    const fields: ViewField[] =
      query.fields ??
      (req.apiVersion.isV1
        ? ['systemdata', 'metadata', 'content']
        : ['systemdata', 'metadata', 'content', 'references']);
    const answer = await reads.latestPublications(
      {
        projectId: req.auth.projectId,
        fields,
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
      },
      {
        ignoreComponentConditions: query.ignoreComponentConditions,
        componentConditions: query.componentConditions,
      },
    );
    sendJsonItems(res, answer, req.apiVersion.wrapsLists ? {} : undefined);
  });
}
