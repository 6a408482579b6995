import type { Router } from 'express';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import type { RouteDeps } from '../deps';
import { reEnrichBody } from './enrichment.schema';

/**
 * POST enrichment/re-enrich (api-spec §4.16): `{}` at once; one background job per document of the project,
 * 400 ConfigurationError naming the project when its enrichment is not enabled.
 */
export function enrichmentRoutes(
  router: Router,
  { auth, commands }: Pick<RouteDeps, 'auth' | 'commands'>,
): void {
  router.post('/enrichment/re-enrich', ...auth, requireScope('enrichment'), jsonBody, async (req, res) => {
    parseQueryOrThrow(noQueryParams, req.query);
    const body = parseOrThrow(reEnrichBody, req.body);
    await commands.reEnrichDocuments(req.auth.projectId, body.doc_ids);
    res.json({});
  });
}
