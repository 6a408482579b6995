import type { Router } from 'express';
import { parseQueryOrThrow } from '../../query-params';
import { parseOrThrow } from '../../../domain/validation';
import { onlyIn } from '../../middleware/api-version';
import { requireScope } from '../../middleware/authenticate';
import { sendJsonInSlices } from '../../json-slices';
import { requestLifetime } from '../../request-lifetime';
import type { RouteDeps } from '../deps';
import { documentIdParams } from './document-commands.schema';
import {
  defaultViewFields,
  latestPublicationQuery,
  renditionHandlesParams,
  renditionsQuery,
} from './latest-publication.schema';

/**
 * GET documents/{documentId}/latestPublication (api-spec §4.19) from Postgres, and its renditions route
 * (only up to 2025-07). Unpublished, unknown and other projects' documents are 404. The view is answered in
 * slices (sendJsonInSlices): a content of 30 MB is seconds of serialising other requests need not wait for,
 * and a client that goes away stops the view, renditions and serialising (requestLifetime).
 */
export function latestPublicationRoutes(
  router: Router,
  { auth, projectConfigs, reads }: Pick<RouteDeps, 'auth' | 'projectConfigs' | 'reads'>,
): void {
  router.get(
    '/documents/:documentId/latestPublication',
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const signal = requestLifetime(res);
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      const query = parseQueryOrThrow(latestPublicationQuery(req.apiVersion), req.query);
      const project = await projectConfigs.get(req.auth.projectId);
      const body = await reads.documents.latestPublication(
        project,
        documentId,
        { ...query, fields: query.fields ?? defaultViewFields(req.apiVersion) },
        signal,
      );
      await sendJsonInSlices(res, body, signal);
    },
  );

  router.get(
    '/documents/:documentId/latestPublication/renditions/:renditionHandles',
    onlyIn({ to: '2025-07' }),
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const signal = requestLifetime(res);
      const { documentId, renditionHandles } = parseOrThrow(renditionHandlesParams, req.params);
      // Component conditions as on latestPublication; any other parameter is a 400 naming it.
      const { conditions } = parseQueryOrThrow(renditionsQuery, req.query);
      const project = await projectConfigs.get(req.auth.projectId);
      const renditions = await reads.documents.latestPublicationRenditions(
        project,
        documentId,
        renditionHandles,
        conditions,
        signal,
      );
      await sendJsonInSlices(res, renditions, signal);
    },
  );
}
