import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { Agent, request } from 'undici';
import { createApiClient } from '../src/commands/api-clients';
import { createProject } from '../src/commands/create-project';
import { loadConfig } from '../src/config';
import { createContext, type AppContext } from '../src/context';
import { S3Store } from '../src/storage/s3-store';
import { freePort, load, pairedRate, sleep, untilServing, type BenchRow, type LoadResult } from './bench';

export interface ServeImageOptions {
  concurrency?: number;
  durationMs?: number;
  /** Also measure the S3 store against s3mock itself (S3MOCK_URL, default http://127.0.0.1:9090). */
  s3?: boolean;
}

const ROUNDS = 3;
/**
 * Each store is measured as configured by default (small images kept in the API's memory, MEDIA_CACHE_MB), then
 * with MEDIA_CACHE_MB=0: every image read from the folder or from s3mock, the figure of the path itself.
 */
const CACHE_SETTINGS = [
  ['', {}],
  [' without the image cache (MEDIA_CACHE_MB=0)', { MEDIA_CACHE_MB: '0' }],
] as const;
const IMAGE_BYTES = 200 * 1024;
const root = resolve(__dirname, '..');

/**
 * serve-image throughput at c=16 for a 200 kB PNG, each beside the same bytes served the plainest way in the
 * same run: with the local-folder store, express.static over the very file the store keeps (in a process of
 * its own, like the API); with the S3 store, s3mock answering a GET of the object itself. Each once with the
 * API's image cache (the default) and once without it. Ours pays for the token, the entry check (revoked?
 * another project's? kept per process until the project's entries change) and the store's read.
 */
