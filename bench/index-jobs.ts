import { loadavg } from 'node:os';
import pg from 'pg';
import { ensureDatabase } from '../src/db/migrate';
import { enqueueMany, startBoss } from '../src/jobs/boss';
import { indexJobsFor } from '../src/jobs/index-jobs';
import { QUEUES } from '../src/jobs/queues';
import { cpuMs } from './bench';

/**
 * The outbox cost of an import's index jobs, before and after in one run (A/B, alternating rounds): for N
 * documents in batches of the import's 500, each batch a transaction that inserts either one index-document
 * job per document (before) or indexJobsFor's one index-documents job per batch (now) and commits, nothing
 * else. On one connection, whose Postgres backend's CPU time is read from /proc (the server runs on this
 * machine): a figure the other load on the machine moves far less than wall time. The jobs a round left are
 * deleted before the next (not counted). A database of its own (pg-boss's schema only):
 *
 *   BENCH_DATABASE=broadsheet_bench_importjobs_ab npx tsx bench/index-jobs.ts [documents=100000] [rounds=5]
 */
const BATCH = 500;

async function main() {
  const documents = Number(process.argv[2] ?? 100_000);
  const rounds = Number(process.argv[3] ?? 5);
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/${process.env.BENCH_DATABASE ?? 'broadsheet_bench_importjobs_ab'}`;
  const databaseUrl = base.toString();
  await ensureDatabase(databaseUrl);
  const boss = await startBoss(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const variants = {
    perDocument: async (ids: number[]) =>
      enqueueMany(
        boss,
        client,
        'indexDocument',
        ids.map((documentId) => ({ projectId: 1, documentId })),
      ),
    perBatch: async (ids: number[]) => enqueueMany(boss, client, 'indexDocuments', indexJobsFor(1, ids)),
  };
  const results: Record<keyof typeof variants, { cpu: number[]; wall: number[] }> = {
    perDocument: { cpu: [], wall: [] },
    perBatch: { cpu: [], wall: [] },
  };
  try {
    for (let round = 1; round <= rounds; round += 1) {
      const order: (keyof typeof variants)[] =
        round % 2 === 1 ? ['perDocument', 'perBatch'] : ['perBatch', 'perDocument'];
      for (const name of order) {
        const cpuBefore = await cpuMs(backend);
        const started = performance.now();
        for (let first = 1; first <= documents; first += BATCH) {
          const ids = Array.from({ length: Math.min(BATCH, documents - first + 1) }, (_, i) => first + i);
          await client.query('BEGIN');
          await variants[name](ids);
          await client.query('COMMIT');
        }
        const wall = performance.now() - started;
        const cpu = (await cpuMs(backend)) - cpuBefore;
        results[name].cpu.push(cpu);
        results[name].wall.push(wall);
        console.error(
          `round ${round} ${name}: Postgres backend CPU ${cpu.toFixed(0)} ms, wall ${wall.toFixed(0)} ms, load ${loadavg()[0]!.toFixed(1)}`,
        );
        await boss.deleteQueuedJobs(QUEUES.indexDocument.name);
        await boss.deleteQueuedJobs(QUEUES.indexDocuments.name);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    console.log(
      JSON.stringify({
        documents,
        rounds,
        load: loadavg().map((value) => Number(value.toFixed(1))),
        medianBackendCpuMs: {
          perDocument: median(results.perDocument.cpu),
          perBatch: median(results.perBatch.cpu),
        },
        medianWallMs: {
          perDocument: median(results.perDocument.wall),
          perBatch: median(results.perBatch.wall),
        },
        results,
      }),
    );
  } finally {
    await client.end();
    await boss.stop({ graceful: false });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
