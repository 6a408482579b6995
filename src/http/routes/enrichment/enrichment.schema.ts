import { z } from 'zod';
import { documentIdValue } from '../../query-params';

/** Most ids one request may name: each becomes a job, enqueued in one transaction. */
export const MAX_RE_ENRICH_IDS = 1000;

/**
 * One entry of doc_ids: api-spec §4.16 types it "string or number" and skips ids that match no document, so
 * a number or string no document can have ('x', 0, 2.5, '012', beyond Number.MAX_SAFE_INTEGER, 1e400, a
 * string with an unpaired surrogate or a NUL: the body walk lets this body's values through, see
 * middleware/json-body.ts) is skipped like an unknown id rather than failing the whole request; anything else
 * (null, true, an object) is a 400.
 */
const reEnrichId = z
  .preprocess(
    // 1e400 is parsed as Infinity, which z.number() refuses: a number no document can have, skipped as such.
    (value) => (typeof value === 'number' && !Number.isFinite(value) ? String(value) : value),
    z.union([z.number(), z.string()], { error: 'must be a document id: a number or a string' }),
  )
  .transform((value) => {
    const id = documentIdValue.safeParse(value);
    return id.success ? id.data : undefined;
  });

/** api-spec §4.16: the body of POST enrichment/re-enrich; the ids of documents it may name, the rest dropped. */
export const reEnrichBody = z
  .strictObject({
    doc_ids: z
      .array(reEnrichId)
      .max(MAX_RE_ENRICH_IDS)
      .meta({
        description:
          'The document ids to re-enrich, as numbers or strings of digits (12 or "12"). An id that matches no ' +
          'document of the project is skipped, as is any number or string that cannot be a document id ("x", 0, 2.5, ' +
          '1e400, a string with an unpaired surrogate or a NUL)',
      }),
  })
  .transform(({ doc_ids }) => ({
    doc_ids: doc_ids.filter((id): id is number => id !== undefined),
  }));

/** The answer of POST enrichment/re-enrich: an empty object at once, the work runs in the background. */
export const reEnrichAnswer = z.strictObject({});
