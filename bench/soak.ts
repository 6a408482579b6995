import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createApiClient } from '../src/commands/api-clients';
import { createProject } from '../src/commands/create-project';
import { loadConfig } from '../src/config';
import { createContext } from '../src/context';
import { callApi, freePort, percentile, round, sleep } from './bench';

/**
 * `npm run bench -- --soak[=<seconds>]` (10 minutes by default): the built API and worker processes, as
 * production runs them, under a mixed load at concurrency 32 — searches, latestPublication(s), drafts and
 * PATCH commands that publish (and so feed the index queue). Every answer that is not a 2xx counts as an
 * error; the API process's resident memory (RSS, from /proc) is sampled every second.
 */
export interface SoakOptions {
  durationMs: number;
  concurrency?: number;
  documents?: number;
}

export interface SoakResult {
  seconds: number;
  concurrency: number;
  requests: number;
  errors: number;
  /** The first few errors, as answered. */
  errorSamples: string[];
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  byKind: Record<string, { requests: number; p50Ms: number; p99Ms: number }>;
  rssMb: { start: number; peak: number; end: number };
}

const WORDS = ['harbour', 'election', 'storm', 'market', 'festival', 'council', 'bridge', 'river'];

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
  return round(kb / 1024);
}

function startProcess(script: string, env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, [resolve(__dirname, '..', script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((done, fail) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) done(child);
      if (output.length > 50_000) output = output.slice(-5_000);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => fail(new Error(`${script} exited with ${code}:\n${output}`)));
  });
}

