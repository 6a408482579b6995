import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor, WRITE } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';
import { noisePng } from '../helpers/image-server';
import { localFolderBackend, type StoreBackend } from '../helpers/object-stores';

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/**
 * A decompression bomb: a valid grey PNG header declaring `width` x `height` pixels, with `rows` rows of zeros
 * deflated (all of them, to be a whole image): a few hundred bytes or kilobytes that decode to gigapixels.
 */
function bombPng(width: number, height: number, rows = height): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth; colour type 0 (grey), no interlace
  const pixels = deflateSync(Buffer.alloc((width + 1) * rows), { level: 9 });
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Decoding costs memory and CPU by pixels, not bytes: an image that declares more than MEDIA_MAX_IMAGE_PIXELS
 * is refused from its header, before a pixel is decoded, with a message that says so. (A 1.5 KB AVIF of 12000 x
 * 12000 pixels took 2.6 GB and minutes to probe, and a 564-byte PNG of 50000 x 50000 was called "not an image
 * in a format the library reads".)
 */
describe('the pixel limit of uploaded and imported images (MEDIA_MAX_IMAGE_PIXELS)', () => {
  let backend: StoreBackend;
  let app: TestApp;
  let limited: TestApp;
  let token: string;
  let projectId: number;
  let server: Server;
  let serverUrl: string;
  const served = new Map<string, Buffer>();

  beforeAll(async () => {
    backend = await localFolderBackend();
    app = await startTestApp({ env: { ...backend.env, MEDIA_DOWNLOAD_ALLOW_PRIVATE: 'true' } });
    limited = await startTestApp({
      env: { ...backend.env, MEDIA_DOWNLOAD_ALLOW_PRIVATE: 'true', MEDIA_MAX_IMAGE_PIXELS: '5000' },
    });
    ({ projectId } = await createTestProject(app.ctx));
    ({ token } = await tokenFor(app.ctx, projectId, WRITE));
    server = createServer((req, res) => {
      const bytes = served.get(req.url ?? '');
      res.writeHead(bytes ? 200 : 404, { 'content-type': 'image/png' });
      res.end(bytes);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
    await limited.close();
    await backend.dispose();
  });

  const upload = (on: TestApp, body: Buffer) =>
    fetch(`${on.url}/api/2026-03/mediaLibrary/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      body,
    });
  const uploadRows = async () =>
    (await app.ctx.pool.query('SELECT 1 FROM media_uploads WHERE project_id = $1', [projectId])).rowCount;

  it('when a tiny PNG declares 50000 x 50000 pixels, then 400 saying so, and nothing is kept', async () => {
    const before = await uploadRows();
    const bomb = bombPng(50_000, 50_000, 4);
    expect(bomb.length).toBeLessThan(2000);
    const response = await upload(app, bomb);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(
      envelope(400, 'Bad Request', {
        name: 'ValidationError',
        body:
          'is a 50000 x 50000 pixel PNG image, more than the 50000000 pixels an image may have ' +
          '(MEDIA_MAX_IMAGE_PIXELS) (sent as image/png)',
      }),
    );
    expect(await uploadRows()).toBe(before);
    expect(await backend.keys()).toEqual([]);
  });

  it('when a whole PNG of 10000 x 8000 pixels deflates to a few dozen KB, then it is refused from its header (it was taken, after seconds of decoding)', async () => {
    const bomb = bombPng(10_000, 8_000);
    expect(bomb.length).toBeLessThan(200 * 1024);
    const response = await upload(app, bomb);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error_details: { body: string } }).error_details.body).toBe(
      'is a 10000 x 8000 pixel PNG image, more than the 50000000 pixels an image may have (MEDIA_MAX_IMAGE_PIXELS) (sent as image/png)',
    );
  });

  it('when MEDIA_MAX_IMAGE_PIXELS is set, then an image at the limit is taken and one past it refused', async () => {
    const within = await upload(limited, await noisePng(100, 50));
    expect(within.status).toBe(201);
    expect(await within.json()).toMatchObject({ width: 100, height: 50 });
    const past = await upload(limited, await noisePng(101, 50));
    expect(past.status).toBe(400);
    expect(((await past.json()) as { error_details: { body: string } }).error_details.body).toBe(
      'is a 101 x 50 pixel PNG image, more than the 5000 pixels an image may have (MEDIA_MAX_IMAGE_PIXELS) (sent as image/png)',
    );
  });

  it('when an import downloads such an image, then that entry is a 400 keyed by asset.url, and nothing is kept', async () => {
    served.set('/bomb.png', bombPng(50_000, 50_000, 4));
    const response = await apiClient(app.url, token).post('import/mediaLibrary', {
      mediaLibraryEntries: [{ id: 'bomb', mediaType: 'image', asset: { url: `${serverUrl}/bomb.png` } }],
    });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([
      {
        ok: false,
        status: 400,
        error: 'ValidationError',
        error_details: {
          name: 'ValidationError',
          'asset.url':
            'the downloaded file is a 50000 x 50000 pixel PNG image, more than the 50000000 pixels an image ' +
            'may have (MEDIA_MAX_IMAGE_PIXELS)',
        },
      },
    ]);
    const entries = await app.ctx.pool.query('SELECT 1 FROM media_entries WHERE project_id = $1', [
      projectId,
    ]);
    expect(entries.rowCount).toBe(0);
  });
});
