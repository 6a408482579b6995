import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createApiClient } from '../src/commands/api-clients';
import { loadConfig } from '../src/config';
import { createContext } from '../src/context';
import { callApiText, cpuTimes, freePort, load, median, untilServing } from './bench';
import { widgetQueries } from './search';

/**
 * An A/B of two builds of the API on the uncached search paths: the teaser and filtered lists (c=16) and the
 * export by four id-range pullers (pages of 100), each build a process of its own with SEARCH_CACHE=off,
 * measured in turns (A then B, then B then A, ...) so both see the machine in the same moods. Besides the
 * rates, the API's own CPU per request and per 1000 exported documents from `/proc`, which the machine's
 * other load moves far less. Runs on a database and index a bench left behind (see bench/export-cpu.ts):
 *
 *   cp -r dist /tmp/dist-before   # the build to compare with, made before the change
 *   npm run build
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/broadsheet_bench_x ELASTICSEARCH_INDEX_PREFIX=benchx \
 *     JWT_SECRET=... DIST_A=/tmp/dist-before DIST_B=dist npx tsx bench/api-ab.ts
 *
 * ROUNDS (default 3), LIST_MS (per list and turn, default 4000), ONLY=lists|export. Node's options for the
 * API processes: BENCH_API_NODE_ARGS for both, BENCH_API_NODE_ARGS_A / _B for one side (to A/B a V8 flag on
 * one build: DIST_A=dist DIST_B=dist BENCH_API_NODE_ARGS_B='--heap-growing-percent=300').
 */

const loadAverage = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');

