import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor, WRITE } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import { noisePng } from '../helpers/image-server';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(60_000);

/**
 * Postgres going away in the middle of POST import/mediaLibrary (a restart, a failover): the entries
 * committed before stay committed, so the answer must say which they are. Before, the whole request answered
 * 503 DatabaseUnavailable, and a client retrying it got 409 UniqueIdViolation for every entry already stored.
 */
describe('POST import/mediaLibrary while Postgres goes away', () => {
  let proxy: TcpProxy;
  let app: TestApp;
  let images: Server;
  let imagesUrl: string;
  let projectId: number;
  let token: string;

  beforeAll(async () => {
    const target = new URL(process.env.DATABASE_URL ?? '');
    proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
    const proxied = new URL(target.toString());
    proxied.host = new URL(proxy.url).host;
    app = await startTestApp({
      env: { DATABASE_URL: proxied.toString(), MEDIA_DOWNLOAD_ALLOW_PRIVATE: 'true' },
    });
    ({ projectId } = await createTestProject(app.ctx));
    ({ token } = await tokenFor(app.ctx, projectId, WRITE));
    const png = await noisePng(40, 30);
    images = createServer((req, res) => {
      // The second image's download is where Postgres goes away: the first entry is committed by then.
      const cut = req.url === '/cut.png' ? proxy.down('refuse') : Promise.resolve();
      void cut.then(() => {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
        res.end(png);
      });
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => images.close(() => resolve()));
    await proxy.up();
    await app.close();
    await proxy.close();
  });

  it('when an entry meets the outage, then it and the entries not started after it are each a 503 DatabaseUnavailable, and the committed one keeps its 200', async () => {
    const response = await apiClient(app.url, token).post('import/mediaLibrary', {
      mediaLibraryEntries: [
        { id: 'landed', mediaType: 'image', asset: { url: `${imagesUrl}/first.png` } },
        { id: 'cut', mediaType: 'image', asset: { url: `${imagesUrl}/cut.png` } },
        { id: 'later', mediaType: 'image', asset: { url: `${imagesUrl}/later.png` } },
        { id: 'bad id!', mediaType: 'image', asset: { url: `${imagesUrl}/later.png` } },
      ],
    });
    expect(response.status).toBe(200);
    const results = response.body.results as Record<string, unknown>[];
    expect(results.map((result) => [result.ok, result.status])).toEqual([
      [true, 200],
      [false, 503],
      [false, 503],
      [false, 400],
    ]);
    expect(results[0]).toMatchObject({ id: 'landed', record: { id: 'landed' } });
    const unavailable = {
      ok: false,
      status: 503,
      error: 'DatabaseUnavailable',
      error_details: {
        name: 'DatabaseUnavailable',
        message: 'The database is unavailable right now; try again in a few seconds',
      },
    };
    expect(results[1]).toEqual(unavailable);
    expect(results[2]).toEqual(unavailable);

    await proxy.up();
    const stored = await app.ctx.pool.query(
      'SELECT id FROM media_entries WHERE project_id = $1 ORDER BY id',
      [projectId],
    );
    expect(stored.rows).toEqual([{ id: 'landed' }]);
  });
});
