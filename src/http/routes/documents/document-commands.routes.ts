import type { Router } from 'express';
import { parseCommandRequest } from '../../../domain/document-commands/schema';
import { parseOrThrow } from '../../../domain/validation';
import { preconditionHeaders, writePreconditionsOf } from '../../conditional-get';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import type { RouteDeps } from '../deps';
import { documentIdParams } from './document-commands.schema';

/** PATCH documents/{documentId}/commands (api-spec §4.11): every command in one transaction, 204 on success. */
export function documentCommandsRoutes(
  router: Router,
  { auth, commands }: Pick<RouteDeps, 'auth' | 'commands'>,
): void {
  router.patch(
    '/documents/:documentId/commands',
    ...auth,
    requireScope('public-api:write'),
    jsonBody,
    async (req, res) => {
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      // Everything is in the body: a `?version=` or `?preserveUpdatedAt=` must not be silently ignored.
      parseQueryOrThrow(noQueryParams, req.query);
      const request = parseCommandRequest(req.body, req.apiVersion);
      await commands.runDocumentCommands({
        projectId: req.auth.projectId,
        documentId,
        request,
        clientId: req.auth.clientId,
        ...writePreconditionsOf(preconditionHeaders(req)),
        now: new Date(),
      });
      res.status(204).end();
    },
  );
}
