import { withTransaction, type Pool } from '../db/pool';
import { documentQueries } from '../db/queries/documents';
import { projectQueries } from '../db/queries/projects';
import { enrichmentSettings } from '../domain/enrichment';
import { AppError } from '../domain/errors';
import { enqueueMany, type Boss } from '../jobs/boss';

/**
 * POST enrichment/re-enrich (api-spec §4.16): one job per document of the project among `ids`, enqueued in
 * one statement of one transaction (outbox; one send per id took 9 s for 1000 ids); ids of no document of the
 * project are skipped. A document whose job still waits is not queued twice (the queue's `short` policy with
 * the document as singletonKey).
 */
export async function reEnrichDocuments(
  pool: Pool,
  boss: Boss,
  projectId: number,
  ids: readonly number[],
): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const project = await projectQueries(tx).findById(projectId);
    if (!project || enrichmentSettings(project.config) === undefined) {
      throw AppError.configuration(
        `Enrichment is not enabled for project '${project?.handle ?? projectId}' (projectId=${projectId})`,
      );
    }
    const documentIds = await documentQueries(tx).findExistingIds(projectId, [...new Set(ids)]);
    await enqueueMany(
      boss,
      tx,
      'reEnrichDocument',
      documentIds.map((documentId) => ({ projectId, documentId })),
      (job) => `${job.projectId}:${job.documentId}`,
    );
  });
}
