import type { Router } from 'express';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import type { RouteDeps } from '../deps';
import { addDeliveryStatusBody } from './delivery-status.schema';
import { documentIdParams } from './document-commands.schema';

/** POST documents/{documentId}/addDeliveryStatus (api-spec §4.10): creates or updates a report. */
export function deliveryStatusRoutes(
  router: Router,
  { auth, commands }: Pick<RouteDeps, 'auth' | 'commands'>,
): void {
  router.post(
    '/documents/:documentId/addDeliveryStatus',
    ...auth,
    requireScope('public-api:write'),
    jsonBody,
    async (req, res) => {
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      parseQueryOrThrow(noQueryParams, req.query);
      const body = parseOrThrow(addDeliveryStatusBody, req.body);
      const report = await commands.addDeliveryStatus({
        ...body,
        userChoices: body.userChoices ?? null,
        projectId: req.auth.projectId,
        documentId,
        now: new Date(),
      });
      res.json({
        reportId: report.reportId,
        documentId: report.documentId,
        publicationId: report.publicationId,
        deliveryHandle: report.deliveryHandle,
        status: report.status,
        ...(report.message === null ? {} : { message: report.message }),
        ...(report.userChoices === null ? {} : { userChoices: report.userChoices }),
        createdAt: report.createdAt.toISOString(),
        updatedAt: report.updatedAt.toISOString(),
      });
    },
  );
}
