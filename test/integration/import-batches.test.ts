import { randomBytes, randomUUID } from 'node:crypto';
import { ImportOutage, importDocumentsNow, runImportJob } from '../../src/commands/import-documents';
import { createPool } from '../../src/db/pool';
import { importJobQueries } from '../../src/db/queries/import-jobs';
import { ApiVersion } from '../../src/domain/api-versions';
import { ImportRequestSchema, type ImportLog } from '../../src/domain/import-request';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { commitWhenBlocked } from '../helpers/held-transaction';
import { apiClient, eventually, type ApiResponse } from '../helpers/http';
import { startTcpProxy } from '../helpers/tcp-proxy';

jest.setTimeout(60_000);

const paragraph = (text: string) => ({
  id: 'doc-p1',
  component: 'paragraph',
  identifier: 'test-design.paragraph',
  content: { text },
});

interface Log {
  state: string;
  external_id: string;
  document_id: number | null;
  reason?: string;
}

/** The batched import engine: one transaction per batch, yet every document's outcome reported alone. */
describe('import in batches', () => {
  let app: TestApp;
  let projectId: number;
  let channelId: number;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    app = await startTestApp({ workers: true });
    ({ projectId, channelId } = await createTestProject(app.ctx));
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId)).token);
  });
  afterAll(async () => {
    await app.close();
  });

  async function importAndWait(body: unknown): Promise<ApiResponse> {
    const started = await api.post('import/documents', body);
    expect(started.status).toBe(200);
    return eventually(async () => {
      const status = await api.get(`import/documents/status?id=${started.body.id}`);
      return status.body?.finished ? status : undefined;
    }, 30_000);
  }

  const rowsOf = async (systemName: string) =>
    (
      await app.ctx.pool.query<{ externalId: string; id: number; published: boolean; version: number }>(
        `SELECT external_id AS "externalId", id, latest_publication_id IS NOT NULL AS published, version
         FROM documents WHERE project_id = $1 AND system_name = $2 ORDER BY id`,
        [projectId, systemName],
      )
    ).rows;

  it('when one document of a batch is refused by Postgres, then it alone fails with the reason, the others land, and nothing of it is written', async () => {
    const systemName = `wire-${randomBytes(3).toString('hex')}`;
    // What Postgres refuses, the import's validation refuses first as far as it can (a year-0 date was the
    // example here until it did): a trigger on this import's one document stands in for a refusal nobody
    // foresaw.
    await app.ctx.pool.query(`
      CREATE FUNCTION refuse_bad_document() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'document % refused by the test''s trigger', NEW.external_id USING ERRCODE = '22008';
      END $$;
      CREATE TRIGGER refuse_bad_document BEFORE INSERT OR UPDATE ON documents FOR EACH ROW
        WHEN (NEW.system_name = '${systemName}' AND NEW.external_id = 'bad')
        EXECUTE FUNCTION refuse_bad_document();
    `);
    const done = await importAndWait({
      systemName,
      documents: ['a', 'b', 'bad', 'c'].map((id) => ({
        id,
        contentType: 'regular',
        title: `Title ${id}`,
        metadata: { related: { $ref: 'documents', references: [{ id: '77' }] } },
        content: [paragraph(`Text ${id}`)],
        flags: { autoPublish: true },
        publishControl: { firstPublicationDate: '2020-01-01T00:00:00Z' },
      })),
    }).finally(() =>
      app.ctx.pool.query(
        'DROP TRIGGER refuse_bad_document ON documents; DROP FUNCTION refuse_bad_document()',
      ),
    );
    expect(done.body.state).toBe('success');
    expect(done.body.logs).toEqual([
      { state: 'published', external_id: 'a', document_id: expect.any(Number) },
      { state: 'published', external_id: 'b', document_id: expect.any(Number) },
      {
        state: 'failed',
        external_id: 'bad',
        document_id: null,
        reason: expect.stringContaining("document bad refused by the test's trigger"),
      },
      { state: 'published', external_id: 'c', document_id: expect.any(Number) },
    ]);
    const rows = await rowsOf(systemName);
    expect(rows.map((row) => row.externalId)).toEqual(['a', 'b', 'c']);
    expect(rows.every((row) => row.published)).toBe(true);
    const ids = rows.map((row) => row.id);
    expect(done.body.logs.flatMap((log: Log) => (log.document_id === null ? [] : [log.document_id]))).toEqual(
      ids,
    );
    // Each good document: one publication, one publish event (in document order), draft and publication
    // references; the refused one left no row anywhere (it never got an id, and no table holds its title).
    const counts = await app.ctx.pool.query(
      `SELECT
         (SELECT count(*)::int FROM publications WHERE document_id = ANY($1)) AS publications,
         (SELECT array_agg(document_id::int ORDER BY id) FROM publication_events
           WHERE document_id = ANY($1) AND event_type = 'publish') AS events,
         (SELECT count(*)::int FROM document_references WHERE source_document_id = ANY($1)) AS refs,
         (SELECT count(*)::int FROM publications WHERE project_id = $2 AND metadata->>'title' = 'Title bad') AS bad`,
      [ids, projectId],
    );
    expect(counts.rows[0]).toEqual({ publications: 3, events: ids, refs: 6, bad: 0 });
    const dates = await api.get(`documents/${ids[0]}/latestPublication`);
    expect(dates.body.systemdata.firstPublicationDate).toBe('2020-01-01T00:00:00.000Z');
  });

  /** A document `externalId` of `systemName` that another import's batch inserted and has not committed yet. */
  const insertedByAnotherImport = (systemName: string, externalId: string) => ({
    text: `INSERT INTO documents (project_id, channel_id, document_type, content_type, system_name, external_id,
             metadata)
           VALUES ($1, $2, 'article', 'regular', $3, $4, '{"title": "by the other import"}')`,
    values: [projectId, channelId, systemName, externalId],
  });

  it('when another import creates the same new external id while a batch is written, then the batch updates that document', async () => {
    const systemName = `race-${randomBytes(3).toString('hex')}`;
    const outcome = await commitWhenBlocked(app.ctx.pool, insertedByAnotherImport(systemName, 'x'), () =>
      importDocumentsNow(
        app.ctx,
        projectId,
        ApiVersion.latest(),
        ImportRequestSchema.parse({
          systemName,
          documents: ['x', 'y'].map((id) => ({ id, contentType: 'regular', title: `Title ${id}` })),
        }),
      ),
    );
    expect(outcome.status).toBe('fulfilled');
    const job = (outcome as PromiseFulfilledResult<Awaited<ReturnType<typeof importDocumentsNow>>>).value;
    expect(job.logs).toEqual([
      { state: 'imported', external_id: 'x', document_id: expect.any(Number) },
      { state: 'imported', external_id: 'y', document_id: expect.any(Number) },
    ]);
    expect(job.state).toBe('success');
    const rows = await rowsOf(systemName);
    expect(rows.map(({ externalId, id, version }) => ({ externalId, id, version }))).toEqual([
      { externalId: 'x', id: job.logs[0]!.document_id, version: 2 },
      { externalId: 'y', id: job.logs[1]!.document_id, version: 1 },
    ]);
  });

  it('when another import creates the same new external id while its batch is written one document at a time, then that document is updated, not failed with Postgres’s unique violation', async () => {
    const systemName = `race1-${randomBytes(3).toString('hex')}`;
    // A document Postgres refuses sends the batch to one transaction per document; the other import's
    // insert of 'x' is then waited for by the one-document write of 'x' (the batch failed before it got there).
    await app.ctx.pool.query(`
      CREATE FUNCTION refuse_raced_document() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'document % refused by the test''s trigger', NEW.external_id USING ERRCODE = '22008';
      END $$;
      CREATE TRIGGER refuse_raced_document BEFORE INSERT OR UPDATE ON documents FOR EACH ROW
        WHEN (NEW.system_name = '${systemName}' AND NEW.external_id = 'bad')
        EXECUTE FUNCTION refuse_raced_document();
    `);
    const outcome = await commitWhenBlocked(app.ctx.pool, insertedByAnotherImport(systemName, 'x'), () =>
      importDocumentsNow(
        app.ctx,
        projectId,
        ApiVersion.latest(),
        ImportRequestSchema.parse({
          systemName,
          documents: ['bad', 'x'].map((id) => ({ id, contentType: 'regular', title: `Title ${id}` })),
        }),
      ),
    ).finally(() =>
      app.ctx.pool.query(
        'DROP TRIGGER refuse_raced_document ON documents; DROP FUNCTION refuse_raced_document()',
      ),
    );
    expect(outcome.status).toBe('fulfilled');
    const job = (outcome as PromiseFulfilledResult<Awaited<ReturnType<typeof importDocumentsNow>>>).value;
    expect(job.logs).toEqual([
      {
        state: 'failed',
        external_id: 'bad',
        document_id: null,
        reason: expect.stringContaining("document bad refused by the test's trigger"),
      },
      { state: 'imported', external_id: 'x', document_id: expect.any(Number) },
    ]);
    const rows = await rowsOf(systemName);
    expect(rows.map(({ externalId, id, version }) => ({ externalId, id, version }))).toEqual([
      { externalId: 'x', id: job.logs[1]!.document_id, version: 2 },
    ]);
    const title = await app.ctx.pool.query(
      `SELECT metadata->>'title' AS title FROM documents WHERE id = $1`,
      [rows[0]!.id],
    );
    expect(title.rows).toEqual([{ title: 'Title x' }]);
  });

  it('when an import spans several batches with autoPublish, then each document gets its index job and becomes searchable', async () => {
    const systemName = `archive-${randomBytes(3).toString('hex')}`;
    const term = `w${randomBytes(5).toString('hex')}`;
    const documents = Array.from({ length: 23 }, (_, i) => ({
      id: `doc-${i}`,
      contentType: 'regular',
      title: `Archive ${term} ${i}`,
      content: [paragraph(`Body ${i}`)],
      flags: { autoPublish: true },
    }));
    const job = await importDocumentsNow(
      app.ctx,
      projectId,
      ApiVersion.latest(),
      ImportRequestSchema.parse({ systemName, documents }),
      { batchSize: 5 },
    );
    expect(job.state).toBe('success');
    expect(job.logs.map((log) => log.state)).toEqual(documents.map(() => 'published'));
    const ids = job.logs.map((log) => log.document_id);
    const read = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const found = await eventually(async () => {
      const response = await read.get(`publications/search?search=${term}&fields=id&limit=50`);
      return response.body?.results?.length === documents.length ? response : undefined;
    }, 20_000);
    expect(found.body.results.map((item: { documentId: number }) => item.documentId).sort()).toEqual(
      [...ids].sort(),
    );
  });

  it('when batches run two at a time and a document comes back in later batches, then its writes still apply in file order', async () => {
    const systemName = `order-${randomBytes(3).toString('hex')}`;
    const titles = ['a1', 'b', 'c', 'd', 'a2', 'e', 'f', 'a3', 'g'];
    const job = await importDocumentsNow(
      app.ctx,
      projectId,
      ApiVersion.latest(),
      ImportRequestSchema.parse({
        systemName,
        documents: titles.map((title) => ({ id: title.slice(0, 1), contentType: 'regular', title })),
      }),
      { batchSize: 2, concurrency: 2 },
    );
    expect(job.logs.map((log) => [log.state, log.external_id])).toEqual(
      titles.map((title) => ['imported', title.slice(0, 1)]),
    );
    const row = await app.ctx.pool.query(
      `SELECT version, metadata->>'title' AS title FROM documents
       WHERE project_id = $1 AND system_name = $2 AND external_id = 'a'`,
      [projectId, systemName],
    );
    expect(row.rows).toEqual([{ version: 3, title: 'a3' }]);
  });

  it('when a long import saves its progress while batches are in flight, then every document still gets its log', async () => {
    const systemName = `long-${randomBytes(3).toString('hex')}`;
    const documents = Array.from({ length: 1000 }, (_, i) => ({ id: `l${i}`, contentType: 'regular' }));
    const progress: number[] = [];
    const job = await importDocumentsNow(
      app.ctx,
      projectId,
      ApiVersion.latest(),
      ImportRequestSchema.parse({ systemName, documents }),
      { batchSize: 25, concurrency: 2, onProgress: (done) => progress.push(done) },
    );
    expect(job.logs.map((log) => log.external_id)).toEqual(documents.map((document) => document.id));
    expect(job.logs.every((log) => log.state === 'imported')).toBe(true);
    expect(progress.at(-1)).toBe(1000);
    expect((await rowsOf(systemName)).length).toBe(1000);
  });

  it('when the run is stopped (the CLI on Ctrl-C), then the batches written stay and the job ends failed, saying so', async () => {
    // The CLI killed by Ctrl-C left its job 'started' for good: import/documents/status said it still ran.
    const systemName = `stop-${randomBytes(3).toString('hex')}`;
    const documents = Array.from({ length: 100 }, (_, i) => ({ id: `s${i}`, contentType: 'regular' }));
    const stop = new AbortController();
    const job = await importDocumentsNow(
      app.ctx,
      projectId,
      ApiVersion.latest(),
      ImportRequestSchema.parse({ systemName, documents }),
      { batchSize: 10, concurrency: 1, signal: stop.signal, onProgress: () => stop.abort() },
    );
    expect(job.state).toBe('failed');
    // The first batch, then the line that ends the job.
    expect(job.logs.slice(0, -1).map((log) => [log.state, log.external_id])).toEqual(
      documents.slice(0, 10).map((document) => ['imported', document.id]),
    );
    const reason =
      'The import job failed: interrupted after 10 of 100 documents; what was written stays, the rest was not ' +
      'imported (import the file again: documents are matched by external id)';
    expect(job.logs.at(-1)).toEqual({ state: 'failed', external_id: '', document_id: null, reason });
    expect((await rowsOf(systemName)).map((row) => row.externalId)).toEqual(
      documents.slice(0, 10).map((document) => document.id),
    );
    const status = await api.get(`import/documents/status?id=${job.id}`);
    expect(status.body).toMatchObject({ finished: true, state: 'failed', id: job.id });
    expect(status.body.logs.at(-1)).toEqual({ state: 'failed', external_id: '', document_id: null, reason });
  });

  it('when a long import saves its logs in steps, then a status reader always sees the first logs in order', async () => {
    const systemName = `steps-${randomBytes(3).toString('hex')}`;
    const documents = Array.from({ length: 1000 }, (_, i) => ({ id: `s${i}`, contentType: 'regular' }));
    const seen: Promise<{ state: string; logs: Log[] }>[] = [];
    const job = await importDocumentsNow(
      app.ctx,
      projectId,
      ApiVersion.latest(),
      ImportRequestSchema.parse({ systemName, documents }),
      {
        batchSize: 10,
        concurrency: 2,
        onProgress: () => {
          // What GET import/documents/status reads, while the import goes on.
          seen.push(
            app.ctx.pool
              .query<{ state: string; logs: Log[] }>(
                'SELECT state, logs FROM import_jobs WHERE project_id = $1 AND system_name = $2',
                [projectId, systemName],
              )
              .then((result) => result.rows[0]!),
          );
        },
      },
    );
    const rows = await Promise.all(seen);
    expect(job.logs).toHaveLength(1000);
    for (const row of rows) expect(row.logs).toEqual(job.logs.slice(0, row.logs.length));
    // Saved in steps (after 500, 625, 781 and 976 documents): readers saw some of them.
    expect(rows.some((row) => row.logs.length >= 500 && row.logs.length < 1000)).toBe(true);
  });

  it('when the logs are saved in steps, then appended entries follow the saved ones, and a first save replaces what an earlier run left', async () => {
    const jobs = importJobQueries(app.ctx.pool);
    const id = randomUUID();
    await jobs.insert({ id, projectId, systemName: 'steps', request: {}, apiVersion: '2026-03' });
    const log = (n: number): ImportLog => ({ state: 'imported', external_id: `e${n}`, document_id: n });
    await jobs.saveLogs(id, [log(1), log(2)]);
    await jobs.saveLogs(id, [log(3)], { append: true });
    expect((await jobs.findByIdAnyProject(id))!.logs).toEqual([log(1), log(2), log(3)]);
    // A re-run of a job that crashed starts its log again.
    await jobs.saveLogs(id, [log(1)]);
    expect((await jobs.findByIdAnyProject(id))!.logs).toEqual([log(1)]);
  });

  it('when a job has finished, then a second run of it still going neither cuts its logs nor finishes it again', async () => {
    const jobs = importJobQueries(app.ctx.pool);
    const id = randomUUID();
    await jobs.insert({ id, projectId, systemName: 'twice', request: {}, apiVersion: '2026-03' });
    const log = (n: number): ImportLog => ({ state: 'imported', external_id: `e${n}`, document_id: n });
    const all = [log(1), log(2), log(3)];
    expect(await jobs.finish(id, 'success', all)).toBe(true);
    // The other run saves its progress and ends: nothing of the finished job changes.
    await jobs.saveLogs(id, [log(1)]);
    await jobs.saveLogs(id, [log(2)], { append: true });
    expect(await jobs.finish(id, 'failed', [log(9)])).toBe(false);
    const job = (await jobs.findByIdAnyProject(id))!;
    expect(job).toMatchObject({ state: 'success', logs: all });
  });

  it('when one request names a document twice, and once by documentId, then each write applies in order and the version counts them', async () => {
    const systemName = `dup-${randomBytes(3).toString('hex')}`;
    const first = await importAndWait({
      systemName,
      documents: [{ id: 'x', contentType: 'regular', title: 'one' }],
    });
    const documentId = first.body.logs[0].document_id as number;
    const done = await importAndWait({
      systemName,
      documents: [
        { id: 'x', contentType: 'regular', title: 'two' },
        { id: 'y', contentType: 'regular', title: 'other' },
        { id: 'x', contentType: 'regular', title: 'three', flags: { autoPublish: true } },
        { id: 'x-by-id', documentId, contentType: 'regular', title: 'four' },
        { id: 'missing', documentId: 999_999_999, contentType: 'regular', title: 'nope' },
      ],
    });
    expect(done.body.logs).toEqual([
      { state: 'imported', external_id: 'x', document_id: documentId },
      { state: 'imported', external_id: 'y', document_id: expect.any(Number) },
      { state: 'published', external_id: 'x', document_id: documentId },
      { state: 'imported', external_id: 'x-by-id', document_id: documentId },
      {
        state: 'failed',
        external_id: 'missing',
        document_id: null,
        reason: 'document 999999999 does not exist in this project',
      },
    ]);
    const row = await app.ctx.pool.query(
      `SELECT d.version, d.published_version AS "publishedVersion", d.metadata->>'title' AS title,
         p.metadata->>'title' AS "publishedTitle"
       FROM documents d JOIN publications p ON p.id = d.latest_publication_id WHERE d.id = $1`,
      [documentId],
    );
    expect(row.rows[0]).toEqual({ version: 4, publishedVersion: 3, title: 'four', publishedTitle: 'three' });
  });

  it('when one batch names the same document by external id and by documentId, then it is written one document at a time and both apply', async () => {
    const systemName = `same-${randomBytes(3).toString('hex')}`;
    const first = await importAndWait({
      systemName,
      documents: [{ id: 's', contentType: 'regular', title: 'one' }],
    });
    const documentId = first.body.logs[0].document_id as number;
    const done = await importAndWait({
      systemName,
      documents: [
        { id: 'by-id', documentId, contentType: 'regular', title: 'two' },
        { id: 's', contentType: 'regular', title: 'three' },
      ],
    });
    expect(done.body.logs).toEqual([
      { state: 'imported', external_id: 'by-id', document_id: documentId },
      { state: 'imported', external_id: 's', document_id: documentId },
    ]);
    expect(await rowsOf(systemName)).toEqual([
      { externalId: 's', id: documentId, published: false, version: 3 },
    ]);
  });

  it('when a published document is re-imported with unpublish next to new ones, then it alone is unpublished with its event and no publication references', async () => {
    const systemName = `down-${randomBytes(3).toString('hex')}`;
    const published = await importAndWait({
      systemName,
      documents: [
        {
          id: 'p',
          contentType: 'regular',
          title: 'up',
          metadata: { related: { $ref: 'documents', references: [{ id: '5' }] } },
          flags: { autoPublish: true },
        },
      ],
    });
    const documentId = published.body.logs[0].document_id as number;
    const publicationId = (
      await app.ctx.pool.query('SELECT latest_publication_id AS id FROM documents WHERE id = $1', [
        documentId,
      ])
    ).rows[0].id as number;
    const done = await importAndWait({
      systemName,
      documents: [
        { id: 'n', contentType: 'regular', title: 'new', flags: { unpublish: true } },
        {
          id: 'p',
          contentType: 'regular',
          title: 'down',
          metadata: { related: { $ref: 'documents', references: [{ id: '5' }] } },
          flags: { unpublish: true },
        },
      ],
    });
    expect(done.body.logs.map((log: Log) => log.state)).toEqual(['imported', 'imported']);
    const events = await app.ctx.pool.query(
      `SELECT document_id AS "documentId", event_type AS "eventType", publication_id AS "publicationId"
       FROM publication_events WHERE document_id = ANY($1) ORDER BY id`,
      [done.body.logs.map((log: Log) => log.document_id)],
    );
    expect(events.rows).toEqual([
      { documentId, eventType: 'publish', publicationId },
      { documentId, eventType: 'unpublish', publicationId },
    ]);
    const refs = await app.ctx.pool.query(
      `SELECT source_kind FROM document_references WHERE source_document_id = $1 ORDER BY source_kind`,
      [documentId],
    );
    expect(refs.rows).toEqual([{ source_kind: 'draft' }]);
    expect((await api.get(`documents/${documentId}/latestPublication`)).status).toBe(404);
  });
  it('when a published document is imported again unchanged with autoPublish (a migration run again to resume), then it keeps its publication, event and lastPublicationDate; a changed one is published anew', async () => {
    const systemName = `again-${randomBytes(3).toString('hex')}`;
    const document = (id: string, text: string) => ({
      id,
      contentType: 'regular',
      title: `title ${id}`,
      metadata: { related: { $ref: 'documents', references: [{ id: '5' }] } },
      content: [paragraph(text)],
      flags: { autoPublish: true },
    });
    const first = await importAndWait({
      systemName,
      documents: [document('same', 'kept'), document('changed', 'before')],
    });
    expect(first.body.logs.map((log: Log) => log.state)).toEqual(['published', 'published']);
    const ids = first.body.logs.map((log: Log) => log.document_id as number);
    const live = async () =>
      (
        await app.ctx.pool.query(
          `SELECT d.id, d.latest_publication_id AS "publicationId", d.last_publication_date AS "lastPublicationDate",
             (SELECT count(*)::int FROM publications p WHERE p.document_id = d.id) AS publications,
             (SELECT count(*)::int FROM publication_events e WHERE e.document_id = d.id) AS events
           FROM documents d WHERE d.id = ANY($1) ORDER BY d.id`,
          [ids],
        )
      ).rows;
    const before = await live();

    const again = await importAndWait({
      systemName,
      documents: [document('same', 'kept'), document('changed', 'after')],
    });
    expect(again.body.state).toBe('success');
    expect(again.body.logs).toEqual([
      { state: 'published', external_id: 'same', document_id: ids[0] },
      { state: 'published', external_id: 'changed', document_id: ids[1] },
    ]);
    const [same, changed] = await live();
    expect(same).toEqual(before[0]);
    expect(changed.publications).toBe(2);
    expect(changed.events).toBe(2);
    expect(changed.publicationId).not.toBe(before[1].publicationId);
    const served = await api.get(`documents/${ids[0]}/latestPublication`);
    expect(served.status).toBe(200);
    expect(served.body.systemdata).toMatchObject({ documentId: ids[0] });
  });
  it('when Postgres goes away mid-job, then the run blames no document, leaves the job started for pg-boss to retry, and the retry finishes it publishing each document once', async () => {
    // Before, every document after the outage was logged failed ('connect ECONNREFUSED ...'), one connection
    // attempt each, and a retry published the documents written before a second time.
    const systemName = `outage-${randomBytes(3).toString('hex')}`;
    const total = 600;
    const request = ImportRequestSchema.parse({
      systemName,
      documents: Array.from({ length: total }, (_, i) => ({
        id: `o${i}`,
        contentType: 'regular',
        flags: { autoPublish: true },
      })),
    });
    const id = randomUUID();
    // As POST import/documents stores it, without the queue entry (this app's workers would run it).
    await importJobQueries(app.ctx.pool).insert({
      id,
      projectId,
      systemName,
      request,
      apiVersion: ApiVersion.latest().label,
    });
    const target = new URL(process.env.DATABASE_URL ?? '');
    const proxy = await startTcpProxy(`http://${target.hostname}:${target.port || 5432}`);
    const proxied = new URL(target.toString());
    proxied.host = new URL(proxy.url).host;
    const pool = createPool(proxied.toString(), 4);
    let cut = false;
    try {
      const run = runImportJob({ pool, boss: app.ctx.boss }, id, {
        batchSize: 100,
        concurrency: 1,
        onProgress: (done) => {
          if (done > 0 && !cut) {
            cut = true;
            void proxy.down('refuse');
          }
        },
      });
      await expect(run).rejects.toBeInstanceOf(ImportOutage);
    } finally {
      await pool.end().catch(() => undefined);
      await proxy.close();
    }
    expect(cut).toBe(true);
    const stopped = await importJobQueries(app.ctx.pool).findByIdAnyProject(id);
    expect(stopped?.state).toBe('started');
    expect((stopped?.logs ?? []).filter((log: ImportLog) => log.state === 'failed')).toEqual([]);
    const written = (await rowsOf(systemName)).length;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(total);

    await runImportJob(app.ctx, id);
    const done = await api.get(`import/documents/status?id=${id}`);
    expect(done.body.state).toBe('success');
    expect(done.body.logs.map((log: Log) => log.state)).toEqual(Array(total).fill('published'));
    const publications = await app.ctx.pool.query(
      `SELECT count(*)::int AS n FROM publications p JOIN documents d ON d.id = p.document_id
       WHERE d.project_id = $1 AND d.system_name = $2`,
      [projectId, systemName],
    );
    expect(publications.rows[0].n).toBe(total);
  });
});
