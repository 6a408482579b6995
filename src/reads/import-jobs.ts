import type { Queryable } from '../db/pool';
import { importJobQueries } from '../db/queries/import-jobs';
import { AppError } from '../domain/errors';

/** import/documents/status (supplement §10): where an import job stands. */
export function importJobReads(db: Queryable) {
  return {
    async status(projectId: number, id: string) {
      const job = await importJobQueries(db).findById(projectId, id);
      if (!job) throw AppError.notFound(`Import job ${id} not found`);
      return { finished: job.state !== 'started', state: job.state, id: job.id, logs: job.logs };
    },
  };
}

export type ImportJobReads = ReturnType<typeof importJobReads>;
