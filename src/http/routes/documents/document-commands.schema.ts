import { z } from 'zod';

/** `{documentId}` of every documents/{documentId}/... route: a positive integer. */
export const documentIdParams = z.object({
  documentId: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, { message: 'must be a positive integer' })
    .transform(Number),
});

// The command body itself is version-dependent and lives with the commands it describes:
// parseCommandRequest in src/domain/document-commands/schema.ts.
