import type { ImportLog } from '../../domain/import-request';
import type { Queryable } from '../pool';

export interface ImportJobRow {
  id: string;
  projectId: number;
  systemName: string;
  state: 'started' | 'success' | 'failed';
  request: unknown;
  logs: ImportLog[];
  apiVersion: string;
  createdAt: Date;
  finishedAt: Date | null;
  /** Null when the request named no webhook. */
  webhookState: 'pending' | 'delivered' | 'failed' | null;
  webhookAttempts: number;
  webhookDeliveredAt: Date | null;
  webhookError: string | null;
}

const COLUMNS = `id, project_id AS "projectId", system_name AS "systemName", state, request, logs,
  api_version AS "apiVersion", created_at AS "createdAt", finished_at AS "finishedAt",
  webhook_state AS "webhookState", webhook_attempts AS "webhookAttempts",
  webhook_delivered_at AS "webhookDeliveredAt", webhook_error AS "webhookError"`;

export function importJobQueries(db: Queryable) {
  return {
    async insert(job: {
      id: string;
      projectId: number;
      systemName: string;
      request: unknown;
      apiVersion: string;
    }) {
      await db.query(
        `INSERT INTO import_jobs (id, project_id, kind, system_name, request, api_version)
         VALUES ($1, $2, 'documents', $3, $4, $5)`,
        [job.id, job.projectId, job.systemName, JSON.stringify(job.request), job.apiVersion],
      );
    },

    /** Another project's job is not found, like any other resource of another project. */
    async findById(projectId: number, id: string): Promise<ImportJobRow | undefined> {
      const result = await db.query<ImportJobRow>(
        `SELECT ${COLUMNS} FROM import_jobs WHERE project_id = $1 AND id = $2`,
        [projectId, id],
      );
      return result.rows[0];
    },

    async findByIdAnyProject(id: string): Promise<ImportJobRow | undefined> {
      const result = await db.query<ImportJobRow>(`SELECT ${COLUMNS} FROM import_jobs WHERE id = $1`, [id]);
      return result.rows[0];
    },

    /**
     * The job's logs so far, or (`append`) the entries after those saved already; only while the job runs, so
     * a second run of it still going never cuts the logs of the run that finished it.
     */
    async saveLogs(id: string, logs: ImportLog[], options: { append: boolean } = { append: false }) {
      await db.query(
        options.append
          ? `UPDATE import_jobs SET logs = logs || $2::jsonb WHERE id = $1 AND state = 'started'`
          : `UPDATE import_jobs SET logs = $2 WHERE id = $1 AND state = 'started'`,
        [id, JSON.stringify(logs)],
      );
    },

    /**
     * Ends the job, once: with a webhook to call, its delivery becomes pending. False when the job had ended
     * already (another run of it finished first), which changes nothing.
     */
    async finish(
      id: string,
      state: 'success' | 'failed',
      logs: ImportLog[],
      options: { webhook: boolean } = { webhook: false },
    ): Promise<boolean> {
      const result = await db.query(
        `UPDATE import_jobs SET state = $2, logs = $3, finished_at = now(),
           webhook_state = CASE WHEN $4 THEN 'pending' ELSE webhook_state END
         WHERE id = $1 AND state = 'started'`,
        [id, state, JSON.stringify(logs), options.webhook],
      );
      return (result.rowCount ?? 0) > 0;
    },

    /** One more call of the job's webhook made; its outcome when it decided the delivery. */
    async recordWebhookAttempt(
      id: string,
      outcome: { state: 'pending' | 'delivered' | 'failed'; error: string | null },
    ): Promise<void> {
      await db.query(
        `UPDATE import_jobs SET webhook_attempts = webhook_attempts + 1, webhook_state = $2,
           webhook_error = $3, webhook_delivered_at = CASE WHEN $2 = 'delivered' THEN now() END
         WHERE id = $1`,
        [id, outcome.state, outcome.error],
      );
    },

    /** A delivery that cannot start (the policy refused the address): failed without a call. */
    async failWebhook(id: string, error: string): Promise<void> {
      await db.query(`UPDATE import_jobs SET webhook_state = 'failed', webhook_error = $2 WHERE id = $1`, [
        id,
        error,
      ]);
    },
  };
}
