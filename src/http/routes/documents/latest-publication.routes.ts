import type { Request, Router } from 'express';
import type { AppContext } from '../../../context';
import { latestPublicationQueries } from '../../../db/queries/latest-publications';
import { projectQueries } from '../../../db/queries/projects';
import {
  applyComponentConditions,
  conditionContext,
  conditionRequestOf,
  type ConditionQuery,
} from '../../../domain/component-conditions';
import { buildDocumentView, pickFields, type DocumentView } from '../../../domain/document-view';
import { AppError } from '../../../domain/errors';
import { conditionDefaults } from '../../../domain/project-config';
import { renderRenditions } from '../../../domain/renditions';
import { parseOrThrow, valueOrThrow } from '../../../domain/validation';
import { onlyIn } from '../../middleware/api-version';
import { requireScope } from '../../middleware/authenticate';
import { documentIdParams } from './document-commands.schema';
import {
  defaultViewFields,
  latestPublicationQuery,
  renditionHandlesParams,
} from './latest-publication.schema';

/**
 * GET documents/{documentId}/latestPublication (api-spec §4.19) from Postgres, and its renditions route
 * (only up to 2025-07). Unpublished, unknown and other projects' documents are 404.
 */
export function latestPublicationRoutes(router: Router, ctx: AppContext): void {
  const { auth } = ctx;

  async function loadView(req: Request, documentId: number, query: ConditionQuery): Promise<DocumentView> {
    const { projectId } = req.auth;
    const [project, source] = await Promise.all([
      projectQueries(ctx.pool).findById(projectId),
      latestPublicationQueries(ctx.pool).findViewSource(projectId, documentId),
    ]);
    if (!project || !source) throw AppError.notFound(`Document ${documentId} has no publication`);
    const request = valueOrThrow(conditionRequestOf(query), 'componentConditions');
    const conditions = request && conditionContext(request, conditionDefaults(project.config));
    return buildDocumentView({
      ...source,
      content: conditions === null ? source.content : applyComponentConditions(source.content, conditions),
    });
  }

  router.get(
    '/documents/:documentId/latestPublication',
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      const query = parseOrThrow(latestPublicationQuery(req.apiVersion), req.query);
      const view = await loadView(req, documentId, query);
      const body: Record<string, unknown> = pickFields(
        view,
        query.fields ?? defaultViewFields(req.apiVersion),
      );
      if (query.renditions !== undefined) body.renditions = renderRenditions(view.content, query.renditions);
      res.json(body);
    },
  );

  router.get(
    '/documents/:documentId/latestPublication/renditions/:renditionHandles',
    onlyIn({ to: '2025-07' }),
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const { documentId, renditionHandles } = parseOrThrow(renditionHandlesParams, req.params);
      const view = await loadView(req, documentId, {});
      res.json(renderRenditions(view.content, renditionHandles));
    },
  );
}
