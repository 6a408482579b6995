import type { Router } from 'express';
import type { AppContext } from '../../../context';
import { documentQueries } from '../../../db/queries/documents';
import { projectQueries } from '../../../db/queries/projects';
import {
  applyComponentConditions,
  conditionContext,
  conditionRequestOf,
} from '../../../domain/component-conditions';
import { buildDocumentView, pickFields } from '../../../domain/document-view';
import { AppError } from '../../../domain/errors';
import { conditionDefaults } from '../../../domain/project-config';
import { renderRenditions } from '../../../domain/renditions';
import { parseOrThrow, valueOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { documentIdParams } from './document-commands.schema';
import { defaultViewFields, latestDraftQuery } from './latest-draft.schema';

/** GET documents/{documentId}/latestDraft (api-spec §4.14): the draft as it is now, no publicationId. */
export function latestDraftRoutes(router: Router, ctx: AppContext): void {
  const { auth } = ctx;

  router.get(
    '/documents/:documentId/latestDraft',
    ...auth,
    requireScope('public-api:write', 'public-api:drafts:read'),
    async (req, res) => {
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      const query = parseOrThrow(latestDraftQuery(req.apiVersion), req.query);
      const { projectId } = req.auth;
      const [project, document] = await Promise.all([
        projectQueries(ctx.pool).findById(projectId),
        documentQueries(ctx.pool).findById(projectId, documentId),
      ]);
      if (project === undefined || document === undefined) {
        throw AppError.notFound(`Document ${documentId} not found`);
      }
      const request = valueOrThrow(conditionRequestOf(query), 'componentConditions');
      const conditions = request && conditionContext(request, conditionDefaults(project.config));
      const view = buildDocumentView({
        ...document,
        documentId: document.id,
        content:
          conditions === null ? document.content : applyComponentConditions(document.content, conditions),
      });
      const body: Record<string, unknown> = pickFields(
        view,
        query.fields ?? defaultViewFields(req.apiVersion),
      );
      if (query.renditions !== undefined) body.renditions = renderRenditions(view.content, query.renditions);
      res.json(body);
    },
  );
}
