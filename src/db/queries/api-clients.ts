import type { Queryable } from '../pool';

export interface ApiClientRow {
  id: string;
  projectId: number;
  channelId: number | null;
  name: string;
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  /** Both null: the installation's default limit (RATE_LIMIT_DEFAULT); 0 requests: no limit. */
  rateLimitRequests: number | null;
  rateLimitPeriodSeconds: number | null;
}

const COLUMNS = `id, project_id AS "projectId", channel_id AS "channelId", name, scopes,
  expires_at AS "expiresAt", revoked_at AS "revokedAt", created_at AS "createdAt",
  rate_limit_requests AS "rateLimitRequests", rate_limit_period_seconds AS "rateLimitPeriodSeconds"`;

export function apiClientQueries(db: Queryable) {
  return {
    async findById(id: string): Promise<ApiClientRow | undefined> {
      const result = await db.query<ApiClientRow>(`SELECT ${COLUMNS} FROM api_clients WHERE id = $1`, [id]);
      return result.rows[0];
    },

    /** The client with the hash of its secret (null: it has none), for client-credential logins only. */
    async findWithSecretHash(
      id: string,
    ): Promise<(ApiClientRow & { secretHash: string | null }) | undefined> {
      const result = await db.query<ApiClientRow & { secretHash: string | null }>(
        `SELECT ${COLUMNS}, secret_hash AS "secretHash" FROM api_clients WHERE id = $1`,
        [id],
      );
      return result.rows[0];
    },

    async insert(client: {
      id: string;
      projectId: number;
      channelId: number | null;
      name: string;
      scopes: string[];
      expiresAt: Date | null;
      secretHash?: string | null;
      rateLimit?: { requests: number; periodSeconds: number } | null;
    }): Promise<ApiClientRow> {
      const result = await db.query<ApiClientRow>(
        `INSERT INTO api_clients
           (id, project_id, channel_id, name, scopes, expires_at, secret_hash, rate_limit_requests,
            rate_limit_period_seconds)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
        [
          client.id,
          client.projectId,
          client.channelId,
          client.name,
          client.scopes,
          client.expiresAt,
          client.secretHash ?? null,
          client.rateLimit?.requests ?? null,
          client.rateLimit?.periodSeconds ?? null,
        ],
      );
      return result.rows[0]!;
    },

    async revoke(id: string): Promise<ApiClientRow | undefined> {
      const result = await db.query<ApiClientRow>(
        `UPDATE api_clients SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING ${COLUMNS}`,
        [id],
      );
      return result.rows[0];
    },

    /**
     * Sets a client's own rate limit: `null` for the installation's default, `{requests: 0}` for none. Every
     * API process's cache drops the client at commit (api_clients_notify_change).
     */
    async setRateLimit(
      id: string,
      limit: { requests: number; periodSeconds: number } | null,
    ): Promise<ApiClientRow | undefined> {
      const result = await db.query<ApiClientRow>(
        `UPDATE api_clients SET rate_limit_requests = $2, rate_limit_period_seconds = $3 WHERE id = $1
         RETURNING ${COLUMNS}`,
        [id, limit?.requests ?? null, limit === null ? null : limit.periodSeconds],
      );
      return result.rows[0];
    },

    /** The project's clients, oldest first, each saying whether it has a secret (never the secret's hash). */
    async listByProject(projectId: number): Promise<(ApiClientRow & { hasSecret: boolean })[]> {
      const result = await db.query<ApiClientRow & { hasSecret: boolean }>(
        `SELECT ${COLUMNS}, secret_hash IS NOT NULL AS "hasSecret" FROM api_clients WHERE project_id = $1
         ORDER BY created_at, id`,
        [projectId],
      );
      return result.rows;
    },
  };
}
