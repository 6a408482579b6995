import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { importDocumentsNow } from '../../src/commands/import-documents';
import { searchDocumentQueries } from '../../src/db/queries/search-documents';
import { ApiVersion } from '../../src/domain/api-versions';
import { ImportRequestSchema } from '../../src/domain/import-request';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually, type ApiResponse } from '../helpers/http';

jest.setTimeout(60_000);

/**
 * Writes that lock several documents at once, racing each other: whichever Postgres would pick as the victim
 * of a deadlock, the client sees the answer it would get one after the other, never a 500.
 */
describe('writes holding several documents at once', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  /** A project whose config can be applied, and the config with one more indexed field (re-indexes all). */
  async function reindexingProject(on: TestApp = app) {
    const project = await createTestProject(on.ctx);
    const { token } = await tokenFor(on.ctx, project.projectId, [
      'public-api:config:read',
      'public-api:config:write',
    ]);
    const admin = apiClient(on.url, token);
    const config = (await admin.get('projectConfig')).body;
    config.contentTypes[0].metadata.push({ handle: 'desk', type: 'string', index: true });
    return { projectId: project.projectId, admin, config };
  }

  /** Backends of this database that wait on a lock and run a statement containing `text`. */
  const waitingOn = async (text: string) =>
    (
      await app.ctx.pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
           AND query LIKE '%' || $1 || '%'`,
        [text],
      )
    ).rowCount! > 0;
  /** The statement of an apply that locks the project's published documents to re-index them. */
  const APPLY_LOCKING_DOCUMENTS = 'FOR NO KEY UPDATE) locked';

  /** A transaction of its own on one connection, for the test to hold locks in. */
  async function holder(): Promise<{ client: pg.PoolClient; pid: number }> {
    const client = await app.ctx.pool.connect();
    await client.query('BEGIN');
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    return { client, pid };
  }
  const blockedBy = async (pid: number) =>
    (await app.ctx.pool.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]))
      .rowCount! > 0;

  it('when an import batch names one document by external id and another by documentId while a re-indexing config is applied, then both complete', async () => {
    // The batch locked its documents found by external id, then (another statement) those named by id; the
    // apply locks every published document in id order. Holding the higher id and waiting for the lower one
    // while the apply held the lower and waited for the higher, one of them was aborted as a deadlock: the
    // apply answered 500 after a second. (An aborted transaction now runs again, so the answers alone no
    // longer tell: the batch is also found holding nothing while it waits for the lower document.)
    const { projectId, admin, config } = await reindexingProject();
    const systemName = `mixed-${randomBytes(3).toString('hex')}`;
    const { documentId: byId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: 'Named by id' },
    });
    const first = await importDocumentsNow(
      app.ctx,
      projectId,
      ApiVersion.latest(),
      ImportRequestSchema.parse({
        systemName,
        documents: [
          { id: 'x', contentType: 'regular', title: 'By external id', flags: { autoPublish: true } },
        ],
      }),
    );
    const byExternalId = first.logs[0]!.document_id!;
    expect(byExternalId).toBeGreaterThan(byId);

    // A document command on the lower document (FOR NO KEY UPDATE, the lock the batch and the apply take)
    // holds both off it a moment: the batch first, then the apply.
    const writer = await holder();
    let importing: ReturnType<typeof importDocumentsNow> | undefined;
    let applying: Promise<ApiResponse> | undefined;
    let applied = false;
    try {
      await writer.client.query('SELECT 1 FROM documents WHERE id = $1 FOR NO KEY UPDATE', [byId]);
      importing = importDocumentsNow(
        app.ctx,
        projectId,
        ApiVersion.latest(),
        ImportRequestSchema.parse({
          systemName,
          documents: [
            { id: 'x', contentType: 'regular', title: 'Again by external id' },
            { id: 'by-id', documentId: byId, contentType: 'regular', title: 'Again by id' },
          ],
        }),
      );
      await eventually(() => blockedBy(writer.pid), 10_000, 10);
      // Waiting for the lower document, the batch holds no other: the higher one is free to lock.
      const free = await app.ctx.pool.query<{ id: number }>(
        'SELECT id FROM documents WHERE id = $1 FOR UPDATE SKIP LOCKED',
        [byExternalId],
      );
      expect(free.rows.map((row) => row.id)).toEqual([byExternalId]);
      applying = admin.post('projectConfig', { plan: false, projectConfig: config });
      const settled = () => void (applied = true);
      void applying.then(settled, settled);
      await eventually(async () => applied || (await waitingOn(APPLY_LOCKING_DOCUMENTS)), 10_000, 10);
      await writer.client.query('COMMIT');
    } finally {
      writer.client.release();
    }
    expect(await applying).toMatchObject({ status: 200, body: { ok: true, revisionNumber: 2 } });
    const imported = await importing;
    expect(imported.logs).toEqual([
      { state: 'imported', external_id: 'x', document_id: byExternalId },
      { state: 'imported', external_id: 'by-id', document_id: byId },
    ]);
  });

  it('when a row referencing a document is being inserted while an import batch rewrites the document, then the batch does not wait for it', async () => {
    // The batch locked its documents FOR UPDATE, which waits for every transaction holding one FOR KEY SHARE
    // (what inserting a row that references it takes: the indexer's saved search document, a delivery
    // status, a list item) and holds them off in turn. The batch neither deletes its documents nor changes
    // their keys: FOR NO KEY UPDATE, what its UPDATEs take anyway, serialises it with the other writers.
    const { projectId } = await createTestProject(app.ctx);
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: 'Indexed meanwhile' },
    });
    const indexer = await holder();
    try {
      await searchDocumentQueries(indexer.client).save([
        {
          key: { projectId, documentId },
          indexVersion: 1,
          projectRevision: 1,
          builderVersion: 1,
          body: '{}',
        },
      ]);
      let done = false;
      const importing = importDocumentsNow(
        app.ctx,
        projectId,
        ApiVersion.latest(),
        ImportRequestSchema.parse({
          systemName: `keyshare-${randomBytes(3).toString('hex')}`,
          documents: [{ id: 'by-id', documentId, contentType: 'regular', title: 'Imported meanwhile' }],
        }),
      );
      const settled = () => void (done = true);
      void importing.then(settled, settled);
      const outcome = await eventually(
        async () => (done ? 'finished' : (await blockedBy(indexer.pid)) && 'waited for the insert'),
        10_000,
        10,
      );
      expect(outcome).toBe('finished');
      expect((await importing).logs).toEqual([
        { state: 'imported', external_id: 'by-id', document_id: documentId },
      ]);
    } finally {
      await indexer.client.query('ROLLBACK');
      indexer.client.release();
    }
  });

  it('when Postgres aborts an apply as the victim of a deadlock, then the apply runs again and answers 200', async () => {
    // Any writer that takes the project's documents in another order than the apply does deadlocks with it;
    // the test's transaction is such a writer. The aborted transaction rolled back whole: it is run again.
    // Postgres looks for a deadlock once per wait, deadlock_timeout after it began, and aborts the waiter whose
    // look finds it. The apply waits first, so with the default 1 s its look found no cycle yet when the
    // writer's second lock came later than that (a loaded machine, 1 run in 7), and the writer's look then
    // aborted the test's own transaction. Here the apply's connections look after 5 s, the writer's after 60 s.
    const lateLook = new URL(process.env.DATABASE_URL ?? '');
    lateLook.searchParams.set('options', '-c deadlock_timeout=5s');
    const applier = await startTestApp({ env: { DATABASE_URL: lateLook.toString() } });
    try {
      await abortedApplyRunsAgain(applier);
    } finally {
      await applier.close();
    }
  });

  async function abortedApplyRunsAgain(applier: TestApp) {
    const { projectId, admin, config } = await reindexingProject(applier);
    const ids: number[] = [];
    for (const title of ['Lower', 'Higher']) {
      ids.push((await createPublishedDocument(app.ctx, projectId, { metadata: { title } })).documentId);
    }
    const [lower, higher] = ids as [number, number];
    const versions = async () =>
      (
        await app.ctx.pool.query<{ v: string }>(
          'SELECT index_version AS v FROM documents WHERE id = ANY($1) ORDER BY id',
          [ids],
        )
      ).rows.map((row) => Number(row.v));
    const before = await versions();

    const writer = await holder();
    let applying: Promise<ApiResponse> | undefined;
    try {
      await writer.client.query("SET LOCAL deadlock_timeout = '60s'");
      await writer.client.query('SELECT 1 FROM documents WHERE id = $1 FOR UPDATE', [higher]);
      applying = admin.post('projectConfig', { plan: false, projectConfig: config });
      // The apply holds the lower document and waits for the higher one; the writer then waits for the lower.
      await eventually(() => blockedBy(writer.pid), 10_000, 10);
      await writer.client.query('SELECT 1 FROM documents WHERE id = $1 FOR UPDATE', [lower]);
      await writer.client.query('COMMIT');
    } catch (error) {
      await writer.client.query('ROLLBACK');
      throw error;
    } finally {
      writer.client.release();
    }
    expect(await applying).toMatchObject({ status: 200, body: { ok: true, revisionNumber: 2 } });
    // Once: the aborted attempt's changes are gone with it.
    expect(await versions()).toEqual(before.map((version) => version + 1));
  }
});
