import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, envelope, eventually } from '../helpers/http';
import { storeImage } from '../helpers/media';
import { storeBackends, type StoreBackend } from '../helpers/object-stores';

/**
 * serve-image keeps, per process, which asset keys may be served (src/db/served-image-cache.ts). These tests
 * change entries behind its back, in SQL, the way another API process or an operator would: the cache learns
 * of it from the trigger's notification, which Postgres delivers at the commit, so the change must show within
 * a second (in practice milliseconds). A change made through the API in the same process shows in the very next
 * request. Every case runs on both object stores.
 */
const NOTIFICATION_DEADLINE_MS = 1000;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
const REVOKED = envelope(403, 'Forbidden', {
  message: 'The requested image is revoked or marked as invalid',
});

describe.each(storeBackends)('serve-image entry cache (%s)', (_name, makeBackend) => {
  let app: TestApp;
  let backend: StoreBackend;
  let projectId: number;
  let reader: ReturnType<typeof apiClient>;
  let writer: ReturnType<typeof apiClient>;
  let serial = 0;

  beforeAll(async () => {
    backend = await makeBackend();
    app = await startTestApp({ env: backend.env });
    ({ projectId } = await createTestProject(app.ctx));
    reader = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    writer = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:write'])).token);
  });

  afterAll(async () => {
    await app.close();
    await backend.dispose();
  });

  const serve = (key: string) => reader.get(`mediaLibrary/serve-image/${key}`);

  /** A stored image, served twice (so that its entry is kept, once the cache listens). */
  async function servedImage(): Promise<{ id: string; key: string }> {
    serial += 1;
    const key = `${projectId}/cache/${serial}/image.png`;
    const { id } = await storeImage(app.ctx, app.ctx.objects, { projectId, key, bytes: PNG });
    await eventually(listenerPid);
    for (let i = 0; i < 2; i += 1) expect((await serve(key)).status).toBe(200);
    return { id, key };
  }

  /** The first answer that is not a 200, polled until the notification deadline. */
  async function refusedWithin(key: string) {
    const started = Date.now();
    const response = await eventually(
      async () => {
        const answer = await serve(key);
        return answer.status === 200 ? undefined : answer;
      },
      NOTIFICATION_DEADLINE_MS,
      5,
    );
    expect(Date.now() - started).toBeLessThan(NOTIFICATION_DEADLINE_MS);
    return response;
  }

  async function listenerPid(): Promise<number | undefined> {
    await serve(`${projectId}/cache/none.png`); // the first lookup starts the listener
    const result = await app.ctx.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND query = 'LISTEN broadsheet_media_entries'`,
    );
    return result.rows[0]?.pid;
  }

  it('when a served image is revoked through the API, then the very next request is refused with 403', async () => {
    const { id, key } = await servedImage();
    const revoked = await writer.patch(`mediaLibrary/${id}`, { patches: [{ operation: 'revokeAsset' }] });
    expect(revoked.status).toBe(200);
    const refused = await serve(key);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(REVOKED);
    // And served again at once once unrevoked.
    await writer.patch(`mediaLibrary/${id}`, { patches: [{ operation: 'unrevokeAsset' }] });
    expect((await serve(key)).status).toBe(200);
  });

  it('when a served image is revoked or marked invalid in Postgres, then it is refused with 403 within a second', async () => {
    const first = await servedImage();
    await app.ctx.pool.query('UPDATE media_entries SET revoked = true WHERE project_id = $1 AND id = $2', [
      projectId,
      first.id,
    ]);
    expect((await refusedWithin(first.key)).body).toEqual(REVOKED);

    const second = await servedImage();
    await app.ctx.pool.query('UPDATE media_entries SET invalid = true WHERE project_id = $1 AND id = $2', [
      projectId,
      second.id,
    ]);
    expect((await refusedWithin(second.key)).body).toEqual(REVOKED);
  });

  it('when the entry of a served image is deleted or no longer names its key, then 404 within a second', async () => {
    const deleted = await servedImage();
    await app.ctx.pool.query('DELETE FROM media_entries WHERE project_id = $1 AND id = $2', [
      projectId,
      deleted.id,
    ]);
    const gone = await refusedWithin(deleted.key);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(envelope(404, 'Not Found', { name: 'NotFound' }));

    const moved = await servedImage();
    await app.ctx.pool.query(
      `UPDATE media_entries SET asset = jsonb_set(asset, '{key}', to_jsonb($3::text))
       WHERE project_id = $1 AND id = $2`,
      [projectId, moved.id, `${moved.key}.moved`],
    );
    expect((await refusedWithin(moved.key)).status).toBe(404);
  });

  it('when another entry with the same key is added revoked, then the image is refused within a second', async () => {
    const { key } = await servedImage();
    await app.ctx.pool.query(
      `INSERT INTO media_entries (project_id, id, media_type, asset, revoked)
       SELECT project_id, 'same-key-' || $3, media_type, asset, true FROM media_entries
       WHERE project_id = $1 AND asset->>'key' = $2`,
      [projectId, key, serial],
    );
    expect((await refusedWithin(key)).body).toEqual(REVOKED);
  });

  it('when the listening connection is cut, then images keep being served and a later revocation still reaches the cache', async () => {
    const { id, key } = await servedImage();
    const before = await eventually(listenerPid);
    await app.ctx.pool.query('SELECT pg_terminate_backend($1)', [before]);
    expect((await serve(key)).status).toBe(200);
    await eventually(async () => {
      const pid = await listenerPid();
      return pid !== undefined && pid !== before;
    });
    for (let i = 0; i < 2; i += 1) expect((await serve(key)).status).toBe(200);
    await app.ctx.pool.query('UPDATE media_entries SET revoked = true WHERE project_id = $1 AND id = $2', [
      projectId,
      id,
    ]);
    expect((await refusedWithin(key)).body).toEqual(REVOKED);
  });
});
