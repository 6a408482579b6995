import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
 * This file's staging dirs apart from those of suites running beside it (os.tmpdir() reads TMPDIR each call,
 * and the API under test runs in this process): a clean-clone CI run saw another suite's upload in the shared
 * temporary directory and took it for one left behind here.
 */
const sharedTmpdir = process.env.TMPDIR;
let ownTmpdir: string;
beforeAll(async () => {
  ownTmpdir = await mkdtemp(join(tmpdir(), 'media-store-outage-'));
  process.env.TMPDIR = ownTmpdir;
});
afterAll(async () => {
  if (sharedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = sharedTmpdir;
  await rm(ownTmpdir, { recursive: true, force: true });
});

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
  let images: Server;
  let imagesUrl: string;
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
        MEDIA_DOWNLOAD_ALLOW_PRIVATE: 'true',
      },
    });
    ({ projectId } = await createTestProject(app.ctx));
    ({ token } = await tokenFor(app.ctx, projectId, WRITE));
    png = await noisePng(40, 30);
    images = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      res.end(png);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
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

  afterAll(async () => {
    await new Promise<void>((resolve) => images.close(() => resolve()));
    await app.close();
  });

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

  it('when serve-image is asked with HEAD, then 503 with Retry-After and no body', async () => {
    const response = await fetch(`${app.url}/api/2026-03/mediaLibrary/serve-image/${key()}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await response.text()).toBe('');
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

  it('when an import writes bytes, then that entry is its own 503 StorageUnavailable, the others keep their results, and nothing of it is kept', async () => {
    // An upload made before the store went away: importing it writes no bytes, only the entry.
    const uploadId = '6f0c1b1e-2a51-4f7e-9d2b-6a4a1f0c9e11';
    await app.ctx.pool.query(
      `INSERT INTO media_uploads (project_id, id, key, filename, mime_type, size, width, height)
       VALUES ($1, $2, $3, 'earlier.png', 'image/png', $4, 40, 30)`,
      [projectId, uploadId, `${projectId}/2025/03/14/earlier.png`, png.length],
    );
    const before = await stagingDirs();
    const response = await apiClient(app.url, token).post('import/mediaLibrary', {
      mediaLibraryEntries: [
        { id: 'earlier', mediaType: 'image', asset: { uploadId } },
        { id: 'downloaded', mediaType: 'image', asset: { url: `${imagesUrl}/photo.png` } },
        { id: 'bad id!', mediaType: 'image', asset: { url: `${imagesUrl}/photo.png` } },
      ],
    });
    expect(response.status).toBe(200);
    const results = response.body.results as Record<string, unknown>[];
    expect(results.map((result) => [result.ok, result.status])).toEqual([
      [true, 200],
      [false, 503],
      [false, 400],
    ]);
    expect(results[0]).toMatchObject({ id: 'earlier', record: { id: 'earlier' } });
    expect(results[1]).toEqual({
      ok: false,
      status: 503,
      error: 'StorageUnavailable',
      error_details: {
        name: 'StorageUnavailable',
        message: 'The media store is unavailable right now; try again in a few seconds',
      },
    });
    expect(results[2]).toMatchObject({ error: 'ValidationError' });
    const entries = await app.ctx.pool.query(
      'SELECT id FROM media_entries WHERE project_id = $1 AND id <> $2 ORDER BY id',
      [projectId, 'away'],
    );
    expect(entries.rows).toEqual([{ id: 'earlier' }]);
    expect(await stagingDirs()).toEqual(before);

    // A retry of the one that failed, once the client sees it alone failed, is not refused as a duplicate.
    const retry = await apiClient(app.url, token).post('import/mediaLibrary', {
      mediaLibraryEntries: [
        { id: 'downloaded', mediaType: 'image', asset: { url: `${imagesUrl}/photo.png` } },
      ],
    });
    expect(retry.status).toBe(200);
    expect(retry.body.results).toEqual([results[1]]);
  });
});

/**
 * A hung object store (it takes connections and never answers: a stuck node, a host gone behind a load
 * balancer): an import wrote each entry's bytes with no time limit, so the request never answered.
 */
describe('POST import/mediaLibrary while the object store hangs', () => {
  let app: TestApp;
  let token: string;
  let images: Server;
  let imagesUrl: string;
  let hung: ReturnType<typeof createServer>;
  const held = new Set<import('node:net').Socket>();

  beforeAll(async () => {
    hung = createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => held.delete(socket));
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    app = await startTestApp({
      env: {
        MEDIA_S3_BUCKET: 'broadsheet-store-hung',
        MEDIA_S3_ENDPOINT: `http://127.0.0.1:${(hung.address() as AddressInfo).port}`,
        MEDIA_S3_REGION: 'us-east-1',
        MEDIA_S3_ACCESS_KEY_ID: 'broadsheet-test',
        MEDIA_S3_SECRET_ACCESS_KEY: 'broadsheet-test-secret',
        MEDIA_S3_FORCE_PATH_STYLE: 'true',
        MEDIA_S3_TIMEOUT_MS: '500',
        MEDIA_DOWNLOAD_ALLOW_PRIVATE: 'true',
      },
    });
    const { projectId } = await createTestProject(app.ctx);
    ({ token } = await tokenFor(app.ctx, projectId, WRITE));
    const png = await noisePng(40, 30);
    images = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      res.end(png);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => hung.close(() => resolve()));
    await new Promise<void>((resolve) => images.close(() => resolve()));
    await app.close();
  });

  it('when entries need their bytes stored, then the first waits MEDIA_S3_TIMEOUT_MS and the rest are not tried: each a 503 StorageUnavailable, soon', async () => {
    const started = Date.now();
    const response = await fetch(`${app.url}/api/2026-03/import/mediaLibrary`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        mediaLibraryEntries: Array.from({ length: 10 }, (_, i) => ({
          id: `hung-${i}`,
          mediaType: 'image',
          asset: { url: `${imagesUrl}/photo-${i}.png` },
        })),
      }),
      signal: AbortSignal.timeout(60_000),
    });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as { results: { status: number; error: string }[] };
    expect(results.map((result) => [result.status, result.error])).toEqual(
      Array(10).fill([503, 'StorageUnavailable']),
    );
    // One wait of 500 ms for the first entry (a streamed write is not retried), and slack: none per further entry.
    expect(elapsed).toBeLessThan(3_000);
  });
});
