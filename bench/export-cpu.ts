import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createApiClient } from '../src/commands/api-clients';
import { loadConfig } from '../src/config';
import { createContext } from '../src/context';
import { callApi, cpuMs, cpuTimes, freePort, untilServing } from './bench';

/**
 * CPU per 1000 exported documents, per process (API, Elasticsearch, the pulling client), for our export and
 * the raw pullers: a figure that the machine's other load does not move the way throughput moves. Runs on a
 * database and index a bench left behind:
 *
 *   BENCH_DATABASE=bench_x BENCH_INDEX_PREFIX=benchx npm run bench -- --only=export   # seeds and indexes
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_x ELASTICSEARCH_INDEX_PREFIX=benchx \
 *     JWT_SECRET=... ES_PID=$(pgrep -f org.elasticsearch.bootstrap) npx tsx bench/export-cpu.ts
 */
async function main() {
  const esPid = Number(process.env.ES_PID);
  if (!esPid) throw new Error('ES_PID: the Elasticsearch process id');
  const ctx = await createContext(loadConfig());
  const project = await ctx.pool.query<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1');
  const projectId = project.rows[0]!.id;
  const { token } = await createApiClient(ctx.pool, ctx.config.auth.jwtSecret, {
    projectId,
    name: 'export-cpu',
    scopes: ['public-api:read'],
  });
  const bounds = await ctx.pool.query<{ min: number; max: number; count: number }>(
    'SELECT min(id)::int AS min, max(id)::int AS max, count(*)::int AS count FROM documents WHERE project_id = $1 AND latest_publication_id IS NOT NULL',
    [projectId],
  );
  const { min, max, count } = bounds.rows[0]!;
  const port = await freePort();
  const nodeArgs = process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const api = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], {
    cwd: resolve(__dirname, '..'),
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await untilServing(api, `${url}/api/2026-03/health`, 'the API');
    const headers = { authorization: `Bearer ${token}` };
    // PULLERS=8: more pullers on both sides, to tell whether a side is bound by latency or by CPU.
    const pullers = Number(process.env.PULLERS ?? 4);
    const part = Math.ceil((max + 1 - min) / pullers);
    const ranges = Array.from({ length: pullers }, (_, p) => ({
      from: min + p * part,
      end: Math.min(max + 1, min + (p + 1) * part),
    }));
    const ours = async () => {
      let seen = 0;
      await Promise.all(
        ranges.map(async ({ from, end }) => {
          for (let at = from; at < end; at += 100) {
            const to = Math.min(end, at + 100);
            const r = await callApi(
              `${url}/api/2026-03/documents/latestPublications?id.gte=${at}&id.lt=${to}&reverse=true&limit=100`,
              { headers },
            );
            seen += (r.body as { results: unknown[] }).results.length;
          }
        }),
      );
      return seen;
    };
    const source = ['body.systemdata', 'body.metadata', 'body.content', 'body.references'];
    const raw = async () => {
      let seen = 0;
      await Promise.all(
        ranges.map(async ({ from, end }) => {
          let after: unknown[] | undefined;
          for (;;) {
            const response = await ctx.search.search({
              index: ctx.index.alias,
              size: 100,
              track_total_hits: false,
              query: {
                bool: {
                  filter: [{ term: { projectId } }, { range: { documentId: { gte: from, lt: end } } }],
                },
              },
              sort: [
                { lastPublicationDate: { order: 'asc', missing: '_last' } },
                { documentId: { order: 'asc' } },
              ],
              _source: source,
              version: true,
              ...(after ? { search_after: after as never } : {}),
            });
            seen += response.hits.hits.length;
            if (response.hits.hits.length < 100) return;
            after = response.hits.hits[response.hits.hits.length - 1]!.sort;
          }
        }),
      );
      return seen;
    };
    const measure = async (name: string, pull: () => Promise<number>) => {
      const before = { api: await cpuTimes(api.pid!), es: await cpuMs(esPid), client: process.cpuUsage() };
      const started = performance.now();
      const seen = await pull();
      const seconds = (performance.now() - started) / 1000;
      const client = process.cpuUsage(before.client);
      const per1000 = (ms: number) => ((ms / seen) * 1000).toFixed(0);
      const apiTimes = await cpuTimes(api.pid!);
      const apiKernelMs = apiTimes.system - before.api.system;
      const apiMs = apiTimes.user - before.api.user + apiKernelMs;
      const esMs = (await cpuMs(esPid)) - before.es;
      const clientMs = (client.user + client.system) / 1000;
      console.log(
        `${name}: ${seen}/${count} docs, ${(seen / seconds).toFixed(0)} docs/s; CPU ms per 1000 docs: API ${per1000(apiMs)} (kernel ${per1000(apiKernelMs)}), ES ${per1000(esMs)}, client ${per1000(clientMs)}, total ${per1000(apiMs + esMs + clientMs)}`,
      );
    };
    // WARM=0: no warm-up pass (a pass over a million documents takes minutes).
    if (process.env.WARM !== '0') {
      await ours();
      await raw();
    }
    const rounds = Number(process.env.ROUNDS ?? 2);
    for (let round = 0; round < rounds; round++) {
      await measure('ours', ours);
      await measure('raw ', raw);
    }
    const status = await readFile(`/proc/${api.pid}/status`, 'utf8');
    console.log(`API peak RSS: ${Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024)} MiB`);
  } finally {
    api.kill('SIGTERM');
    await ctx.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
