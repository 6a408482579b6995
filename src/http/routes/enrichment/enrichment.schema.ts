import { z } from 'zod';
import { documentIdParam } from '../../query-params';

// Ids beyond Number.MAX_SAFE_INTEGER are refused, in either form: as numbers they would name another row.
const documentId = z.union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), documentIdParam], {
  error: (issue) =>
    issue.code === 'invalid_union' && issue.input !== undefined
      ? `must be a positive integer document id (a number or a string of digits) up to ${Number.MAX_SAFE_INTEGER}`
      : undefined,
});

/** Most ids one request may name: each becomes a job, enqueued in one transaction. */
export const MAX_RE_ENRICH_IDS = 1000;

/** api-spec §4.16: the body of POST enrichment/re-enrich. */
export const reEnrichBody = z.strictObject({
  doc_ids: z.array(documentId).max(MAX_RE_ENRICH_IDS),
});