async function waitForHealth(url: string): Promise<void> {
  for (let i = 0; i < 300; i += 1) {
    try {
      if ((await callApi(`${url}/api/2026-03/health`)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error('the API did not answer health within 30 s');
}

export async function soakBench(options: SoakOptions): Promise<SoakResult> {
  const concurrency = options.concurrency ?? 32;
  const documentCount = options.documents ?? 500;
  const ctx = await createContext(loadConfig());
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  let api: ChildProcess | undefined;
  let workers: ChildProcess | undefined;
  try {
    // The listening line is logged at info; the bench keeps the processes at warn, so wait on health instead.
    api = spawn(process.execPath, [resolve(__dirname, '..', 'dist/src/main.js')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    workers = await startProcess('dist/workers/main.js', { ...env, LOG_LEVEL: 'info' }, /workers running/);
    await waitForHealth(url);
    const apiPid = api.pid!;

    const { projectId, channelId } = await createProject(ctx.pool, {
      config: {
        settings: { handle: `soak-${randomBytes(4).toString('hex')}` },
        contentTypes: [
          {
            handle: 'regular',
            documentType: 'article',
            metadata: [
              { handle: 'title', type: 'string' },
              { handle: 'summary', type: 'text', index: true },
            ],
          },
        ],
      },
    });
    const { token } = await createApiClient(ctx.pool, ctx.config.auth.jwtSecret, {
      projectId,
      name: 'soak',
      scopes: ['public-api:read', 'public-api:write', 'public-api:drafts:read'],
    });
    const headers = { authorization: `Bearer ${token}` };
    const patch = (documentId: number, title: string) =>
      callApi(`${url}/api/2026-03/documents/${documentId}/commands`, {
        method: 'PATCH',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          commands: [
            { operation: 'setMetadataProperty', propertyName: 'title', value: title },
            {
              operation: 'setMetadataProperty',
              propertyName: 'summary',
              value: `${WORDS[title.length % WORDS.length]} ${title}`,
            },
            { operation: 'publish' },
          ],
        }),
      });
    const documents: number[] = [];
    for (let i = 0; i < documentCount; i += 1) {
      const { rows } = await ctx.pool.query<{ id: number }>(
        `INSERT INTO documents (project_id, channel_id, document_type, content_type, metadata, content)
         VALUES ($1, $2, 'article', 'regular', $3, '[]') RETURNING id`,
        [projectId, channelId, JSON.stringify({ title: `Soak ${i}` })],
      );
      documents.push(rows[0]!.id);
    }
    for (let start = 0; start < documents.length; start += concurrency) {
      await Promise.all(
        documents.slice(start, start + concurrency).map(async (id) => {
          const answer = await patch(id, `Soak ${id} seed`);
          if (answer.status !== 204) throw new Error(`seeding answered ${answer.status}`);
        }),
      );
    }
    // Let the index catch up and the process settle before the start figure is taken.
    await sleep(5_000);

    const kinds = ['search', 'latestPublication', 'latestPublications', 'latestDraft', 'publish'] as const;
    type Kind = (typeof kinds)[number];
    // The mix, out of 20: mostly reads, a publish in every 20 requests... times 3.
    const mix: Kind[] = [
      ...Array<Kind>(6).fill('search'),
      ...Array<Kind>(5).fill('latestPublication'),
      ...Array<Kind>(3).fill('latestPublications'),
      ...Array<Kind>(3).fill('latestDraft'),
      ...Array<Kind>(3).fill('publish'),
    ];
    const latencies = new Map<Kind, number[]>(kinds.map((kind) => [kind, []]));
    const errorSamples: string[] = [];
    let errors = 0;
    const rss: number[] = [rssMb(apiPid)];
    const sampler = setInterval(() => rss.push(rssMb(apiPid)), 1_000);
    const started = performance.now();
    const deadline = started + options.durationMs;
    let lastReport = started;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, worker) => {
        // Each worker publishes only its own documents, so no two PATCHes race on one row.
        const mine = documents.filter((_, index) => index % concurrency === worker);
        for (let i = 0; performance.now() < deadline; i += 1) {
          const kind = mix[(i * 7 + worker) % mix.length]!;
          const id = documents[(i * 31 + worker * 17) % documents.length]!;
          const t = performance.now();
          let answer: { status: number; body: unknown };
          try {
            switch (kind) {
              case 'search':
                answer = await callApi(
                  `${url}/api/2026-03/publications/search?search=${WORDS[i % WORDS.length]}&limit=10`,
                  { headers },
                );
                break;
              case 'latestPublication':
                answer = await callApi(`${url}/api/2026-03/documents/${id}/latestPublication`, { headers });
                break;
              case 'latestPublications':
                answer = await callApi(`${url}/api/2026-03/documents/latestPublications?limit=20`, {
                  headers,
                });
                break;
              case 'latestDraft':
                answer = await callApi(`${url}/api/2026-03/documents/${id}/latestDraft`, { headers });
                break;
              case 'publish':
                answer = await patch(mine[i % mine.length]!, `Soak ${worker} ${i}`);
                break;
            }
          } catch (error) {
            answer = { status: 0, body: String(error) };
          }
          latencies.get(kind)!.push(performance.now() - t);
          if (answer.status < 200 || answer.status >= 300) {
            errors += 1;
            if (errorSamples.length < 5)
              errorSamples.push(`${kind} ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
          }
          if (worker === 0 && performance.now() - lastReport > 60_000) {
            lastReport = performance.now();
            const done = [...latencies.values()].reduce((sum, list) => sum + list.length, 0);
            console.error(
              `soak: ${round((lastReport - started) / 1000, 0)} s, ${done} requests, ${errors} errors, ` +
                `RSS ${rss[rss.length - 1]} MB`,
            );
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    rss.push(rssMb(apiPid));
    const all = [...latencies.values()].flat();
    return {
      seconds: round(seconds, 0),
      concurrency,
      requests: all.length,
      errors,
      errorSamples,
      perSecond: round(all.length / seconds),
      p50Ms: round(percentile(all, 50)),
      p99Ms: round(percentile(all, 99)),
      byKind: Object.fromEntries(
        kinds.map((kind) => {
          const list = latencies.get(kind)!;
          return [
            kind,
            { requests: list.length, p50Ms: round(percentile(list, 50)), p99Ms: round(percentile(list, 99)) },
          ];
        }),
      ),
      rssMb: { start: rss[0]!, peak: Math.max(...rss), end: rss[rss.length - 1]! },
    };
  } finally {
    api?.kill('SIGTERM');
    workers?.kill('SIGTERM');
    await ctx.close();
  }
}
