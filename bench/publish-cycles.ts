import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createApiClient } from '../src/commands/api-clients';
import { createProject } from '../src/commands/create-project';
import { loadConfig } from '../src/config';
import { createContext, type AppContext } from '../src/context';
import { withTransaction } from '../src/db/pool';
import { enqueue } from '../src/jobs/boss';
import { createApp } from '../src/http/app';
import { listen } from '../src/http/server';
import { callApi, cpuMs, fact, median, pairedRate, type BenchRow } from './bench';

export interface PublishCyclesOptions {
  concurrency?: number;
  durationMs?: number;
  /** Rounds of ours then raw (default 3); each side is first warmed for a fifth of durationMs. */
  rounds?: number;
}

/**
 * Publish cycles per second at concurrency 8: each worker edits its own document's title and publishes it
 * in one `PATCH documents/{id}/commands` request (auth, validation, row lock, draft update, publication,
 * event, references, index job). "raw" does the same writes as hand-written SQL transactions on the same
 * pool, without HTTP or any of the service's code in between: the row lock, the draft, the command
 * transaction record, the publication, the event under the project's event lock, both kinds of references
 * and the index job, as one plain statement each.
 *
 * Both sides are warmed first, then run in rounds of ours then raw (the median of the rounds' ratios, as
 * pairedRate does). Beside the rates it notes the CPU per cycle, from /proc, of this process (the HTTP
 * client and the API for ours) and of the database's Postgres backends: figures the machine's other load
 * moves far less than a rate.
 */
export async function publishCyclesBench(options: PublishCyclesOptions = {}): Promise<BenchRow[]> {
  const concurrency = options.concurrency ?? 8;
  const durationMs = options.durationMs ?? 5_000;
  const rounds = options.rounds ?? 3;
  const ctx = await createContext(loadConfig());
  const app = createApp(ctx);
  const server = await listen(app, 0, '127.0.0.1', ctx.config);
  try {
    const { url } = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const { projectId, channelId } = await createProject(ctx.pool, {
      config: { settings: { handle: `bench-${randomBytes(4).toString('hex')}` }, contentTypes: [benchType] },
    });
    const { token } = await createApiClient(ctx.pool, ctx.config.auth.jwtSecret, {
      projectId,
      name: 'bench',
      scopes: ['public-api:write'],
    });
    const documents = await Promise.all(
      Array.from({ length: concurrency * 2 }, () => insertDocument(ctx, projectId, channelId)),
    );
    const ours = (ms: number) =>
      runFor(ms, concurrency, async (worker, i) => {
        const response = await callApi(`${url}/api/2026-03/documents/${documents[worker]!}/commands`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ commands: commandsOf(`Title ${i}`) }),
        });
        if (response.status !== 204)
          throw new Error(`commands answered ${response.status}: ${JSON.stringify(response.body)}`);
      });
    const raw = (ms: number) =>
      runFor(ms, concurrency, (worker, i) =>
        rawPublishCycle(ctx, projectId, documents[concurrency + worker]!, `Title ${i}`),
      );
    await ours(durationMs / 5);
    await raw(durationMs / 5);
    const runs = { ours: [] as Measured[], raw: [] as Measured[] };
    for (let round = 0; round < rounds; round++) {
      runs.ours.push(await measured(ctx, () => ours(durationMs)));
      runs.raw.push(await measured(ctx, () => raw(durationMs)));
    }
    for (const side of ['ours', 'raw'] as const) {
      fact(`publish cycles, ${side}: CPU per cycle, bench process`, cpuMedian(runs[side], 'node'), 'µs');
      fact(`publish cycles, ${side}: CPU per cycle, Postgres`, cpuMedian(runs[side], 'postgres'), 'µs');
    }
    return [
      pairedRate(
        `publish cycles via PATCH commands (concurrency ${concurrency})`,
        runs.ours.map((run) => run.rate),
        runs.raw.map((run) => run.rate),
        'cycles/s',
      ),
    ];
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await ctx.close();
  }
}

interface Measured {
  rate: number;
  /** CPU ms per cycle. */
  node: number;
  postgres: number;
}

/** The median of the runs' CPU per cycle, in µs. */
const cpuMedian = (runs: Measured[], of: 'node' | 'postgres') => median(runs.map((run) => run[of])) * 1000;

/** A run with the CPU it cost this process and the database's Postgres backends, per cycle. */
async function measured(
  ctx: AppContext,
  run: () => Promise<{ cycles: number; seconds: number }>,
): Promise<Measured> {
  const before = { node: process.cpuUsage(), postgres: await backendCpuMs(ctx) };
  const { cycles, seconds } = await run();
  const node = process.cpuUsage(before.node);
  const after = await backendCpuMs(ctx);
  let postgres = 0;
  for (const [pid, ms] of after) postgres += ms - (before.postgres.get(pid) ?? 0);
  return {
    rate: cycles / seconds,
    node: (node.user + node.system) / 1000 / cycles,
    postgres: postgres / cycles,
  };
}

