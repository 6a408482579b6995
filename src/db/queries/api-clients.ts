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
}

const COLUMNS = `id, project_id AS "projectId", channel_id AS "channelId", name, scopes,
  expires_at AS "expiresAt", revoked_at AS "revokedAt", created_at AS "createdAt"`;

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
    }): Promise<ApiClientRow> {
      const result = await db.query<ApiClientRow>(
        `INSERT INTO api_clients (id, project_id, channel_id, name, scopes, expires_at, secret_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
        [
          client.id,
          client.projectId,
          client.channelId,
          client.name,
          client.scopes,
          client.expiresAt,
          client.secretHash ?? null,
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

    async listByProject(projectId: number): Promise<ApiClientRow[]> {
      const result = await db.query<ApiClientRow>(
        `SELECT ${COLUMNS} FROM api_clients WHERE project_id = $1 ORDER BY created_at`,
        [projectId],
      );
      return result.rows;
    },
  };
}
