import { z } from 'zod';

export { ImportRequestSchema as ImportDocumentsBody } from '../../../domain/import-request';

export const ImportStatusQuery = z.strictObject({
  id: z.uuid({ message: 'must be an import job id (uuid)' }),
});