export async function serveImageBench(options: ServeImageOptions = {}): Promise<BenchRow[]> {
  const concurrency = options.concurrency ?? 16;
  const durationMs = options.durationMs ?? 6_000;
  const rows: BenchRow[] = [];
  const image = await benchPng();

  const dir = await mkdtemp(join(tmpdir(), 'broadsheet-bench-media-'));
  try {
    const key = await storeImage({ MEDIA_STORAGE_DIR: dir }, image);
    // express.static over the store's own folder: the same file on disk, the same kind of process.
    const baseline = await startNode(['-e', STATIC_SERVER, join(dir, 'objects')], {});
    try {
      for (const [label, cache] of CACHE_SETTINGS) {
        const api = await startNode([...apiNodeArgs(), 'dist/src/main.js'], {
          MEDIA_STORAGE_DIR: dir,
          ...cache,
        });
        try {
          rows.push(
            await measure(
              `serve-image 200 kB PNG, local folder store${label}, vs express.static of the same file (c=${concurrency})`,
              { url: `${api.url}/api/2026-03/mediaLibrary/serve-image/${key.key}`, token: key.token },
              { url: `${baseline.url}/${key.key}` },
              concurrency,
              durationMs,
            ),
          );
        } finally {
          api.child.kill('SIGTERM');
        }
      }
    } finally {
      baseline.child.kill('SIGTERM');
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  if (options.s3 ?? true) {
    const endpoint = process.env.S3MOCK_URL ?? `http://127.0.0.1:${process.env.S3MOCK_PORT ?? '9090'}`;
    const env = {
      MEDIA_S3_BUCKET: `bench-${randomBytes(4).toString('hex')}`,
      MEDIA_S3_ENDPOINT: endpoint,
      MEDIA_S3_ACCESS_KEY_ID: 'bench',
      MEDIA_S3_SECRET_ACCESS_KEY: 'bench-secret',
      MEDIA_S3_FORCE_PATH_STYLE: 'true',
    };
    const storage = loadConfig(env).media.storage;
    if (storage.kind !== 's3') throw new Error('expected the S3 store');
    const admin = new S3Store(storage);
    await admin.client.send(new CreateBucketCommand({ Bucket: storage.bucket }));
    let stored: { key: string; token: string } | undefined;
    try {
      stored = await storeImage(env, image);
      for (const [label, cache] of CACHE_SETTINGS) {
        const api = await startNode([...apiNodeArgs(), 'dist/src/main.js'], { ...env, ...cache });
        try {
          rows.push(
            await measure(
              `serve-image 200 kB PNG, S3 store${label}, vs a GET from s3mock itself (c=${concurrency})`,
              { url: `${api.url}/api/2026-03/mediaLibrary/serve-image/${stored.key}`, token: stored.token },
              { url: `${endpoint}/${storage.bucket}/${stored.key}` },
              concurrency,
              durationMs,
            ),
          );
        } finally {
          api.child.kill('SIGTERM');
        }
      }
    } finally {
      if (stored)
        await admin.client.send(new DeleteObjectCommand({ Bucket: storage.bucket, Key: stored.key }));
      await admin.client.send(new DeleteBucketCommand({ Bucket: storage.bucket }));
      admin.close();
    }
  }
  return rows;
}

/** BENCH_API_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the API process, as in the search bench. */
const apiNodeArgs = () => process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

/** A real PNG of about IMAGE_BYTES: noise, stored without compression, so its size is what the bench says. */
async function benchPng(): Promise<Buffer> {
  const side = Math.round(Math.sqrt(IMAGE_BYTES / 3));
  const pixels = randomBytes(side * side * 3);
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

/** The image in the store the env configures, its entry in a new project, and a read token of that project. */
async function storeImage(
  env: Record<string, string>,
  image: Buffer,
): Promise<{ key: string; token: string }> {
  const ctx: AppContext = await createContext(loadConfig({ ...process.env, ...env }));
  try {
    const { projectId } = await createProject(ctx.pool, {
      config: { settings: { handle: `bench-${randomBytes(4).toString('hex')}` } },
    });
    const { token } = await createApiClient(ctx.pool, ctx.config.auth.jwtSecret, {
      projectId,
      name: 'bench',
      scopes: ['public-api:read'],
    });
    const key = `${projectId}/bench-image/${randomBytes(8).toString('hex')}/teaser.png`;
    await ctx.objects.put(key, image, { contentType: 'image/png' });
    await ctx.pool.query(
      `INSERT INTO media_entries (project_id, id, media_type, asset) VALUES ($1, 'bench-image', 'image', $2)`,
      [projectId, JSON.stringify({ key, filename: 'teaser.png', mimeType: 'image/png', size: image.length })],
    );
    return { key, token };
  } finally {
    await ctx.close();
  }
}

/** express.static over argv[1], on PORT. */
const STATIC_SERVER = `
const express = require('express');
const app = express();
app.use(express.static(process.argv[1]));
app.listen(Number(process.env.PORT), '127.0.0.1');
`;

/** A node process of the bench's own (the API, or the static baseline) on a free port, once it answers. */
async function startNode(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: root,
    // warn, as in the search bench: an access-log line per request would be part of the figure.
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // Any HTTP answer: the API's health, the static server's 404.
  await untilServing(child, `${url}/api/2026-03/health`, args.join(' '));
  return { child, url };
}

const agent = new Agent({ connections: 64 });

/** One GET, its body read to the end; anything but a 200 of the expected size stops the bench. */
async function fetchImage(target: { url: string; token?: string }, size: number): Promise<void> {
  const response = await request(target.url, {
    headers: target.token === undefined ? {} : { authorization: `Bearer ${target.token}` },
    dispatcher: agent,
  });
  const body = await response.body.arrayBuffer();
  if (response.statusCode !== 200 || body.byteLength !== size) {
    throw new Error(`${target.url} answered ${response.statusCode} with ${body.byteLength} bytes`);
  }
}

async function measure(
  name: string,
  ours: { url: string; token: string },
  raw: { url: string },
  concurrency: number,
  durationMs: number,
): Promise<BenchRow> {
  const size = Number(
    (await request(raw.url, { method: 'HEAD', dispatcher: agent })).headers['content-length'],
  );
  const ourCall = () => fetchImage(ours, size);
  const rawCall = () => fetchImage(raw, size);
  // Both new processes warm up the same way (JIT, connections, the pool), then ROUNDS rounds of ours then raw.
  const warmUpMs = Math.min(3000, durationMs / 2);
  await load(warmUpMs, concurrency, ourCall);
  await load(warmUpMs, concurrency, rawCall);
  const runs: { ours: LoadResult[]; raw: LoadResult[] } = { ours: [], raw: [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.ours.push(await load(durationMs / 2, concurrency, ourCall));
    runs.raw.push(await load(durationMs / 2, concurrency, rawCall));
    await sleep(100);
  }
  const throughput = (results: LoadResult[]) => results.map((result) => result.perSecond);
  return pairedRate(name, throughput(runs.ours), throughput(runs.raw), 'req/s');
}