/** CPU ms so far of each Postgres backend connected to the bench's database (pg-boss's included). */
async function backendCpuMs(ctx: AppContext): Promise<Map<number, number>> {
  const backends = await ctx.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
  );
  const cpu = new Map<number, number>();
  for (const { pid } of backends.rows) {
    const ms = await cpuMs(pid).catch(() => undefined); // a backend gone meanwhile
    if (ms !== undefined) cpu.set(pid, ms);
  }
  return cpu;
}

const commandsOf = (title: string) => [
  { operation: 'setMetadataProperty', propertyName: 'title', value: title },
  { operation: 'publish' },
];

const benchType = {
  handle: 'regular',
  documentType: 'article',
  metadata: [{ handle: 'title', type: 'string' }],
};

async function insertDocument(ctx: AppContext, projectId: number, channelId: number): Promise<number> {
  const result = await ctx.pool.query<{ id: number }>(
    `INSERT INTO documents (project_id, channel_id, document_type, content_type, metadata, content)
     VALUES ($1, $2, 'article', 'regular', '{"title":"Bench"}', '[{"id":"doc-1","component":"p","content":{"text":"x"}}]')
     RETURNING id`,
    [projectId, channelId],
  );
  return result.rows[0]!.id;
}

/** Runs `cycle` in `concurrency` loops for `durationMs` and answers the cycles completed and the time taken. */
async function runFor(
  durationMs: number,
  concurrency: number,
  cycle: (worker: number, iteration: number) => Promise<void>,
): Promise<{ cycles: number; seconds: number }> {
  const started = performance.now();
  const deadline = started + durationMs;
  let completed = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() < deadline; i += 1) {
        await cycle(worker, i);
        completed += 1;
      }
    }),
  );
  return { cycles: completed, seconds: (performance.now() - started) / 1000 };
}

/** The writes of one "set title + publish" request, as plain SQL in one transaction. */
async function rawPublishCycle(
  ctx: AppContext,
  projectId: number,
  documentId: number,
  title: string,
): Promise<void> {
  await withTransaction(ctx.pool, async (tx) => {
    const row = await tx.query<{ channel_id: number; latest_publication_id: number | null; version: number }>(
      `SELECT channel_id, latest_publication_id, version FROM documents WHERE project_id = $1 AND id = $2
       FOR UPDATE`,
      [projectId, documentId],
    );
    await tx.query(
      `UPDATE documents SET metadata = jsonb_set(metadata, '{title}', to_jsonb($3::text)), version = version + 1,
         updated_at = now() WHERE project_id = $1 AND id = $2`,
      [projectId, documentId, title],
    );
    await tx.query(
      `INSERT INTO document_command_transactions (project_id, document_id, version_before, version_after, commands)
       VALUES ($1, $2, $3, $3 + 1, $4)`,
      [projectId, documentId, row.rows[0]!.version, JSON.stringify(commandsOf(title))],
    );
    const publication = await tx.query<{ id: number }>(
      `INSERT INTO publications (project_id, document_id, document_version, content_type, document_type, metadata, content, updated_at)
       SELECT project_id, id, version, content_type, document_type, metadata, content, updated_at FROM documents
       WHERE project_id = $1 AND id = $2 RETURNING id`,
      [projectId, documentId],
    );
    await tx.query(
      `UPDATE documents SET latest_publication_id = $3, published_version = version,
         first_publication_date = coalesce(first_publication_date, now()), last_publication_date = now(),
         index_version = index_version + 1 WHERE project_id = $1 AND id = $2`,
      [projectId, documentId, publication.rows[0]!.id],
    );
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('publication_events'), $1)`, [projectId]);
    await tx.query(
      `INSERT INTO publication_events (project_id, channel_id, document_id, document_type, content_type, event_type,
         publication_id) VALUES ($1, $2, $3, 'article', 'regular', $4, $5)`,
      [
        projectId,
        row.rows[0]!.channel_id,
        documentId,
        row.rows[0]!.latest_publication_id === null ? 'publish' : 'update',
        publication.rows[0]!.id,
      ],
    );
    await tx.query(
      `DELETE FROM document_references WHERE source_document_id = $1 AND source_kind = 'publication'`,
      [documentId],
    );
    await tx.query(
      `DELETE FROM document_references WHERE source_document_id = $1 AND source_kind = 'draft'`,
      [documentId],
    );
    await enqueue(ctx.boss, tx, 'indexDocument', { projectId, documentId });
  });
}

if (require.main === module) {
  publishCyclesBench().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
