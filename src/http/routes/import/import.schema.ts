import { z } from 'zod';
import { ImportLogSchema } from '../../../domain/import-request';

export { ImportRequestSchema as ImportDocumentsBody } from '../../../domain/import-request';

export const ImportStatusQuery = z.strictObject({
  // A missing id falls through to the shared wording ('is required'); only a wrong one is worded here.
  id: z
    .uuid({ error: (issue) => (issue.input === undefined ? undefined : 'must be an import job id (uuid)') })
    .describe('the job id answered by POST import/documents'),
});

/** The answer of POST import/documents: the id of the job it queued. */
export const importStartedAnswer = z.strictObject({ id: z.uuid().describe('the import job id') });

/** The answer of GET import/documents/status: the job's state and one log line per document handled so far. */
export const importStatusAnswer = z.strictObject({
  finished: z.boolean(),
  state: z.enum(['started', 'success', 'failed']),
  id: z.uuid(),
  logs: z.array(ImportLogSchema),
});
