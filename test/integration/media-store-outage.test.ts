import { readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor, WRITE } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';
import { noisePng } from '../helpers/image-server';

/** A local port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const stagingDirs = async () =>
  (await readdir(tmpdir())).filter((name) => name.startsWith('broadsheet-staging-')).sort();

/**
 * The object store away (an S3 endpoint nobody answers at, as when s3mock or S3 is down): what is asked of it
 * is the server's trouble for a while, not a bug of the API, so a 503 in the envelope with Retry-After, as the
 * database and search outages answer, and nothing half-written is left.
 */
describe('media requests while the object store cannot be reached', () => {
  let app: TestApp;
  let projectId: number;
  let token: string;
  let png: Buffer;
  const key = () => `${projectId}/2025/03/14/away.png`;

  beforeAll(async () => {
    app = await startTestApp({
      env: {
        MEDIA_S3_BUCKET: 'broadsheet-store-away',
        MEDIA_S3_ENDPOINT: `http://127.0.0.1:${await closedPort()}`,
        MEDIA_S3_REGION: 'us-east-1',
        MEDIA_S3_ACCESS_KEY_ID: 'broadsheet-test',
        MEDIA_S3_SECRET_ACCESS_KEY: 'broadsheet-test-secret',
        MEDIA_S3_FORCE_PATH_STYLE: 'true',
      },
    });
    ({ projectId } = await createTestProject(app.ctx));
    ({ token } = await tokenFor(app.ctx, projectId, WRITE));
    png = await noisePng(40, 30);
    // An entry whose bytes are in the store that is now away.
    await app.ctx.pool.query(
      `INSERT INTO media_entries (project_id, id, media_type, asset, translations, revoked, invalid)
       VALUES ($1, 'away', 'image', $2, '[]', false, false)`,
      [
        projectId,
        JSON.stringify({ key: key(), filename: 'away.png', mimeType: 'image/png', size: png.length }),
      ],
    );
  });

  afterAll(() => app.close());

  const storageUnavailable = envelope(503, 'Service Unavailable', {
    name: 'StorageUnavailable',
    message: 'The media store is unavailable right now; try again in a few seconds',
  });

  it('when serve-image is asked, plain, conditional or ranged, then 503 StorageUnavailable with Retry-After', async () => {
    for (const headers of [{}, { 'if-none-match': '"x"' }, { range: 'bytes=0-9' }] as Record<
      string,
      string
    >[]) {
      const response = await apiClient(app.url, token).get(`mediaLibrary/serve-image/${key()}`, headers);
      expect({ headers, status: response.status, body: response.body }).toEqual({
        headers,
        status: 503,
        body: storageUnavailable,
      });
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('when bytes are uploaded, then 503 StorageUnavailable, and no upload row nor staging file is left', async () => {
    const before = await stagingDirs();
    const response = await fetch(`${app.url}/api/2026-03/mediaLibrary/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      body: png,
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual(storageUnavailable);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    const rows = await app.ctx.pool.query('SELECT 1 FROM media_uploads WHERE project_id = $1', [projectId]);
    expect(rows.rowCount).toBe(0);
    expect(await stagingDirs()).toEqual(before);
  });
});
