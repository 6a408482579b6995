import type { Router } from 'express';
import { parseQueryOrThrow } from '../../query-params';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { sendJsonInSlices } from '../../json-slices';
import { requestLifetime } from '../../request-lifetime';
import type { RouteDeps } from '../deps';
import { documentIdParams } from './document-commands.schema';
import { defaultViewFields, latestDraftQuery } from './latest-draft.schema';

/**
 * GET documents/{documentId}/latestDraft (api-spec §4.14): the draft as it is now, no publicationId. Answered
 * in slices (sendJsonInSlices): a content of 30 MB is seconds of serialising other requests need not wait for,
 * and a client that goes away stops the view, renditions and serialising (requestLifetime).
 */
export function latestDraftRoutes(
  router: Router,
  { auth, projectConfigs, reads }: Pick<RouteDeps, 'auth' | 'projectConfigs' | 'reads'>,
): void {
  router.get(
    '/documents/:documentId/latestDraft',
    ...auth,
    requireScope('public-api:write', 'public-api:drafts:read'),
    async (req, res) => {
      const signal = requestLifetime(res);
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      const query = parseQueryOrThrow(latestDraftQuery(req.apiVersion), req.query);
      const project = await projectConfigs.get(req.auth.projectId);
      const body = await reads.documents.latestDraft(
        project,
        documentId,
        { ...query, fields: query.fields ?? defaultViewFields(req.apiVersion) },
        signal,
      );
      await sendJsonInSlices(res, body, signal);
    },
  );
}
