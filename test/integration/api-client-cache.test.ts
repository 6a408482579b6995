import { revokeApiClient } from '../../src/commands/api-clients';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';

/**
 * The API caches API clients per process (src/db/api-client-cache.ts); these tests change clients behind the
 * cache's back, the way another process or an operator would, and check the very next request.
 */
let app: TestApp;
let projectId: number;
const path = 'projectConfig';

beforeAll(async () => {
  app = await startTestApp();
  ({ projectId } = await createTestProject(app.ctx));
});
afterAll(() => app.close());

async function listenerPid(): Promise<number | undefined> {
  const result = await app.ctx.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() AND query = 'LISTEN broadsheet_api_clients'`,
  );
  return result.rows[0]?.pid;
}

describe('API client cache', () => {
  it('when a cached client loses a scope in Postgres, then its next request is refused with 403', async () => {
    const { token, clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    expect((await apiClient(app.url, token).get(path)).status).toBe(200);
    await app.ctx.pool.query(`UPDATE api_clients SET scopes = '{public-api:read}' WHERE id = $1`, [clientId]);
    const response = await apiClient(app.url, token).get(path);
    expect(response.status).toBe(403);
    expect(response.body.error_details).toEqual({ access_token: 'The request requires higher privileges' });
  });

  it('when a cached client is deleted, then its next request is refused with 401', async () => {
    const { token, clientId } = await tokenFor(app.ctx, projectId, ['public-api:config:read']);
    expect((await apiClient(app.url, token).get(path)).status).toBe(200);
    await app.ctx.pool.query('DELETE FROM api_clients WHERE id = $1', [clientId]);
    const response = await apiClient(app.url, token).get(path);
    expect(response.status).toBe(401);
    expect(response.body.error_details).toEqual({ access_token: 'The access token is invalid.' });
  });

  it('when the listening connection is cut, then tokens keep working and a later revocation still takes effect at once', async () => {
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
    await revokeApiClient(app.ctx.pool, clientId);
    const response = await apiClient(app.url, token).get(path);
    expect(response.status).toBe(401);
    expect(response.body.error_details).toEqual({ access_token: 'The access token was revoked.' });
  });
});
