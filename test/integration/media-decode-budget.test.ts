import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor, WRITE } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import { noisePng } from '../helpers/image-server';
import { localFolderBackend, type StoreBackend } from '../helpers/object-stores';

/** Holds not finished by a test that failed: finished after it, so the next test is not stuck behind them. */
const holds: (() => void)[] = [];

/** A decode that runs until `finish` is called, taking pixels of the app's budget as a large image would. */
function holdBudget(app: TestApp, pixels: number) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  holds.push(finish);
  const running = app.ctx.decodeBudget.run(pixels, () => done);
  return { finish, running };
}

afterEach(() => {
  for (const finish of holds.splice(0)) finish();
});

/** Waits, a few ms at a time, until `read` gives `expected`; fails with the last value after 20 s. */
async function until<T>(read: () => T | Promise<T>, expected: T): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last = await read();
  while (last !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    last = await read();
  }
  expect(last).toBe(expected);
}

/**
 * An image check decodes every pixel (an AVIF about 18 bytes a pixel: ~900 MB at the 50 MP limit), so
 * concurrent uploads just under the limit wanted many GB in one process. Checks now wait for their pixels in a
 * per-process budget (two of the largest images allowed), and a check whose client went away while it waited
 * gives up its place, leaving nothing behind.
 */
describe('image checks of uploads and imports share a per-process pixel budget', () => {
  let backend: StoreBackend;
  let app: TestApp;
  let token: string;
  let projectId: number;
  let server: Server;
  let serverUrl: string;
  let png: Buffer;
  // MEDIA_MAX_IMAGE_PIXELS of 1 MP: a budget of 2 MP, two of the largest images at once.
  const LIMIT = 1_000_000;

  beforeAll(async () => {
    backend = await localFolderBackend();
    app = await startTestApp({
      env: { ...backend.env, MEDIA_DOWNLOAD_ALLOW_PRIVATE: 'true', MEDIA_MAX_IMAGE_PIXELS: String(LIMIT) },
    });
    ({ projectId } = await createTestProject(app.ctx));
    ({ token } = await tokenFor(app.ctx, projectId, WRITE));
    png = await noisePng(1000, 1000);
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      res.end(png);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
    await backend.dispose();
  });

  const upload = (signal?: AbortSignal) =>
    fetch(`${app.url}/api/2026-03/mediaLibrary/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      body: png,
      ...(signal ? { signal } : {}),
    });
  const count = async (table: 'media_uploads' | 'media_entries') =>
    (await app.ctx.pool.query(`SELECT 1 FROM ${table} WHERE project_id = $1`, [projectId])).rowCount ?? 0;
  /**
   * Staging folders in os.tmpdir() that were not there at `before`: other test runs on the machine stage there
   * too, so what is polled for is a count theirs only pass through.
   */
  const newStagingDirs = async (before: readonly string[]) =>
    (await readdir(tmpdir())).filter(
      (name) => name.startsWith('broadsheet-staging-') && !before.includes(name),
    ).length;
  const stagingDirs = async () =>
    (await readdir(tmpdir())).filter((name) => name.startsWith('broadsheet-staging-'));

  it('when the budget is 2 MP, then it is two of the largest images allowed', () => {
    expect(app.ctx.decodeBudget.pixels).toBe(2 * LIMIT);
  });

  it('when six uploads of 1 MP come at once while decoding is busy, then they wait, and run two at a time', async () => {
    const budget = app.ctx.decodeBudget;
    const busy = holdBudget(app, 1_500_000);
    const responses = Array.from({ length: 6 }, () => upload());
    // Each is staged and waits for its check: none is decoded beside the busy 1.5 MP (it was, all at once).
    await until(() => budget.waiting, 6);
    expect(budget.inUse).toBe(1_500_000);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, budget.inUse)), 1);
    busy.finish();
    await busy.running;
    expect({ inUse: budget.inUse, waiting: budget.waiting }).toEqual({ inUse: 2 * LIMIT, waiting: 4 });
    const answered = await Promise.all(responses);
    clearInterval(sampler);
    expect(answered.map((response) => response.status)).toEqual([201, 201, 201, 201, 201, 201]);
    for (const response of answered) {
      expect(await response.json()).toMatchObject({ mimeType: 'image/png', width: 1000, height: 1000 });
    }
    expect(peak).toBeLessThanOrEqual(2 * LIMIT);
    expect({ inUse: budget.inUse, waiting: budget.waiting }).toEqual({ inUse: 0, waiting: 0 });
  });

  it('when the client of a waiting upload goes away, then it leaves the queue and nothing of it is kept', async () => {
    const budget = app.ctx.decodeBudget;
    const uploadsBefore = await count('media_uploads');
    const keysBefore = await backend.keys();
    const dirsBefore = await stagingDirs();
    const busy = holdBudget(app, 2 * LIMIT);
    const leaving = new AbortController();
    const abandoned = upload(leaving.signal).catch((error: unknown) => error);
    await until(() => budget.waiting, 1);
    const kept = upload();
    await until(() => budget.waiting, 2);
    leaving.abort();
    expect(await abandoned).toMatchObject({ name: 'AbortError' });
    // Its place is given up at once, before the busy decode ends; its staged bytes are removed.
    await until(() => budget.waiting, 1);
    await until(() => newStagingDirs(dirsBefore), 1);
    busy.finish();
    await busy.running;
    const response = await kept;
    expect(response.status).toBe(201);
    expect(await count('media_uploads')).toBe(uploadsBefore + 1);
    expect((await backend.keys()).length).toBe(keysBefore.length + 1);
    await until(() => newStagingDirs(dirsBefore), 0);
    expect({ inUse: budget.inUse, waiting: budget.waiting }).toEqual({ inUse: 0, waiting: 0 });
  });

  it('when the client of an import goes away while its image waits, then no entry and no object is left', async () => {
    const budget = app.ctx.decodeBudget;
    const keysBefore = await backend.keys();
    const entriesBefore = await count('media_entries');
    const dirsBefore = await stagingDirs();
    const busy = holdBudget(app, 2 * LIMIT);
    const leaving = new AbortController();
    const abandoned = fetch(`${app.url}/api/2026-03/import/mediaLibrary`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        mediaLibraryEntries: [
          { id: 'queued-1', mediaType: 'image', asset: { url: `${serverUrl}/a.png` } },
          { id: 'queued-2', mediaType: 'image', asset: { url: `${serverUrl}/b.png` } },
        ],
      }),
      signal: leaving.signal,
    }).catch((error: unknown) => error);
    await until(() => budget.waiting, 1);
    leaving.abort();
    expect(await abandoned).toMatchObject({ name: 'AbortError' });
    await until(() => budget.waiting, 0);
    await until(() => newStagingDirs(dirsBefore), 0);
    busy.finish();
    await busy.running;
    // The second entry is not started for a client that is gone.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await count('media_entries')).toBe(entriesBefore);
    expect(await backend.keys()).toEqual(keysBefore);
    expect(budget.inUse).toBe(0);
  });

  it('when an import of an image is not in a hurry, then it still goes through the budget and is taken', async () => {
    const response = await apiClient(app.url, token).post('import/mediaLibrary', {
      mediaLibraryEntries: [{ id: 'calm', mediaType: 'image', asset: { url: `${serverUrl}/calm.png` } }],
    });
    expect(response.status).toBe(200);
    expect(response.body.results).toMatchObject([{ ok: true, status: 200, id: 'calm' }]);
  });
});
