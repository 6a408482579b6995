import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { loadConfig } from '../src/config';
import { createContext, type AppContext } from '../src/context';
import { rebuildIndex } from '../src/search/index-manager';
import { cpuMs, median } from './bench';
import { deleteRawIndices, rawBulkLoad, REBUILD_BATCH_SIZE, writeRawBulkFile } from './search';

/**
 * Wall time and CPU per 1000 documents, per process (this one, its Postgres backends, Elasticsearch), of a
 * warm `rebuildIndex` and of the raw bulk load, in alternating rounds: CPU is a figure the machine's other load
 * moves much less than a rate. Runs on the database and index a rebuild bench left behind:
 *
 *   BENCH_SUFFIX=_x npm run bench -- --only=rebuild --docs=100000 --rounds=1     # seeds, stores, indexes
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/broadsheet_bench_x ELASTICSEARCH_INDEX_PREFIX=benchx \
 *     JWT_SECRET=0123456789abcdef0123 ROUNDS=3 npx tsx bench/rebuild-cpu.ts
 *
 * BEFORE=<module>: also an A/B against another rebuildIndex (a copy of an older index-manager.ts), in the
 * same rounds. BATCH=<n>: documents per bulk request on every side (default REBUILD_BATCH_SIZE, as the
 * bench): 3000 measured the same ratio as 1000 (0.77 both, load average 4-5, 2026-11-26).
 */
/** cpuMs, or undefined for a process gone meanwhile (a Postgres backend the pool closed). */
const cpuMsIfAlive = (pid: number) => cpuMs(pid).catch(() => undefined);

/** The Postgres backends serving this database now (the pool's connections). */
async function backendPids(ctx: AppContext): Promise<number[]> {
  const result = await ctx.pool.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  return result.rows.map((row) => row.pid);
}

interface Sample {
  seconds: number;
  self: number;
  postgres: number;
  elasticsearch: number;
}

async function measure(ctx: AppContext, esPid: number, run: () => Promise<unknown>): Promise<Sample> {
  const before = await backendPids(ctx);
  const pgBefore = new Map(
    await Promise.all(before.map(async (pid) => [pid, await cpuMsIfAlive(pid)] as const)),
  );
  const esBefore = await cpuMsIfAlive(esPid);
  const selfBefore = process.cpuUsage();
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  const self = process.cpuUsage(selfBefore);
  const esAfter = await cpuMsIfAlive(esPid);
  const after = await backendPids(ctx);
  let postgres = 0;
  for (const pid of new Set([...before, ...after])) {
    // A backend that ended meanwhile (the pool's idle timeout) took its CPU time with it: left out.
    const now = await cpuMsIfAlive(pid);
    if (now !== undefined) postgres += now - (pgBefore.get(pid) ?? 0);
  }
  return {
    seconds,
    self: (self.user + self.system) / 1000,
    postgres,
    elasticsearch: (esAfter ?? 0) - (esBefore ?? 0),
  };
}

async function main() {
  const esPid = Number(
    execFileSync('pgrep', ['-f', 'org.elasticsearch.bootstrap']).toString().split('\n')[0],
  );
  const rounds = Number(process.env.ROUNDS ?? 3);
  const ctx = await createContext(loadConfig());
  const deps = { db: ctx.pool, search: ctx.search, index: ctx.index };
  const before = process.env.BEFORE
    ? ((await import(process.env.BEFORE)) as { rebuildIndex: typeof rebuildIndex }).rebuildIndex
    : undefined;
  const documents = (
    await ctx.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM documents WHERE latest_publication_id IS NOT NULL',
    )
  ).rows[0]!.n;
  const batchSize = Number(process.env.BATCH ?? REBUILD_BATCH_SIZE);
  const raw = await writeRawBulkFile(ctx, batchSize);
  const variants: [string, () => Promise<unknown>][] = [
    ['ours', () => rebuildIndex(deps, { batchSize })],
    ...(before ? [['before', () => before(deps, { batchSize })] as [string, () => Promise<unknown>]] : []),
    ['raw', () => rawBulkLoad(ctx, documents, raw)],
  ];
  const samples = new Map<string, Sample[]>(variants.map(([name]) => [name, []]));
  try {
    console.error(
      `rebuild-cpu: ${documents} documents, ${batchSize} per bulk request, load average ${loadavg()[0]!.toFixed(2)}`,
    );
    // Warm: the stored documents are current, the JIT has seen both paths, each side has an index to replace.
    await rebuildIndex(deps, { batchSize });
    await rawBulkLoad(ctx, documents, raw);
    for (let round = 1; round <= rounds; round++) {
      // Each round in a different order, so neither side always runs right after the other.
      const order = round % 2 === 0 ? [...variants].reverse() : variants;
      for (const [name, run] of order) {
        const sample = await measure(ctx, esPid, run);
        samples.get(name)!.push(sample);
        console.error(
          `round ${round} ${name}: ${sample.seconds.toFixed(2)} s, CPU ms per 1000 docs: self ${((sample.self * 1000) / documents).toFixed(0)}, postgres ${((sample.postgres * 1000) / documents).toFixed(0)}, elasticsearch ${((sample.elasticsearch * 1000) / documents).toFixed(0)}`,
        );
      }
    }
  } finally {
    await deleteRawIndices(ctx);
    await raw.close();
    await ctx.close();
  }
  const per1000 = (values: number[]) => ((median(values) * 1000) / documents).toFixed(0);
  for (const [name, list] of samples) {
    console.log(
      `${name}: median ${median(list.map((s) => s.seconds)).toFixed(2)} s (${(documents / median(list.map((s) => s.seconds))).toFixed(0)} docs/s); CPU ms per 1000 docs: self ${per1000(list.map((s) => s.self))}, postgres ${per1000(list.map((s) => s.postgres))}, elasticsearch ${per1000(list.map((s) => s.elasticsearch))}`,
    );
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
