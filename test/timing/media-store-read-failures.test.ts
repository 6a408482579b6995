import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { startAnswerCuttingProxy, type AnswerCuttingProxy } from '../helpers/answer-cutting-proxy';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { envelope, eventually } from '../helpers/http';
import { storeImage } from '../helpers/media';
import { s3Backend, type StoreBackend } from '../helpers/object-stores';

/** MEDIA_S3_TIMEOUT_MS of the app under test. */
const TIMEOUT_MS = 1_000;
/** What a loaded machine may add to it before the answer is in. */
const SLACK_MS = 3_000;

const storageUnavailable = envelope(503, 'Service Unavailable', {
  name: 'StorageUnavailable',
  message: 'The media store is unavailable right now; try again in a few seconds',
});

/** What a client of serve-image ends up with: status, headers, the bytes that came, and how the body ended. */
interface Download {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** 'end' when the body came whole, else what ended it. */
  ended: string;
  ms: number;
}

/**
 * One request to the API over a connection of its own (no agent), read to its end or its failure; gives up
 * after `giveUpMs` (a hang) with what came so far.
 */
function download(
  url: string,
  token: string,
  options: { method?: string; headers?: Record<string, string>; giveUpMs?: number } = {},
): Promise<Download> {
  const started = Date.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let status = 0;
    let headers: Download['headers'] = {};
    let settled = false;
    const settle = (ended: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(giveUp);
      req.destroy();
      resolve({ status, headers, body: Buffer.concat(chunks), ended, ms: Date.now() - started });
    };
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        headers: { authorization: `Bearer ${token}`, ...options.headers },
      },
      (res) => {
        status = res.statusCode ?? 0;
        headers = res.headers;
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => settle('end'));
        res.on('error', (error) => settle(error.message));
        res.on('close', () => settle(res.complete ? 'end' : 'closed before the end'));
      },
    );
    req.on('error', (error) => settle(error.message));
    const giveUp = setTimeout(() => settle('no end (gave up)'), options.giveUpMs ?? 20_000);
    req.end();
  });
}

const json = (d: Download): unknown => JSON.parse(d.body.toString('utf8') || 'null');

/**
 * serve-image from an S3 store that fails while it is read: a proxy in front of the run's s3mock takes the
 * store's connections and never answers, or passes an answer's head (and some of its body) and then nothing
 * more, or closes the connection. A client must never be held beyond MEDIA_S3_TIMEOUT_MS with nothing, and
 * must get the 503 envelope when nothing of the image was sent yet.
 */