async function startApi(dist: string, port: number, side: 'A' | 'B'): Promise<ChildProcess> {
  const args = process.env[`BENCH_API_NODE_ARGS_${side}`] ?? process.env.BENCH_API_NODE_ARGS;
  const nodeArgs = args?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, resolve(dist, 'src/main.js')], {
    cwd: resolve(__dirname, '..'),
    env: {
      ...process.env,
      SEARCH_CACHE: 'off',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await untilServing(child, `http://127.0.0.1:${port}/api/2026-03/health`, `the API of ${dist}`);
  return child;
}

/** CPU ms used between two readings, and the kernel's part of it. */
function usedSince(
  before: { user: number; system: number },
  after: { user: number; system: number },
): { used: number; kernel: number } {
  const kernel = after.system - before.system;
  return { used: after.user - before.user + kernel, kernel };
}

interface Figure {
  rate: number;
  /** API CPU ms per request (lists) or per 1000 documents (export). */
  cpu: number;
  /** The kernel's share of `cpu` (see cpuTimes). */
  kernel: number;
}

async function main() {
  const dists = { A: process.env.DIST_A ?? 'dist', B: process.env.DIST_B ?? 'dist' };
  const rounds = Number(process.env.ROUNDS ?? 3);
  const listMs = Number(process.env.LIST_MS ?? 4000);
  const only = process.env.ONLY;
  const ctx = await createContext(loadConfig());
  const project = await ctx.pool.query<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1');
  const projectId = project.rows[0]!.id;
  const { token } = await createApiClient(ctx.pool, ctx.config.auth.jwtSecret, {
    projectId,
    name: 'api-ab',
    scopes: ['public-api:read'],
  });
  const bounds = await ctx.pool.query<{ min: number; max: number }>(
    'SELECT min(id)::int AS min, max(id)::int AS max FROM documents WHERE project_id = $1 AND latest_publication_id IS NOT NULL',
    [projectId],
  );
  const { min, max } = bounds.rows[0]!;
  const headers = { authorization: `Bearer ${token}` };
  const ports = { A: await freePort(), B: await freePort() };
  const apis = {
    A: await startApi(dists.A, ports.A, 'A'),
    B: await startApi(dists.B, ports.B, 'B'),
  };
  const urls = { A: `http://127.0.0.1:${ports.A}`, B: `http://127.0.0.1:${ports.B}` };
  const lists = widgetQueries().filter((query) => query.name !== 'full text');
  const figures = new Map<string, Figure[]>();
  const note = (name: string, figure: Figure) => {
    const list = figures.get(name) ?? [];
    list.push(figure);
    figures.set(name, list);
  };

  const listTurn = async (side: 'A' | 'B', query: string, ms: number): Promise<Figure> => {
    const pid = apis[side].pid!;
    let failed = 0;
    const before = await cpuTimes(pid);
    const result = await load(ms, 16, async () => {
      const answer = await callApiText(`${urls[side]}/api/2026-03/publications/search?${query}`, headers);
      if (answer.status !== 200) failed++;
    });
    const { used, kernel } = usedSince(before, await cpuTimes(pid));
    if (failed > 0) console.log(`  ${side}: ${failed} answers not 200`);
    return { rate: result.perSecond, cpu: used / result.latencies.length, kernel: kernel / used };
  };

  const exportTurn = async (side: 'A' | 'B', first: number, last: number): Promise<Figure> => {
    const pid = apis[side].pid!;
    const part = Math.ceil((last + 1 - first) / 4);
    const before = await cpuTimes(pid);
    const started = performance.now();
    const counts = await Promise.all(
      [0, 1, 2, 3].map(async (p) => {
        let seen = 0;
        const end = Math.min(last + 1, first + (p + 1) * part);
        for (let at = first + p * part; at < end; at += 100) {
          const to = Math.min(end, at + 100);
          const answer = await callApiText(
            `${urls[side]}/api/2026-03/documents/latestPublications?id.gte=${at}&id.lt=${to}&reverse=true&limit=100`,
            headers,
          );
          if (answer.status !== 200) throw new Error(`latestPublications answered ${answer.status}`);
          seen += (JSON.parse(answer.text) as { results: unknown[] }).results.length;
        }
        return seen;
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const { used, kernel } = usedSince(before, await cpuTimes(pid));
    const seen = counts.reduce((a, b) => a + b, 0);
    return { rate: seen / seconds, cpu: (used / seen) * 1000, kernel: kernel / used };
  };

  try {
    console.log(`load average at start: ${await loadAverage()}`);
    // Warm both: V8 optimises the hot paths in the first seconds of load.
    for (const side of ['A', 'B'] as const) {
      for (const list of lists) await listTurn(side, list.query, 2000);
      await exportTurn(side, min, min + Math.floor((max - min) / 10));
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
      if (only !== 'export') {
        for (const list of lists) {
          for (const side of order) {
            const figure = await listTurn(side, list.query, listMs);
            note(`${list.name} ${side}`, figure);
            console.log(
              `round ${round + 1} ${list.name} ${side}: ${figure.rate.toFixed(0)} req/s, API ${figure.cpu.toFixed(3)} ms CPU/request (kernel ${(figure.kernel * 100).toFixed(0)}%)`,
            );
          }
        }
      }
      if (only !== 'lists') {
        for (const side of order) {
          const figure = await exportTurn(side, min, max);
          note(`export ${side}`, figure);
          console.log(
            `round ${round + 1} export ${side}: ${figure.rate.toFixed(0)} docs/s, API ${figure.cpu.toFixed(1)} ms CPU/1000 docs (kernel ${(figure.kernel * 100).toFixed(0)}%)`,
          );
        }
      }
      console.log(`  load average: ${await loadAverage()}`);
    }
    console.log(`\nmedians (B/A: rate ratio, CPU ratio), load average at end: ${await loadAverage()}`);
    for (const name of ['teaser list', 'filtered list', 'export']) {
      const a = figures.get(`${name} A`);
      const b = figures.get(`${name} B`);
      if (!a || !b) continue;
      const rateRatios = a.map((figure, i) => b[i]!.rate / figure.rate);
      const cpuRatios = a.map((figure, i) => b[i]!.cpu / figure.cpu);
      console.log(
        `${name}: A ${median(a.map((f) => f.rate)).toFixed(0)}/s ${median(a.map((f) => f.cpu)).toFixed(3)} ms, B ${median(b.map((f) => f.rate)).toFixed(0)}/s ${median(b.map((f) => f.cpu)).toFixed(3)} ms; B/A rate ${median(rateRatios).toFixed(2)} (${rateRatios.map((r) => r.toFixed(2)).join(', ')}), CPU ${median(cpuRatios).toFixed(2)} (${cpuRatios.map((r) => r.toFixed(2)).join(', ')})`,
      );
    }
  } finally {
    apis.A.kill('SIGTERM');
    apis.B.kill('SIGTERM');
    await ctx.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
