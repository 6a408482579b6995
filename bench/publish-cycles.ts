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
import { callApi, rate, type BenchRow } from './bench';

export interface PublishCyclesOptions {
  concurrency?: number;
  durationMs?: number;
}

/**
 * Publish cycles per second at concurrency 8: each worker edits its own document's title and publishes it
 * in one `PATCH documents/{id}/commands` request (auth, validation, row lock, draft update, publication,
 * event, references, index job). "raw" does the same writes as hand-written SQL transactions on the same
 * pool, without HTTP or any of the service's code in between.
 */
export async function publishCyclesBench(options: PublishCyclesOptions = {}): Promise<BenchRow[]> {
  const concurrency = options.concurrency ?? 8;
  const durationMs = options.durationMs ?? 5_000;
  const ctx = await createContext(loadConfig());
  const app = createApp(ctx);
  const server = await listen(app, 0, '127.0.0.1');
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
    const ours = await runFor(durationMs, concurrency, async (worker, i) => {
      const response = await callApi(`${url}/api/2026-03/documents/${documents[worker]!}/commands`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          commands: [
            { operation: 'setMetadataProperty', propertyName: 'title', value: `Title ${i}` },
            { operation: 'publish' },
          ],
        }),
      });
      if (response.status !== 204)
        throw new Error(`commands answered ${response.status}: ${JSON.stringify(response.body)}`);
    });
    const raw = await runFor(durationMs, concurrency, (worker, i) =>
      rawPublishCycle(ctx, projectId, documents[concurrency + worker]!, `Title ${i}`),
    );
    return [rate(`publish cycles via PATCH commands (concurrency ${concurrency})`, ours, raw, 'cycles/s')];
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await ctx.close();
  }
}

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

/** Runs `cycle` in `concurrency` loops for `durationMs` and answers completed cycles per second. */
async function runFor(
  durationMs: number,
  concurrency: number,
  cycle: (worker: number, iteration: number) => Promise<void>,
): Promise<number> {
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
  return completed / ((performance.now() - started) / 1000);
}

/** The writes of one "set title + publish" request, as plain SQL in one transaction. */
async function rawPublishCycle(
  ctx: AppContext,
  projectId: number,
  documentId: number,
  title: string,
): Promise<void> {
  await withTransaction(ctx.pool, async (tx) => {
    const row = await tx.query<{ channel_id: number; latest_publication_id: number | null }>(
      'SELECT channel_id, latest_publication_id FROM documents WHERE project_id = $1 AND id = $2 FOR UPDATE',
      [projectId, documentId],
    );
    await tx.query(
      `UPDATE documents SET metadata = jsonb_set(metadata, '{title}', to_jsonb($3::text)), version = version + 1,
         updated_at = now() WHERE project_id = $1 AND id = $2`,
      [projectId, documentId, title],
    );
    const publication = await tx.query<{ id: number }>(
      `INSERT INTO publications (project_id, document_id, document_version, content_type, document_type, metadata, content)
       SELECT project_id, id, version, content_type, document_type, metadata, content FROM documents
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