describe('serve-image while the S3 store fails mid-read', () => {
  let backend: StoreBackend;
  let proxy: AnswerCuttingProxy;
  let app: TestApp;
  let projectId: number;
  let token: string;
  /** Answered from one read into memory (getSmall). */
  const small = randomBytes(40 * 1024);
  /** Streamed (larger than serve-object's IN_MEMORY_BYTES). */
  const large = randomBytes(3 * 1024 * 1024);
  const url = (name: string) => `${app.url}/api/2026-03/mediaLibrary/serve-image/${projectId}/read/${name}`;

  beforeAll(async () => {
    backend = await s3Backend();
    proxy = await startAnswerCuttingProxy(backend.env.MEDIA_S3_ENDPOINT!);
    app = await startTestApp({
      env: {
        ...backend.env,
        MEDIA_S3_ENDPOINT: proxy.url,
        MEDIA_S3_TIMEOUT_MS: String(TIMEOUT_MS),
        // Every read goes to the store, none is answered from the process's memory.
        MEDIA_CACHE_MB: '0',
      },
    });
    ({ projectId } = await createTestProject(app.ctx));
    ({ token } = await tokenFor(app.ctx, projectId, ['public-api:read']));
    await storeImage(app.ctx, backend.store, { projectId, key: `${projectId}/read/small.png`, bytes: small });
    await storeImage(app.ctx, backend.store, { projectId, key: `${projectId}/read/large.png`, bytes: large });
  });

  afterEach(() => proxy.mode({ kind: 'forward' }));

  afterAll(async () => {
    await app.close();
    await proxy.close();
    await backend.dispose();
  });

  /** The requests of serve-image that read the store differently: one GET, HEAD then GET, HEAD alone. */
  const variants: Array<[string, string, { method?: string; headers?: Record<string, string> }]> = [
    ['a small image, plain', 'small.png', {}],
    ['a large image, plain', 'large.png', {}],
    ['a large image, If-None-Match', 'large.png', { headers: { 'if-none-match': '"other"' } }],
    ['a large image, one range', 'large.png', { headers: { range: 'bytes=100-200099' } }],
    ['HEAD', 'small.png', { method: 'HEAD' }],
  ];

  async function expectUnavailable(requests: typeof variants): Promise<void> {
    const answers = await Promise.all(
      requests.map(async ([what, name, options]) => ({
        what,
        answer: await download(url(name), token, options),
      })),
    );
    for (const { what, answer } of answers) {
      expect({ what, status: answer.status, ended: answer.ended }).toEqual({
        what,
        status: 503,
        ended: 'end',
      });
      expect({ what, retryAfter: answer.headers['retry-after'] }).toEqual({ what, retryAfter: '5' });
      if (what !== 'HEAD') expect({ what, body: json(answer) }).toEqual({ what, body: storageUnavailable });
      expect({ what, ms: answer.ms }).toEqual({ what, ms: expect.any(Number) });
      expect(answer.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
  }

  it('when the store takes the connection and never answers, then each request is 503 StorageUnavailable with Retry-After within MEDIA_S3_TIMEOUT_MS', async () => {
    await proxy.mode({ kind: 'hang' });
    await expectUnavailable(variants);
  });

  it('when more reads wait on the hung store than it has connections (50), then every request is 503 within MEDIA_S3_TIMEOUT_MS, not after its turn for a connection', async () => {
    await proxy.mode({ kind: 'hang' });
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => download(url('small.png'), token, { giveUpMs: 10 * TIMEOUT_MS })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(503));
    // Before: 50 at a time, each batch once the one before timed out: the last after 4 x MEDIA_S3_TIMEOUT_MS,
    // 3 x after the first. (The requests themselves arrive over some hundreds of ms on a busy machine.)
    const ms = answers.map((answer) => answer.ms);
    expect(Math.max(...ms)).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(Math.max(...ms) - Math.min(...ms)).toBeLessThan(2 * TIMEOUT_MS);
  });

  it.each([500, 503])(
    'when the store answers %d to every read, then 503 StorageUnavailable with Retry-After',
    async (status) => {
      await proxy.mode({ kind: 'fail', status });
      await expectUnavailable(variants);
    },
  );

  it("when the store sends an answer's head and then nothing, then 503 StorageUnavailable within MEDIA_S3_TIMEOUT_MS (no byte of the image was sent)", async () => {
    await proxy.mode({ kind: 'cut', bodyBytes: 0, then: 'stall' });
    await expectUnavailable(variants.filter(([what]) => what !== 'HEAD'));
  });

  it("when the store closes the connection after an answer's head, then 503 StorageUnavailable, not a cut connection", async () => {
    await proxy.mode({ kind: 'cut', bodyBytes: 0, then: 'drop' });
    await expectUnavailable(variants.filter(([what]) => what !== 'HEAD'));
  });

  it('when the store stalls mid-image, then the client gets the start and then the end of the connection within MEDIA_S3_TIMEOUT_MS, the store connection is closed, and the API serves on', async () => {
    await proxy.mode({ kind: 'cut', bodyBytes: 512 * 1024, then: 'stall' });
    const answer = await download(url('large.png'), token);
    expect(answer.status).toBe(200);
    expect(answer.ended).not.toBe('end');
    expect(answer.ended).not.toBe('no end (gave up)');
    expect(answer.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(answer.body.length).toBeGreaterThan(0);
    expect(answer.body.length).toBeLessThan(large.length);
    expect(large.subarray(0, answer.body.length).equals(answer.body)).toBe(true);
    // The stalled connection to the store is not left behind.
    await eventually(() => Promise.resolve(proxy.connections() === 0), 5_000);
    await proxy.mode({ kind: 'forward' });
    const again = await download(url('large.png'), token);
    expect(again.status).toBe(200);
    expect(again.body.equals(large)).toBe(true);
  });

  it('when the store drops the connection mid-image, then the client gets the start and then the end of the connection, and the API serves on', async () => {
    await proxy.mode({ kind: 'cut', bodyBytes: 512 * 1024, then: 'drop' });
    const answer = await download(url('large.png'), token);
    expect(answer.status).toBe(200);
    expect(answer.ended).not.toBe('end');
    expect(answer.ended).not.toBe('no end (gave up)');
    expect(answer.body.length).toBeLessThan(large.length);
    await proxy.mode({ kind: 'forward' });
    const again = await download(url('large.png'), token);
    expect(again.status).toBe(200);
    expect(again.body.equals(large)).toBe(true);
  });

  it('when the client hangs up mid-image, then the read from the store is aborted at once (its connection closed)', async () => {
    // About 1.3 MB/s from the store: the 3 MB image is in flight for a couple of seconds, never idle.
    await proxy.mode({ kind: 'trickle', bytes: 64 * 1024, everyMs: 50 });
    await new Promise<void>((resolve, reject) => {
      const req = request(
        url('large.png'),
        { agent: false, headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(proxy.connections()).toBeGreaterThan(0);
    await eventually(() => Promise.resolve(proxy.connections() === 0), 2_000);
  });

  it.each([
    ['plain', {}],
    ['one range', { range: 'bytes=100-2000099' }],
  ])(
    'when the client hangs up before the store answered (%s), then nothing more is read for it: the read in flight ends when its answer comes, no further one is made',
    async (_what, headers: Record<string, string>) => {
      // The store's answer starts half a second late, and then trickles.
      await proxy.mode({ kind: 'trickle', bytes: 64 * 1024, everyMs: 500 });
      const req = request(url('large.png'), {
        agent: false,
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
      req.on('error', () => undefined);
      req.end();
      // The store's first answer is on its way (it reaches the API at 500 ms).
      await eventually(() => Promise.resolve(proxy.trickling() > 0), 5_000, 10);
      req.destroy();
      // Three periods later any read made for the gone client would still be trickling (64 kB every 500 ms,
      // some 25 s for the image). (A HEAD's connection may stay, idle, kept alive for the next read.)
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(proxy.trickling()).toBe(0);
    },
  );

  it("when the store ignores Range and sends the whole object, then 206 with exactly the asked bytes (not the whole object under a range's Content-Length)", async () => {
    await proxy.mode({ kind: 'ignore-range' });
    for (const [from, to] of [
      [100, 200_099],
      [0, 0],
      [large.length - 10, large.length + 50],
    ] as const) {
      const answer = await download(url('large.png'), token, { headers: { range: `bytes=${from}-${to}` } });
      const end = Math.min(to, large.length - 1);
      expect({ status: answer.status, ended: answer.ended, range: answer.headers['content-range'] }).toEqual({
        status: 206,
        ended: 'end',
        range: `bytes ${from}-${end}/${large.length}`,
      });
      expect(answer.body.equals(large.subarray(from, end + 1))).toBe(true);
    }
  });

  it('when the client reads nothing for longer than MEDIA_S3_TIMEOUT_MS, then the image still comes whole: a reader holding back is not a store that stalls', async () => {
    const received = await new Promise<Buffer>((resolve, reject) => {
      const req = request(
        url('large.png'),
        { agent: false, headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.pause();
          setTimeout(() => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve(Buffer.concat(chunks)));
            res.on('error', reject);
            res.resume();
          }, 3 * TIMEOUT_MS);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(received.equals(large)).toBe(true);
  });
});
