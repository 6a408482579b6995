import type { Router } from 'express';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import type { RouteDeps } from '../deps';
import { ImportDocumentsBody, ImportStatusQuery } from './import.schema';

/** POST import/documents and GET import/documents/status (supplement §10). */
export function importRoutes(
  router: Router,
  { auth, reads, commands }: Pick<RouteDeps, 'auth' | 'reads' | 'commands'>,
): void {
  router.post('/import/documents', ...auth, requireScope('public-api:write'), jsonBody, async (req, res) => {
    parseQueryOrThrow(noQueryParams, req.query);
    const body = parseOrThrow(ImportDocumentsBody, req.body);
    res.json(await commands.startImportJob(req.auth.projectId, req.apiVersion, body));
  });

  router.get('/import/documents/status', ...auth, requireScope('public-api:write'), async (req, res) => {
    const { id } = parseQueryOrThrow(ImportStatusQuery, req.query);
    res.json(await reads.importJobs.status(req.auth.projectId, id));
  });
}
