import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';

/**
 * The API caches API clients per process (src/db/api-client-cache.ts). These tests change clients behind the
 * cache's back, in SQL, the way another process or an operator would: the cache learns of it from the
 * trigger's notification, which Postgres delivers at the commit, so the change must show within a second
 * (in practice milliseconds). A revocation made through revokeApiClient in the API's own process is refused
 * by the very next request (http-foundation.test.ts).
 */
const NOTIFICATION_DEADLINE_MS = 1000;
let app: TestApp;
let projectId: number;
const path = 'projectConfig';

beforeAll(async () => {
  app = await startTestApp();
  ({ projectId } = await createTestProject(app.ctx));
});
afterAll(() => app.close());

/** The first refused answer, polled until the notification deadline; fails if the token keeps working. */
async function refusedWithin(token: string) {
  const started = Date.now();
  const response = await eventually(
    async () => {
      const answer = await apiClient(app.url, token).get(path);
      return answer.status === 200 ? undefined : answer;
    },
    NOTIFICATION_DEADLINE_MS,
    5,
  );
  expect(Date.now() - started).toBeLessThan(NOTIFICATION_DEADLINE_MS);
  return response;
}

async function listenerPid(): Promise<number | undefined> {
  const result = await app.ctx.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() AND query = 'LISTEN broadsheet_api_clients'`,
  );
  return result.rows[0]?.pid;
}

describe('API client cache', () => {
  it('when a cached client loses a scope in Postgres, then its requests are refused with 403 within a second', async () => {
    const { token, clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    expect((await apiClient(app.url, token).get(path)).status).toBe(200);
    await app.ctx.pool.query(`UPDATE api_clients SET scopes = '{public-api:read}' WHERE id = $1`, [clientId]);
    const response = await refusedWithin(token);
    expect(response.status).toBe(403);
    expect(response.body.error_details).toEqual({ access_token: 'The request requires higher privileges' });
  });

  it('when a cached client is deleted, then its requests are refused with 401 within a second', async () => {
    const { token, clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    expect((await apiClient(app.url, token).get(path)).status).toBe(200);
    await app.ctx.pool.query('DELETE FROM api_clients WHERE id = $1', [clientId]);
    const response = await refusedWithin(token);
    expect(response.status).toBe(401);
    expect(response.body.error_details).toEqual({ access_token: 'The access token is invalid.' });
  });

  it('when the listening connection is cut, then tokens keep working and a later revocation elsewhere still reaches the cache', async () => {
    const { token, clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    expect((await apiClient(app.url, token).get(path)).status).toBe(200);
    const before = await eventually(listenerPid);
    await app.ctx.pool.query('SELECT pg_terminate_backend($1)', [before]);
    expect((await apiClient(app.url, token).get(path)).status).toBe(200);
    // The cache listens again on a new connection, then a revocation must reach it.
    await eventually(async () => {
      const pid = await listenerPid();
      return pid !== undefined && pid !== before;
    });
    expect((await apiClient(app.url, token).get(path)).status).toBe(200);
    // Revoked in SQL, as another process would: only the new listener can tell this process.
    await app.ctx.pool.query('UPDATE api_clients SET revoked_at = now() WHERE id = $1', [clientId]);
    const response = await refusedWithin(token);
    expect(response.status).toBe(401);
    expect(response.body.error_details).toEqual({ access_token: 'The access token was revoked.' });
  });
});
