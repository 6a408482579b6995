import { z } from 'zod';
import { MAX_IMPORT_DOCUMENTS } from './import-limits';
import { storableDateTime } from './storable-dates';

/** One document of `POST import/documents` (supplement §10). `id` is the external id in the calling system. */
export const ImportDocumentSchema = z
  .object({
    id: z
      .union([z.string().min(1).max(200), z.number().int()], {
        // A missing id keeps "is required"; any other value that is neither says what an id is.
        error: (issue) =>
          issue.code === 'invalid_union' && issue.input !== undefined
            ? 'must be the id in the source system: a string of 1 to 200 characters or an integer'
            : undefined,
      })
      .transform(String),
    title: z.string().optional(),
    contentType: z.string().min(1),
    content: z.array(z.record(z.string(), z.unknown())).default([]),
    design: z
      .object({ name: z.string().min(1), version: z.string().min(1) })
      .strict()
      .optional(),
    metadata: z.record(z.string(), z.unknown()).default({}),
    flags: z
      .object({ autoPublish: z.boolean().optional(), unpublish: z.boolean().optional() })
      .strict()
      .optional(),
    publishControl: z
      .object({
        firstPublicationDate: storableDateTime.optional(),
        significantPublicationDate: storableDateTime.optional(),
        visiblePublicationDateOverride: storableDateTime.optional(),
        lastPublicationDate: storableDateTime.optional(),
      })
      .strict()
      .optional(),
    /** Targets an existing document of the project instead of looking it up by (systemName, id). */
    documentId: z.number().int().positive().optional(),
  })
  .strict()
  .refine((document) => !(document.flags?.autoPublish && document.flags.unpublish), {
    message: 'autoPublish and unpublish cannot both be set',
    path: ['flags'],
  });

export { MAX_IMPORT_DOCUMENTS } from './import-limits';

export const ImportRequestSchema = z
  .object({
    systemName: z.string().min(1).max(100),
    /** Called with the job's outcome when it finishes (README, "Import webhooks"): http(s) only. */
    webhook: z
      .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
      // Its own message: the url's error would otherwise word this one too.
      .max(2000, { error: 'must be at most 2000 characters long' })
      .optional(),
    context: z.record(z.string(), z.unknown()).optional(),
    documents: z.array(ImportDocumentSchema).min(1).max(MAX_IMPORT_DOCUMENTS),
  })
  .strict();

export type ImportDocument = z.output<typeof ImportDocumentSchema>;
export type ImportRequest = z.output<typeof ImportRequestSchema>;

export type ImportLogState = 'imported' | 'published' | 'failed';

/** One line of an import job's status (supplement §10). */
export interface ImportLog {
  state: ImportLogState;
  external_id: string;
  document_id: number | null;
  reason?: string;
}

/** One line of an import job's status, as a schema (the webhook's payload and the OpenAPI description). */
export const ImportLogSchema = z.object({
  state: z.enum(['imported', 'published', 'failed']),
  external_id: z.string(),
  document_id: z.number().int().nullable(),
  reason: z.string().optional(),
});

/**
 * What an import's webhook is POSTed when the job finishes (README, "Import webhooks"): the job's status
 * (`id`, `finished`, `state`, `logs`, as `GET import/documents/status` answers) with the request's
 * `systemName` and `context`, when it finished, and the count of each log state.
 */
export const ImportWebhookPayloadSchema = z.object({
  event: z.literal('import.finished'),
  id: z.string().uuid(),
  finished: z.literal(true),
  state: z.enum(['success', 'failed']),
  systemName: z.string(),
  context: z.record(z.string(), z.unknown()).optional(),
  finishedAt: z.iso.datetime(),
  counts: z.object({
    imported: z.number().int().min(0),
    published: z.number().int().min(0),
    failed: z.number().int().min(0),
  }),
  logs: z.array(ImportLogSchema),
});

export type ImportWebhookPayload = z.infer<typeof ImportWebhookPayloadSchema>;

/**
 * How a finished job ends: `failed` only when every document failed (or the job itself crashed); a job in
 * which some documents were imported is a `success` whose logs name the failures one by one.
 */
export function finalImportState(logs: readonly ImportLog[]): 'success' | 'failed' {
  return logs.length > 0 && logs.every((log) => log.state === 'failed') ? 'failed' : 'success';
}
