import { z } from 'zod';
import { documentIdParam } from '../../query-params';

/** `{documentId}` of every documents/{documentId}/... route: a positive integer. */
export const documentIdParams = z.object({ documentId: documentIdParam });

// The command body itself is version-dependent and lives with the commands it describes:
// parseCommandRequest in src/domain/document-commands/schema.ts.
