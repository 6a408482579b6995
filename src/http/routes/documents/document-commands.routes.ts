import type { Router } from 'express';
import { parseCommandRequest } from '../../../domain/document-commands/schema';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
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
      const request = parseCommandRequest(req.body, req.apiVersion);
      await commands.runDocumentCommands({
        projectId: req.auth.projectId,
        documentId,
        request,
        clientId: req.auth.clientId,
        now: new Date(),
      });
      res.status(204).end();
    },
  );
}
