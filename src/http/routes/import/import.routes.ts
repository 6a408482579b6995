import type { Router } from 'express';
import { startImportJob } from '../../../commands/import-documents';
import type { AppContext } from '../../../context';
import { importJobQueries } from '../../../db/queries/import-jobs';
import { AppError } from '../../../domain/errors';
import { parseOrThrow } from '../../../domain/validation';
import { authenticate, requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import { ImportDocumentsBody, ImportStatusQuery } from './import.schema';

/** POST import/documents and GET import/documents/status (supplement §10). */
export function importRoutes(router: Router, ctx: AppContext): void {
  const auth = authenticate(ctx.pool, ctx.config.auth);

  router.post('/import/documents', ...auth, requireScope('public-api:write'), jsonBody, async (req, res) => {
    const body = parseOrThrow(ImportDocumentsBody, req.body);
    res.json(await startImportJob(ctx, req.auth.projectId, req.apiVersion, body));
  });

  router.get('/import/documents/status', ...auth, requireScope('public-api:write'), async (req, res) => {
    const { id } = parseOrThrow(ImportStatusQuery, req.query);
    const job = await importJobQueries(ctx.pool).findById(req.auth.projectId, id);
    if (!job) throw AppError.notFound(`Import job ${id} not found`);
    res.json({ finished: job.state !== 'started', state: job.state, id: job.id, logs: job.logs });
  });
}
