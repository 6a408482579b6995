import { Writable } from 'node:stream';
import pino from 'pino';
import { createProject } from '../../src/commands/create-project';
import { enrichDocument, EnrichmentFailure } from '../../src/commands/enrich-document';
import { documentQueries } from '../../src/db/queries/documents';
import type { ProjectConfig } from '../../src/domain/project-config';
import { QUEUES } from '../../src/jobs/queues';
import { reEnrichDocumentHandler } from '../../workers/re-enrich-document';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { startFakeService, type FakeService } from '../helpers/fake-service';
import { buildProjectConfig, createTestProject, TEST_DESIGN, tokenFor } from '../helpers/factories';
import { apiClient, envelope, eventually } from '../helpers/http';

const ENTITY = { type: 'person', label: 'Ada Lovelace', id: 'Q7259', score: 0.93 };

describe('POST enrichment/re-enrich', () => {
  let app: TestApp;
  let service: FakeService;
  let project: { projectId: number; channelId: number; handle: string };
  let api: ReturnType<typeof apiClient>;
  /** Reads and commands of the project, for checking what a client would see. */
  let editor: ReturnType<typeof apiClient>;

  /** A project whose enrichment calls the fake service, with an indexed labels field to search by. */
  async function enrichedProject(enrichment: Partial<NonNullable<ProjectConfig['enrichment']>> = {}) {
    const config = buildProjectConfig({
      enrichment: { enabled: true, url: service.url, labelsProperty: 'entityLabels', ...enrichment },
    });
    config.contentTypes[0]!.metadata.push({ handle: 'entityLabels', type: 'string', index: true });
    return createProject(app.ctx.pool, { config, designs: [TEST_DESIGN] });
  }

  const load = async (id: number) => (await documentQueries(app.ctx.pool).findById(project.projectId, id))!;
  const commandCount = async (id: number) =>
    Number(
      (
        await app.ctx.pool.query<{ n: string }>(
          'SELECT count(*) AS n FROM document_command_transactions WHERE document_id = $1',
          [id],
        )
      ).rows[0]!.n,
    );
  const requestsFor = (id: number) =>
    service.received.filter((request) => (request.body as { documentId?: number }).documentId === id);

  beforeAll(async () => {
    // The fake service listens on loopback, which only an installation that allows it may call.
    app = await startTestApp({ workers: true, env: { ENRICHMENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    service = await startFakeService();
    project = await enrichedProject();
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, ['enrichment'])).token);
    editor = apiClient(
      app.url,
      (
        await tokenFor(app.ctx, project.projectId, [
          'public-api:read',
          'public-api:write',
          'public-api:drafts:read',
        ])
      ).token,
    );
  });
  afterEach(() => service.answer(() => ({ json: { entities: [] } })));
  afterAll(async () => {
    await app.close();
    await service.close();
  });

  describe('the request', () => {
    it('when no token is sent, then 401; without the enrichment scope, then 403', async () => {
      expect((await apiClient(app.url).post('enrichment/re-enrich', { doc_ids: [1] })).status).toBe(401);
      const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:write']);
      const forbidden = await apiClient(app.url, token).post('enrichment/re-enrich', { doc_ids: [1] });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toEqual(
        envelope(403, 'Forbidden', { access_token: 'The request requires higher privileges' }),
      );
    });

    it('when the body is not JSON, then 415', async () => {
      const response = await api.post('enrichment/re-enrich', 'doc_ids=1', { 'content-type': 'text/plain' });
      expect(response.status).toBe(415);
      expect(response.body).toEqual(
        envelope(415, 'Unsupported Media Type', { name: 'UnsupportedMediaType' }),
      );
    });

    it('when doc_ids is missing, not a list, holds something neither a number nor a string or the body has other keys, then 400 naming each path', async () => {
      expect((await api.post('enrichment/re-enrich', {})).body.error_details).toEqual({
        name: 'ValidationError',
        doc_ids: 'is required',
      });
      expect((await api.post('enrichment/re-enrich', { doc_ids: '1' })).body.error_details).toEqual({
        name: 'ValidationError',
        doc_ids: 'must be an array',
      });
      const response = await api.post('enrichment/re-enrich', {
        doc_ids: [1, 'x', null, true, { id: 1 }, [2], '12'],
        extra: true,
      });
      expect(response.status).toBe(400);
      const notAnId = 'must be a document id: a number or a string';
      expect(response.body).toEqual(
        envelope(400, 'Bad Request', {
          name: 'ValidationError',
          'doc_ids.2': notAnId,
          'doc_ids.3': notAnId,
          'doc_ids.4': notAnId,
          'doc_ids.5': notAnId,
          extra: 'is not allowed',
        }),
      );
      const tooMany = await api.post('enrichment/re-enrich', {
        doc_ids: Array.from({ length: 1001 }, () => 1),
      });
      expect(tooMany.body.error_details).toEqual({
        name: 'ValidationError',
        doc_ids: 'must have at most 1000 items',
      });
    });

    it('when the project has no enrichment enabled, then 400 ConfigurationError naming the project, and no job', async () => {
      const plain = await createTestProject(app.ctx);
      const doc = await createDraftDocument(app.ctx, plain);
      const { token } = await tokenFor(app.ctx, plain.projectId, ['enrichment']);
      const response = await apiClient(app.url, token).post('enrichment/re-enrich', { doc_ids: [doc.id] });
      expect(response.status).toBe(400);
      expect(response.body).toEqual(
        envelope(400, 'Bad Request', {
          name: 'ConfigurationError',
          message: `Enrichment is not enabled for project '${plain.handle}' (projectId=${plain.projectId})`,
        }),
      );
      const disabled = await createTestProject(app.ctx, {
        config: { enrichment: { enabled: false, url: service.url } },
      });
      const { token: other } = await tokenFor(app.ctx, disabled.projectId, ['enrichment']);
      const off = await apiClient(app.url, other).post('enrichment/re-enrich', { doc_ids: [1] });
      expect(off.body.error_details).toMatchObject({ name: 'ConfigurationError' });
      const jobs = await app.ctx.pool.query(
        'SELECT 1 FROM pgboss.job WHERE name = $1 AND singleton_key = $2',
        [QUEUES.reEnrichDocument.name, `${plain.projectId}:${doc.id}`],
      );
      expect(jobs.rowCount).toBe(0);
    });
  });

  describe('the enrichment', () => {
    it('when doc_ids holds numbers or strings no document can have, then {} and they are skipped (api-spec §4.16) while the document named beside them is re-enriched', async () => {
      const doc = await createDraftDocument(app.ctx, {
        ...project,
        metadata: { title: 'Difference engines' },
      });
      service.answer(() => ({ json: { entities: [ENTITY] } }));

      const response = await api.post('enrichment/re-enrich', {
        doc_ids: ['x', '', 2.5, 0, -3, '012', ' 12', '1e3', '9007199254740993', 2 ** 60, String(doc.id)],
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({});

      await eventually(async () => (await load(doc.id)).version === doc.version + 1, 20_000);
      const draft = await editor.get(`documents/${doc.id}/latestDraft`);
      expect(draft.body.metadata).toMatchObject({ title: 'Difference engines', entities: [ENTITY] });
      expect(requestsFor(doc.id)).toHaveLength(1);
    });

    it('when a doc_ids string holds an unpaired surrogate or a NUL, or a number is beyond a double, then it is skipped like any id no document can have', async () => {
      const doc = await createDraftDocument(app.ctx, {
        ...project,
        metadata: { title: 'Analytical engines' },
      });
      service.answer(() => ({ json: { entities: [ENTITY] } }));

      // Raw JSON: the escapes reach the server as written (a lone \ud800 is valid JSON text).
      const response = await api.post(
        'enrichment/re-enrich',
        `{"doc_ids":["\\ud800","${doc.id}\\udc00","\\udc00${doc.id}","${doc.id}\\u0000",1e400,"${doc.id}"]}`,
      );
      expect(response.body).toEqual({});
      expect(response.status).toBe(200);

      await eventually(async () => (await load(doc.id)).version === doc.version + 1, 20_000);
      const draft = await editor.get(`documents/${doc.id}/latestDraft`);
      expect(draft.body.metadata).toMatchObject({ title: 'Analytical engines', entities: [ENTITY] });
      expect(requestsFor(doc.id)).toHaveLength(1);
      // A key is still judged as in every body: it is not an id.
      const badKey = await api.post('enrichment/re-enrich', '{"doc_ids":[],"\\ud800":1}');
      expect(badKey.status).toBe(400);
    });

    it('when ids are valid, then {} at once and each document of the project gets the entities as a new version; other ids are skipped', async () => {
      const doc = await createDraftDocument(app.ctx, {
        ...project,
        metadata: { title: 'Analytical engines' },
      });
      const other = await createTestProject(app.ctx);
      const foreign = await createDraftDocument(app.ctx, other);
      service.answer(() => ({ json: { entities: [ENTITY], extra: 'ignored' } }));

      const response = await api.post('enrichment/re-enrich', {
        doc_ids: [String(doc.id), 987654321, foreign.id],
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({});

      await eventually(async () => (await load(doc.id)).version === doc.version + 1, 20_000);
      const draft = await editor.get(`documents/${doc.id}/latestDraft`);
      expect(draft.body.metadata).toEqual({
        title: 'Analytical engines',
        entities: [ENTITY],
        entityLabels: ['Ada Lovelace'],
      });
      expect(await commandCount(doc.id)).toBe(1);
      // What the service was sent: the document's words and what names it.
      expect(requestsFor(doc.id)[0]).toMatchObject({
        method: 'POST',
        path: '/enrich',
        headers: expect.objectContaining({ 'content-type': 'application/json' }),
        body: {
          projectId: project.projectId,
          projectHandle: project.handle,
          documentId: doc.id,
          contentType: 'regular',
          title: 'Analytical engines',
          text: 'Hello\nFirst\nLink\nStyled',
        },
      });
      expect(requestsFor(foreign.id)).toEqual([]);
      expect(requestsFor(987654321)).toEqual([]);
      expect((await documentQueries(app.ctx.pool).findById(other.projectId, foreign.id))!.version).toBe(
        foreign.version,
      );
    });

    it('when the answer is what the document holds already, then nothing is written', async () => {
      const doc = await createDraftDocument(app.ctx, {
        ...project,
        metadata: { title: 'Same', entities: [ENTITY], entityLabels: ['Ada Lovelace'] },
      });
      service.answer(() => ({ json: { entities: [ENTITY] } }));
      const outcome = await enrichDocument(
        app.ctx,
        { projectId: project.projectId, documentId: doc.id },
        { now: new Date() },
      );
      expect(outcome).toEqual({ outcome: 'unchanged', entities: 1 });
      expect((await load(doc.id)).version).toBe(doc.version);
      expect(await commandCount(doc.id)).toBe(0);
    });

    it('when the document is live and unchanged, then it is published again with the entities, keeping its lastPublicationDate', async () => {
      const doc = await createPublishedDraft(app.ctx, { ...project, metadata: { title: 'Live' } });
      const before = await editor.get(`documents/${doc.id}/latestPublication`);
      service.answer(() => ({ json: { entities: [ENTITY] } }));
      const outcome = await enrichDocument(
        app.ctx,
        { projectId: project.projectId, documentId: doc.id },
        { now: new Date() },
      );
      expect(outcome).toEqual({ outcome: 'enriched', entities: 1, republished: true });

      const after = await editor.get(`documents/${doc.id}/latestPublication`);
      expect(after.body.metadata.entities).toEqual([ENTITY]);
      expect(after.body.systemdata.publicationId).not.toBe(before.body.systemdata.publicationId);
      expect(after.body.systemdata.lastPublicationDate).toBe(before.body.systemdata.lastPublicationDate);
      const row = await load(doc.id);
      expect(row.publishedVersion).toBe(row.version);
      const events = await editor.get(`publicationEvents?id.gt=0&limit=1000`);
      const ofDoc = (events.body.results as { documentId: number; eventType: string }[]).filter(
        (event) => event.documentId === doc.id,
      );
      expect(ofDoc.map((event) => event.eventType)).toEqual(['publish', 'update']);
    });

    it('when the live document has unpublished changes, then only the draft gets the entities', async () => {
      const doc = await createPublishedDraft(app.ctx, { ...project, metadata: { title: 'Live' } });
      const edited = await editor.patch(`documents/${doc.id}/commands`, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'Work in progress' }],
      });
      expect(edited.status).toBe(204);
      service.answer(() => ({ json: { entities: [ENTITY] } }));
      const outcome = await enrichDocument(
        app.ctx,
        { projectId: project.projectId, documentId: doc.id },
        { now: new Date() },
      );
      expect(outcome).toEqual({ outcome: 'enriched', entities: 1, republished: false });
      const live = await editor.get(`documents/${doc.id}/latestPublication`);
      expect(live.body.metadata).toEqual({ title: 'Live' });
      const draft = await editor.get(`documents/${doc.id}/latestDraft`);
      expect(draft.body.metadata).toMatchObject({ title: 'Work in progress', entities: [ENTITY] });
    });

    it('when the same document is asked for while its job waits, then one job is queued', async () => {
      const env = await isolatedEnv('enrichment');
      // No workers on this database: the first job keeps waiting.
      const quiet = await startTestApp({ env });
      try {
        const config = buildProjectConfig({ enrichment: { enabled: true, url: service.url } });
        const own = await createProject(quiet.ctx.pool, { config, designs: [TEST_DESIGN] });
        const doc = await createDraftDocument(quiet.ctx, own);
        const client = apiClient(quiet.url, (await tokenFor(quiet.ctx, own.projectId, ['enrichment'])).token);
        expect((await client.post('enrichment/re-enrich', { doc_ids: [doc.id, doc.id] })).status).toBe(200);
        expect((await client.post('enrichment/re-enrich', { doc_ids: [String(doc.id)] })).status).toBe(200);
        const jobs = await quiet.ctx.pool.query<{ state: string }>(
          'SELECT state FROM pgboss.job WHERE name = $1 AND singleton_key = $2',
          [QUEUES.reEnrichDocument.name, `${own.projectId}:${doc.id}`],
        );
        expect(jobs.rows).toEqual([{ state: 'created' }]);
      } finally {
        await quiet.close();
      }
    });

    it('when a request names the most ids it may (1000), then {} within a couple of seconds and one job per document, also when sent again', async () => {
      // One pg-boss send per id, each its own round trip in the request's transaction: 9 s for 1000 ids on
      // the test machine, holding a connection all along, and as long again for ids whose jobs were queued.
      const env = await isolatedEnv('enrichment-many');
      const quiet = await startTestApp({ env });
      try {
        const config = buildProjectConfig({ enrichment: { enabled: true, url: service.url } });
        const own = await createProject(quiet.ctx.pool, { config, designs: [TEST_DESIGN] });
        const ids = (
          await quiet.ctx.pool.query<{ id: number }>(
            `INSERT INTO documents (project_id, channel_id, document_type, content_type, design_name,
               design_version, metadata, content)
             SELECT $1, $2, 'article', 'regular', 'test-design', '1.0.0', '{}', '[]'
             FROM generate_series(1, 999) RETURNING id`,
            [own.projectId, own.channelId],
          )
        ).rows.map((row) => row.id);
        const client = apiClient(quiet.url, (await tokenFor(quiet.ctx, own.projectId, ['enrichment'])).token);
        const docIds = [...ids, 987654321];
        for (let round = 0; round < 2; round += 1) {
          const started = Date.now();
          const response = await client.post('enrichment/re-enrich', { doc_ids: docIds });
          expect(response).toMatchObject({ status: 200, body: {} });
          expect(Date.now() - started).toBeLessThan(2500);
        }
        const jobs = await quiet.ctx.pool.query<{ singleton_key: string; n: string }>(
          `SELECT singleton_key, count(*) AS n FROM pgboss.job WHERE name = $1 GROUP BY singleton_key`,
          [QUEUES.reEnrichDocument.name],
        );
        expect(jobs.rows.map((row) => row.singleton_key).sort()).toEqual(
          ids.map((id) => `${own.projectId}:${id}`).sort(),
        );
        expect(jobs.rows.every((row) => Number(row.n) === 1)).toBe(true);
        const job = await quiet.ctx.pool.query<{
          data: unknown;
          retry_limit: number;
          expire_seconds: number;
        }>(
          'SELECT data, retry_limit, expire_seconds FROM pgboss.job WHERE name = $1 AND singleton_key = $2',
          [QUEUES.reEnrichDocument.name, `${own.projectId}:${ids[0]}`],
        );
        expect(job.rows).toEqual([
          {
            data: { projectId: own.projectId, documentId: ids[0] },
            retry_limit: QUEUES.reEnrichDocument.options.retryLimit,
            expire_seconds: QUEUES.reEnrichDocument.options.expireInSeconds,
          },
        ]);
      } finally {
        await quiet.close();
      }
    });
  });

  describe('a slow, failing or confused service', () => {
    const attempt = (documentId: number) =>
      enrichDocument(app.ctx, { projectId: project.projectId, documentId }, { now: new Date() });

    it.each([
      ['answers 500', { status: 500, json: { error: 'down' } }, /answered HTTP 500 instead of 200/],
      ['redirects', { status: 302, raw: '' }, /answered HTTP 302/],
      ['answers something that is not JSON', { raw: '<html>oops' }, /answered something that is not JSON/],
      ['answers truncated JSON', { raw: '{"entities": [{"type"' }, /not JSON/],
      [
        'answers JSON of another shape',
        { json: { entities: [{ type: 'person' }, 'x'] } },
        /not an entity list: entities\.0\.label: .*; entities\.1: /,
      ],
      ['answers no entity list', { json: { items: [] } }, /not an entity list: entities: /],
      [
        'answers a NUL in a label',
        { json: { entities: [{ type: 'x', label: 'a\u0000b' }] } },
        /entities\.0\.label: must not contain the NUL/,
      ],
      [
        'answers more than a megabyte',
        { raw: `{"entities":[],"pad":"${'x'.repeat(1_100_000)}"}` },
        /more than 1048576 bytes/,
      ],
    ])(
      'when it %s, then the attempt fails saying so and the document is untouched',
      async (_what, reply, reason) => {
        const doc = await createDraftDocument(app.ctx, project);
        service.answer(() => reply);
        await expect(attempt(doc.id)).rejects.toThrow(reason);
        await expect(attempt(doc.id)).rejects.toBeInstanceOf(EnrichmentFailure);
        expect((await load(doc.id)).version).toBe(doc.version);
        expect(await commandCount(doc.id)).toBe(0);
      },
    );

    it('when it answers later than the project timeout, then the attempt fails at the timeout', async () => {
      const slow = await enrichedProject({ timeoutMs: 300 });
      const doc = await createDraftDocument(app.ctx, slow);
      service.answer(() => ({ json: { entities: [ENTITY] }, delayMs: 3000 }));
      const started = Date.now();
      await expect(
        enrichDocument(app.ctx, { projectId: slow.projectId, documentId: doc.id }, { now: new Date() }),
      ).rejects.toThrow('the enrichment service did not answer within 300 ms');
      expect(Date.now() - started).toBeLessThan(2500);
      expect((await documentQueries(app.ctx.pool).findById(slow.projectId, doc.id))!.version).toBe(
        doc.version,
      );
    });

    it('when nothing listens at its URL, then the attempt fails saying it could not be reached', async () => {
      const gone = await enrichedProject({ url: 'http://127.0.0.1:9/enrich' });
      const doc = await createDraftDocument(app.ctx, gone);
      await expect(
        enrichDocument(app.ctx, { projectId: gone.projectId, documentId: doc.id }, { now: new Date() }),
      ).rejects.toThrow(/could not be reached/);
    });

    it('when the service is on a loopback, private or link-local address and the installation does not allow it, then it is not called', async () => {
      // Any client with config:write could point enrichment at the installation's own network (a cloud metadata
      // service, an internal admin API) and have the worker POST to it, its answer written into documents.
      const strict = {
        ...app.ctx,
        config: { ...app.ctx.config, enrichment: { allowPrivateAddresses: false } },
      };
      const port = new URL(service.url).port;
      service.answer(() => ({ json: { entities: [ENTITY] } }));
      for (const [url, address] of [
        [service.url, '127.0.0.1'],
        [`http://localhost:${port}/enrich`, /127\.0\.0\.1|::1/],
        ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
        [`http://[::ffff:127.0.0.1]:${port}/enrich`, /::ffff:7f00:1|127\.0\.0\.1/],
      ] as const) {
        const internal = await enrichedProject({ url });
        const doc = await createDraftDocument(app.ctx, internal);
        const run = enrichDocument(
          strict,
          { projectId: internal.projectId, documentId: doc.id },
          { now: new Date() },
        );
        await expect(run).rejects.toBeInstanceOf(EnrichmentFailure);
        await expect(run).rejects.toThrow(
          /may not be called: .* is not a public address \(ENRICHMENT_ALLOW_PRIVATE_ADDRESSES\)/,
        );
        await expect(run).rejects.toThrow(address);
        expect((await documentQueries(app.ctx.pool).findById(internal.projectId, doc.id))!.version).toBe(
          doc.version,
        );
        expect(requestsFor(doc.id)).toEqual([]);
      }
    });

    it('when the document changes while the service works, then the attempt fails and the next one sends the new text', async () => {
      const doc = await createDraftDocument(app.ctx, { ...project, metadata: { title: 'Before' } });
      service.answer(() => ({ json: { entities: [ENTITY] }, delayMs: 300 }));
      const racing = attempt(doc.id);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await editor.patch(`documents/${doc.id}/commands`, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'After' }],
      });
      await expect(racing).rejects.toThrow(/changed while it was enriched/);
      expect((await load(doc.id)).metadata).toEqual({ title: 'After' });
      await attempt(doc.id);
      expect((requestsFor(doc.id).at(-1)!.body as { title: string }).title).toBe('After');
      expect((await load(doc.id)).metadata).toMatchObject({ title: 'After', entities: [ENTITY] });
    });

    it('when an attempt fails, then the worker logs why and that it will retry; after the last attempt, that it gives up', async () => {
      const doc = await createDraftDocument(app.ctx, project);
      service.answer(() => ({ status: 503 }));
      const lines: { level: number; msg: string; reason: string; attempt: number }[] = [];
      const logger = pino(
        { level: 'info' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(JSON.parse(chunk.toString('utf8')));
            done();
          },
        }),
      );
      const ctx = { ...app.ctx, logger };
      const data = { projectId: project.projectId, documentId: doc.id };
      const limit = QUEUES.reEnrichDocument.options.retryLimit;
      await expect(
        reEnrichDocumentHandler.handle(ctx, [{ id: 'first', data, retryCount: 0 }]),
      ).rejects.toThrow(/HTTP 503/);
      await expect(
        reEnrichDocumentHandler.handle(ctx, [{ id: 'last', data, retryCount: limit }]),
      ).rejects.toThrow(/HTTP 503/);
      expect(lines).toEqual([
        expect.objectContaining({
          level: 40,
          attempt: 1,
          msg: 'enrichment attempt failed; it will be retried',
          reason: 'the enrichment service answered HTTP 503 instead of 200',
        }),
        expect.objectContaining({
          level: 50,
          attempt: limit + 1,
          msg: 'enrichment given up after its last attempt; the document is left as it was',
          reason: 'the enrichment service answered HTTP 503 instead of 200',
        }),
      ]);
      expect((await load(doc.id)).version).toBe(doc.version);
    });

    it('when the service fails once, then pg-boss retries the job with backoff and the next attempt enriches', async () => {
      const doc = await createDraftDocument(app.ctx, project);
      let calls = 0;
      service.answer((request) => {
        if ((request.body as { documentId: number }).documentId !== doc.id) return { json: { entities: [] } };
        calls += 1;
        return calls === 1 ? { status: 502 } : { json: { entities: [ENTITY] } };
      });
      expect((await api.post('enrichment/re-enrich', { doc_ids: [doc.id] })).status).toBe(200);
      await eventually(async () => (await load(doc.id)).version === doc.version + 1, 30_000, 250);
      expect(calls).toBe(2);
      expect((await load(doc.id)).metadata).toMatchObject({ entities: [ENTITY] });
    });
  });

  it('end to end: when the service changes an entity and re-enrich runs, then the new metadata is searchable', async () => {
    const doc = await createDraftDocument(app.ctx, {
      ...project,
      metadata: { title: 'Engines of the mind' },
    });
    const published = await editor.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'publish' }],
    });
    expect(published.status).toBe(204);
    const label = (name: string) => `${name} ${doc.id}`;
    const searchBy = async (term: string) => {
      const filters = encodeURIComponent(JSON.stringify([{ key: 'metadata.entityLabels', term }]));
      const response = await editor.get(`publications/search?filters=${filters}&fields=id`);
      expect(response.status).toBe(200);
      return (response.body.results as { documentId: number }[]).map((hit) => hit.documentId);
    };

    service.answer(() => ({ json: { entities: [{ type: 'person', label: label('Ada Lovelace') }] } }));
    await api.post('enrichment/re-enrich', { doc_ids: [doc.id] });
    await eventually(async () => (await searchBy(label('Ada Lovelace'))).includes(doc.id), 30_000, 250);

    // The service's knowledge changes: the entity is now someone else.
    service.answer(() => ({ json: { entities: [{ type: 'person', label: label('Charles Babbage') }] } }));
    await api.post('enrichment/re-enrich', { doc_ids: [doc.id] });
    await eventually(async () => (await searchBy(label('Charles Babbage'))).includes(doc.id), 30_000, 250);
    expect(await searchBy(label('Ada Lovelace'))).toEqual([]);
    const live = await editor.get(`documents/${doc.id}/latestPublication`);
    expect(live.body.metadata.entities).toEqual([{ type: 'person', label: label('Charles Babbage') }]);
  });
});
