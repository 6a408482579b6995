import { z } from 'zod';
import { documentIdValue } from '../../query-params';

/** Most ids one request may name: each becomes a job, enqueued in one transaction. */
export const MAX_RE_ENRICH_IDS = 1000;

/** api-spec §4.16: the body of POST enrichment/re-enrich. */
export const reEnrichBody = z.strictObject({
  doc_ids: z.array(documentIdValue).max(MAX_RE_ENRICH_IDS),
});

/** The answer of POST enrichment/re-enrich: an empty object at once, the work runs in the background. */
export const reEnrichAnswer = z.strictObject({});
