import type { Router } from 'express';
import type { AppContext } from '../../../context';
import { runDocumentCommands } from '../../../commands/run-document-commands';
import { parseCommandRequest } from '../../../domain/document-commands/schema';
import { parseOrThrow } from '../../../domain/validation';
import { authenticate, requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import { documentIdParams } from './document-commands.schema';

/** PATCH documents/{documentId}/commands (api-spec §4.11): every command in one transaction, 204 on success. */
export function documentCommandsRoutes(router: Router, ctx: AppContext): void {
  const auth = authenticate(ctx.pool, ctx.config.auth);

  router.patch(
    '/documents/:documentId/commands',
    ...auth,
    requireScope('public-api:write'),
    jsonBody,
    async (req, res) => {
      const { documentId } = parseOrThrow(documentIdParams, req.params);
      const request = parseCommandRequest(req.body, req.apiVersion);
      await runDocumentCommands(ctx.pool, ctx.boss, {
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
