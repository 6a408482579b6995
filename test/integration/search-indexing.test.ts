import { randomBytes } from 'node:crypto';
import { publishDocument } from '../../src/commands/publish-document';
import { withTransaction } from '../../src/db/pool';
import { documentQueries } from '../../src/db/queries/documents';
import { indexRejectionQueries } from '../../src/db/queries/index-rejections';
import { indexSourceQueries } from '../../src/db/queries/index-sources';
import { SEARCH_DOCUMENT_VERSION, searchDocumentId } from '../../src/search/document-builder';
import { indexStatus, rebuildIndex, verifyIndex } from '../../src/search/index-manager';
import { ensurePublicationsIndex, rebuildingAlias } from '../../src/search/index-aliases';
import { publicationsIndex } from '../../src/search/index-names';
import { searchBytes } from '../../src/search/client';
import { bulkWrite, indexDocuments, operationsFor } from '../../src/search/indexer';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import {
  createPublishedDocument,
  indexNow,
  republishDocument,
  startIndexWorker,
  unpublish,
} from '../helpers/documents';
import { buildProjectConfig, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';
import { deleteCommittedWhileWaiting } from '../helpers/uncommitted-delete';

jest.setTimeout(30_000);

/**
 * This file rebuilds and verifies, so it gets a database and an alias of its own: other files' searches
 * never notice, and no other file's worker takes its index jobs into another index.
 */
describe('indexing: worker, versions, rebuild, verify', () => {
  let app: TestApp;
  let projectId: number;
  let api: ReturnType<typeof apiClient>;
  const word = () => `w${randomBytes(5).toString('hex')}`;
  const deps = () => ({ db: app.ctx.pool, search: app.ctx.search, index: app.ctx.index });

  beforeAll(async () => {
    app = await startTestApp({ env: await isolatedEnv('ix') });
    await startIndexWorker(app.ctx);
    // The index as a deployment has it: the timings below are the worker's, not the first index's creation
    // (0.1-1.2 s measured while another file rebuilds its index: the cluster applies index changes in turn).
    await ensurePublicationsIndex(app.ctx.search, app.ctx.index);
    projectId = (await createTestProject(app.ctx)).projectId;
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
  });

  afterAll(async () => {
    await app.close();
  });

  const found = async (term: string) => {
    const response = await api.get(`publications/search?search=${term}&fields=id&limit=100`);
    expect(response.status).toBe(200);
    return (response.body.results as { documentId: number }[]).map((item) => item.documentId);
  };

  it('when a document is published, then the worker makes it searchable within 2 s', async () => {
    const term = word();
    const started = Date.now();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Fresh ${term}` },
    });
    await eventually(async () => (await found(term)).includes(documentId), 2000, 50);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('when the API and a worker create the first index at once, then each can search it as soon as it returns', async () => {
    // The one that loses the creation race is told the index exists before its primary shard has started
    // (which Elasticsearch still calls yellow); a search then failed with no_shard_available (a 503).
    const outcomes: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      const fresh = publicationsIndex(`${app.ctx.index.alias}-first${round}`);
      const ensureThenSearch = async () => {
        await ensurePublicationsIndex(app.ctx.search, fresh);
        await searchBytes(app.ctx.search, fresh.alias, '{"query":{"match_all":{}}}');
        return 'searchable';
      };
      const settled = await Promise.allSettled([ensureThenSearch(), ensureThenSearch()]);
      outcomes.push(
        ...settled.map((item) => (item.status === 'fulfilled' ? item.value : String(item.reason))),
      );
      await app.ctx.search.indices.delete({ index: fresh.newPhysicalName(new Date(0)) });
    }
    expect(outcomes).toEqual(Array(10).fill('searchable'));
  });

  it('when a document is unpublished, then it disappears from search within 2 s', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Going ${term}` },
    });
    await eventually(async () => (await found(term)).includes(documentId), 2000, 50);
    await unpublish(app.ctx, projectId, documentId);
    await eventually(async () => (await found(term)).length === 0, 2000, 50);
  });

  it('when an embargo is set on or removed from a published document by commands, then the embargo filter follows within 2 s', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Held ${term}` },
    });
    const writer = apiClient(
      app.url,
      (await tokenFor(app.ctx, projectId, ['public-api:read', 'public-api:write'])).token,
    );
    const embargoed = async () => {
      const filters = encodeURIComponent(
        JSON.stringify({ key: 'publishControl.embargo.enforced', term: true }),
      );
      const response = await api.get(`publications/search?search=${term}&filters=${filters}&fields=id`);
      expect(response.status).toBe(200);
      return (response.body.results as { documentId: number }[]).map((item) => item.documentId);
    };
    await eventually(async () => (await found(term)).includes(documentId), 2000, 50);
    expect(await embargoed()).toEqual([]);

    const set = await writer.patch(`documents/${documentId}/commands`, {
      commands: [{ operation: 'setEmbargo', reason: 'court order' }],
    });
    expect(set.status).toBe(204);
    await eventually(async () => (await embargoed()).includes(documentId), 2000, 50);

    const removed = await writer.patch(`documents/${documentId}/commands`, {
      commands: [{ operation: 'removeEmbargo' }],
    });
    expect(removed.status).toBe(204);
    await eventually(async () => (await embargoed()).length === 0, 2000, 50);
  });

  it('when an applied config indexes a field or changes its type, then documents published before are searchable by it within 2 s', async () => {
    const project = await createTestProject(app.ctx);
    const { token } = await tokenFor(app.ctx, project.projectId, [
      'public-api:read',
      'public-api:config:read',
      'public-api:config:write',
    ]);
    const admin = apiClient(app.url, token);
    const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
      metadata: { title: 'Before the change', desk: 'sports', flag: 7 },
    });
    const filtered = async (filter: unknown) => {
      const filters = encodeURIComponent(JSON.stringify(filter));
      const response = await admin.get(`publications/search?filters=${filters}&fields=id`);
      expect(response.status).toBe(200);
      return (response.body.results as { documentId: number }[]).map((item) => item.documentId);
    };
    const byDesk = { key: 'metadata.desk', term: 'sports' };
    await eventually(async () => (await filtered({ key: 'metadata.flag', term: '7' })).includes(documentId));
    const indexVersion = async () =>
      (await app.ctx.pool.query('SELECT index_version FROM documents WHERE id = $1', [documentId])).rows[0]
        .index_version as number;
    const before = await indexVersion();

    // A change search documents do not show (the label) indexes nothing again.
    const config = (await admin.get('projectConfig')).body;
    config.settings.label = 'Renamed';
    expect(await admin.post('projectConfig', { plan: false, projectConfig: config })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    expect(await indexVersion()).toBe(before);

    const indexing = (await admin.get('projectConfig')).body;
    indexing.contentTypes[0].metadata.push({ handle: 'desk', type: 'string', index: true });
    indexing.contentTypes[0].metadata.find((field: { handle: string }) => field.handle === 'flag').type =
      'integer';
    expect(await admin.post('projectConfig', { plan: false, projectConfig: indexing })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    await eventually(async () => (await filtered(byDesk)).includes(documentId), 2000, 50);
    expect(await filtered({ key: 'metadata.flag', range: { gte: 7, lte: 7 } })).toEqual([documentId]);
  });

  it('when an applied config moves the homepage, then only the old and the new homepage are indexed again', async () => {
    const project = await createTestProject(app.ctx);
    const { token } = await tokenFor(app.ctx, project.projectId, [
      'public-api:config:read',
      'public-api:config:write',
    ]);
    const admin = apiClient(app.url, token);
    const ids: number[] = [];
    for (const title of ['Front', 'New front', 'Story']) {
      ids.push(
        (await createPublishedDocument(app.ctx, project.projectId, { metadata: { title } })).documentId,
      );
    }
    const [front, newFront, story] = ids as [number, number, number];
    const versions = async () =>
      Object.fromEntries(
        (
          await app.ctx.pool.query<{ id: number; index_version: number }>(
            'SELECT id, index_version FROM documents WHERE id = ANY($1) ORDER BY id',
            [ids],
          )
        ).rows.map((row) => [row.id, Number(row.index_version)]),
      );
    const homepages = async () => {
      await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
      const response = await app.ctx.search.search<{ documentId: number }>({
        index: app.ctx.index.alias,
        query: {
          bool: { filter: [{ term: { projectId: project.projectId } }, { term: { isHomepage: true } }] },
        },
      });
      return response.hits.hits.map((hit) => hit._source!.documentId);
    };
    const moveHomepage = async (documentId: number) => {
      const config = (await admin.get('projectConfig')).body;
      config.settings.homepageDocumentId = documentId;
      expect(await admin.post('projectConfig', { plan: false, projectConfig: config })).toMatchObject({
        status: 200,
        body: { ok: true },
      });
    };
    const before = await versions();

    await moveHomepage(front);
    await eventually(async () => (await homepages()).join() === `${front}`);
    await moveHomepage(newFront);
    await eventually(async () => (await homepages()).join() === `${newFront}`);
    expect(await versions()).toEqual({
      [front]: before[front]! + 2,
      [newFront]: before[newFront]! + 1,
      [story]: before[story],
    });
  });

  it('when a document is being published while a config that re-indexes it is applied, then both complete', async () => {
    const project = await createTestProject(app.ctx);
    const { token } = await tokenFor(app.ctx, project.projectId, [
      'public-api:config:read',
      'public-api:config:write',
    ]);
    const admin = apiClient(app.url, token);
    const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
      metadata: { title: 'Republished meanwhile', desk: 'arts' },
    });
    const indexing = (await admin.get('projectConfig')).body;
    indexing.contentTypes[0].metadata.push({ handle: 'desk', type: 'string', index: true });
    let applying: ReturnType<typeof admin.post> | undefined;
    // The publish holds the document and then writes rows that reference the project; the apply holds the
    // project and then re-indexes the document. Locking the project FOR UPDATE made that a deadlock.
    await withTransaction(app.ctx.pool, async (tx) => {
      const document = (await documentQueries(tx).findByIdForUpdate(project.projectId, documentId))!;
      applying = admin.post('projectConfig', { plan: false, projectConfig: indexing });
      await eventually(async () => {
        const waiting = await app.ctx.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
             AND query LIKE '%UPDATE documents%index_version%'`,
        );
        return (waiting.rowCount ?? 0) > 0;
      });
      await publishDocument(tx, app.ctx.boss, document, { now: new Date() });
    });
    expect(await applying).toMatchObject({ status: 200, body: { ok: true, revisionNumber: 2 } });
  });

  it('when a document is first published while a config that re-indexes every publication is applied, then it is indexed under the new config too', async () => {
    // The apply re-indexes the documents published when its statement began. One published after that, and
    // indexed by the worker before the apply committed, kept a search document built from the old config:
    // not found by the newly indexed field until it was published again.
    const project = await createTestProject(app.ctx);
    const { token } = await tokenFor(app.ctx, project.projectId, [
      'public-api:read',
      'public-api:config:read',
      'public-api:config:write',
    ]);
    const admin = apiClient(app.url, token);
    const term = word();
    const { documentId: held } = await createPublishedDocument(app.ctx, project.projectId, {
      metadata: { title: `Held ${term}`, desk: 'arts' },
    });
    const { documentId: late } = await createPublishedDocument(app.ctx, project.projectId, {
      metadata: { title: `Late ${term}`, desk: 'arts' },
    });
    await unpublish(app.ctx, project.projectId, late);
    const searched = async () => {
      const response = await admin.get(`publications/search?search=${term}&fields=id`);
      expect(response.status).toBe(200);
      return (response.body.results as { documentId: number }[]).map((item) => item.documentId).sort();
    };
    const byDesk = async () => {
      const filters = encodeURIComponent(JSON.stringify({ key: 'metadata.desk', term: 'arts' }));
      const response = await admin.get(`publications/search?filters=${filters}&search=${term}&fields=id`);
      expect(response.status).toBe(200);
      return (response.body.results as { documentId: number }[]).map((item) => item.documentId).sort();
    };
    await eventually(async () => (await searched()).join() === `${held}`);
    const indexing = (await admin.get('projectConfig')).body;
    indexing.contentTypes[0].metadata.push({ handle: 'desk', type: 'string', index: true });
    let applying: ReturnType<typeof admin.post> | undefined;
    await withTransaction(app.ctx.pool, async (tx) => {
      // The apply waits for the held document while the other one is published and indexed meanwhile.
      await documentQueries(tx).findByIdForUpdate(project.projectId, held);
      applying = admin.post('projectConfig', { plan: false, projectConfig: indexing });
      await eventually(async () => {
        const waiting = await app.ctx.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
             AND query LIKE '%UPDATE documents%index_version%'`,
        );
        return (waiting.rowCount ?? 0) > 0;
      });
      await republishDocument(app.ctx, project.projectId, late);
      // The worker takes its index job at once: it indexed it (under the config as it was) or waits for the
      // apply to commit.
      await eventually(async () => {
        if ((await searched()).join() === [held, late].sort().join()) return true;
        const waiting = await app.ctx.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
             AND pid <> pg_backend_pid() AND query LIKE '%FROM projects WHERE id = ANY%'`,
        );
        return (waiting.rowCount ?? 0) > 0;
      });
    });
    expect(await applying).toMatchObject({ status: 200, body: { ok: true, revisionNumber: 2 } });
    await eventually(async () => (await byDesk()).join() === [held, late].sort().join(), 5000, 50);
  });

  it('when an older state is written late, then the index keeps the newer one', async () => {
    const oldTerm = word();
    const newTerm = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Old ${oldTerm}` },
    });
    const key = { projectId, documentId };
    const [oldRow] = await indexSourceQueries(app.ctx.pool).findByKeys([key]);
    await republishDocument(app.ctx, projectId, documentId, { title: `New ${newTerm}` });
    await indexNow(app.ctx, projectId, [documentId]);
    // A late job that read Postgres before the republish writes the old state with the old version.
    const outcome = await bulkWrite(app.ctx.search, [app.ctx.index.alias], operationsFor([oldRow!], [key]));
    expect(outcome).toEqual({ written: 1, rejected: [], retryable: [] });
    await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
    expect(await found(newTerm)).toEqual([documentId]);
    expect(await found(oldTerm)).toEqual([]);
  });

  it('when a late index write arrives after an unpublish, then the document does not come back', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Ghost ${term}` },
    });
    const key = { projectId, documentId };
    const [publishedRow] = await indexSourceQueries(app.ctx.pool).findByKeys([key]);
    await unpublish(app.ctx, projectId, documentId);
    await indexNow(app.ctx, projectId, [documentId]);
    await bulkWrite(app.ctx.search, [app.ctx.index.alias], operationsFor([publishedRow!], [key]));
    // A duplicated job re-reads Postgres and deletes again.
    await indexDocuments(deps(), [key, key]);
    await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
    expect(await found(term)).toEqual([]);
  });

  it('when a category id or language is longer than a keyword can hold, then the document is searchable without it', async () => {
    // Lucene refuses a term over 32,766 bytes: the whole document was refused, and the publication never searchable.
    const term = word();
    const long = 'é'.repeat(16_384);
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Long ${term}`, category: { id: long }, language: { locale: long, groupId: long } },
    });
    const { documentId: short } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Short ${term}`, category: 'c'.repeat(8000) },
    });
    await indexNow(app.ctx, projectId, [documentId, short]);
    expect((await found(term)).sort()).toEqual([documentId, short].sort());
    const byCategory = await api.get(`publications/search?categories=${'c'.repeat(8000)}&fields=id`);
    expect(byCategory.body.results).toEqual([{ documentId: short, projectId }]);
  });

  it('when a date metadata value says midnight as 24:00 (ISO 8601), then it is filtered and sorted as the next day', async () => {
    // Real archives hold such values ("publishDate": "2018-03-07T24:00:00.000Z" in the vendor's magazine): the
    // field was left out of the search document, so a date filter missed the article and sortDate fell back
    // to the import's publication time, putting a 2018 article above every one published since.
    const config = buildProjectConfig();
    config.contentTypes[0]!.sortDateField = 'publishDate';
    const own = (await createTestProject(app.ctx, { config })).projectId;
    const ownApi = apiClient(app.url, (await tokenFor(app.ctx, own, ['public-api:read'])).token);
    const publish = async (title: string, publishDate: string) =>
      (await createPublishedDocument(app.ctx, own, { metadata: { title, publishDate } })).documentId;
    const before = await publish('The evening before', '2018-03-07T23:00:00.000Z');
    const midnight = await publish('Published at 24:00', '2018-03-07T24:00:00.000Z');
    const after = await publish('The morning after', '2018-03-08T06:00:00+02:00');
    const later = await publish('Later that year', '2018-09-01T24:00:00Z');
    await indexNow(app.ctx, own, [before, midnight, after, later]);
    const ids = async (query: string) => {
      const response = await ownApi.get(`publications/search?${query}&fields=id&limit=100`);
      expect(response.status).toBe(200);
      return (response.body.results as { documentId: number }[]).map((item) => item.documentId);
    };
    const onThe8th = { key: 'metadata.publishDate', range: { gte: '2018-03-08', lt: '2018-03-09' } };
    expect(await ids(`filters=${encodeURIComponent(JSON.stringify(onThe8th))}`)).toEqual([after, midnight]);
    expect(await ids('sort=-metadata.publishDate')).toEqual([later, after, midnight, before]);
    expect(await ids('sort=-sortDate')).toEqual([later, after, midnight, before]);
  });

  it('when one document of a batch is refused, then the others are written and only it is reported', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Good ${term}` },
    });
    const [row] = await indexSourceQueries(app.ctx.pool).findByKeys([{ projectId, documentId }]);
    const operations = operationsFor([row!], []);
    const badKey = { projectId, documentId: 999_999_001 };
    operations.push({
      kind: 'index',
      key: badKey,
      version: 1,
      projectRevision: 1,
      document: JSON.stringify({ documentId: 'not a number' }),
    });
    const outcome = await bulkWrite(app.ctx.search, [app.ctx.index.alias], operations);
    expect(outcome.rejected.map((item) => item.key)).toEqual([badKey]);
    expect(outcome.retryable).toEqual([]);
    await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
    expect(await found(term)).toEqual([documentId]);
  });

  it('when a batch is larger than one bulk request may be, then it goes out in several and every document is written', async () => {
    const term = word();
    const keys = [];
    for (let i = 0; i < 3; i += 1) {
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: `Split ${term} ${i}` },
      });
      keys.push({ projectId, documentId });
    }
    // The worker indexes them first, so the only bulk requests while watching are the ones below (their
    // equal versions make Elasticsearch answer 409, which counts as written).
    await eventually(async () => (await found(term)).length === 3, 3000, 50);
    const operations = operationsFor(await indexSourceQueries(app.ctx.pool).findByKeys(keys), keys);
    const requests = jest.spyOn(app.ctx.search.transport, 'request');
    try {
      const outcome = await bulkWrite(app.ctx.search, [app.ctx.index.alias], operations, {
        maxRequestBytes: operations[0]!.kind === 'index' ? operations[0]!.document.length : 1,
      });
      expect(outcome).toEqual({ written: 3, rejected: [], retryable: [] });
      const bulks = requests.mock.calls.filter(([params]) => params.path.endsWith('/_bulk'));
      expect(bulks).toHaveLength(3);
    } finally {
      requests.mockRestore();
    }
  });

  it('when the index is rebuilt while documents are published and searched, then searches keep answering and nothing is lost', async () => {
    const term = word();
    const before: number[] = [];
    for (let n = 0; n < 12; n += 1) {
      before.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `Rebuild ${term} ${n}` } }))
          .documentId,
      );
    }
    await eventually(async () => (await found(term)).length === 12, 3000, 50);
    const [oldIndex] = Object.keys(await app.ctx.search.indices.getAlias({ name: app.ctx.index.alias }));

    const during: number[] = [];
    let publishedMidway = false;
    const statuses: number[] = [];
    let searching = true;
    const searchLoop = (async () => {
      while (searching) {
        const response = await api.get(`publications/search?search=${term}&fields=id&limit=100`);
        statuses.push(response.status);
        expect(response.body.results.length).toBeGreaterThanOrEqual(12);
      }
    })();
    const result = await rebuildIndex(deps(), {
      batchSize: 5,
      onProgress: async ({ done }) => {
        if (done > 10 || publishedMidway) return;
        publishedMidway = true;
        // Published mid-rebuild: the worker must reach the new index through the rebuilding alias.
        expect(
          Object.keys(await app.ctx.search.indices.getAlias({ name: rebuildingAlias(app.ctx.index) })),
        ).toHaveLength(1);
        const { documentId } = await createPublishedDocument(app.ctx, projectId, {
          metadata: { title: `Rebuild ${term} late` },
        });
        during.push(documentId);
        await eventually(
          async () => {
            const hit = await app.ctx.search.get(
              { index: rebuildingAlias(app.ctx.index), id: searchDocumentId(projectId, documentId) },
              { ignore: [404] },
            );
            return hit.found;
          },
          3000,
          50,
        );
      },
    });
    searching = false;
    await searchLoop;

    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(result.previous).toEqual([oldIndex]);
    expect(Object.keys(await app.ctx.search.indices.getAlias({ name: app.ctx.index.alias }))).toEqual([
      result.index,
    ]);
    expect(await app.ctx.search.indices.exists({ index: oldIndex! })).toBe(false);
    expect(await app.ctx.search.indices.existsAlias({ name: rebuildingAlias(app.ctx.index) })).toBe(false);
    const settings = await app.ctx.search.indices.getSettings({ index: result.index });
    expect(settings[result.index]?.settings?.index?.refresh_interval).toBe('1s');
    await eventually(async () => (await found(term)).length === 13, 3000, 50);
    expect((await found(term)).sort((a, b) => a - b)).toEqual([...before, ...during].sort((a, b) => a - b));
  });

  describe('stored search documents (search_documents)', () => {
    const storedRow = async (documentId: number) =>
      (
        await app.ctx.pool.query<{ index_version: number; builder_version: number; body: string }>(
          'SELECT index_version, builder_version, body FROM search_documents WHERE document_id = $1',
          [documentId],
        )
      ).rows[0];

    it('when the worker indexes a document, then what it sent is stored with the current stamp; an unpublish forgets it', async () => {
      const term = word();
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: `Stored ${term}` },
      });
      await eventually(async () => (await found(term)).includes(documentId), 2000, 50);
      const row = await storedRow(documentId);
      expect(row?.builder_version).toBe(SEARCH_DOCUMENT_VERSION);
      const { rows } = await app.ctx.pool.query<{ index_version: number }>(
        'SELECT index_version FROM documents WHERE id = $1',
        [documentId],
      );
      expect(row?.index_version).toBe(rows[0]!.index_version);
      const indexed = await app.ctx.search.get<{ title: string }>({
        index: app.ctx.index.alias,
        id: searchDocumentId(projectId, documentId),
      });
      expect(JSON.parse(row!.body)).toEqual(indexed._source);

      await unpublish(app.ctx, projectId, documentId);
      await eventually(async () => !(await found(term)).includes(documentId), 2000, 50);
      await eventually(async () => (await storedRow(documentId)) === undefined, 2000, 50);
    });

    it('when a rebuild finds a stored document with a current stamp, then it sends that; a stale stamp is built again', async () => {
      const current = word();
      const stale = word();
      const a = await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: `Current ${current}` },
      });
      const b = await createPublishedDocument(app.ctx, projectId, { metadata: { title: `Stale ${stale}` } });
      await eventually(async () => (await found(current)).includes(a.documentId), 2000, 50);
      await eventually(async () => (await found(stale)).includes(b.documentId), 2000, 50);
      // Tamper with both stored texts; only a's stamp still says it is current.
      const marked = word();
      await app.ctx.pool.query(
        `UPDATE search_documents SET body = replace(body, $2, $3) WHERE document_id = ANY($1::bigint[])`,
        [[a.documentId, b.documentId], 'Current', marked],
      );
      await app.ctx.pool.query(
        `UPDATE search_documents SET body = replace(body, 'Stale', $2), builder_version = 0 WHERE document_id = $1`,
        [b.documentId, marked],
      );

      await rebuildIndex(deps());
      // a went out as stored (so the marker is what the index has); b was built again from its publication.
      expect(await found(marked)).toEqual([a.documentId]);
      expect(await found(stale)).toEqual([b.documentId]);
      const rebuilt = await storedRow(b.documentId);
      expect(rebuilt?.builder_version).toBe(SEARCH_DOCUMENT_VERSION);
      expect(rebuilt?.body).toContain(`Stale ${stale}`);
      // Put a right again for the tests that follow.
      await indexDocuments(deps(), [{ projectId, documentId: a.documentId }]);
    });

    it('when a document is deleted while the indexer stores what it built, then the rest of the batch is stored and the write does not fail', async () => {
      // The insert met the foreign key (23503): the whole job failed and was retried with every other
      // document of its batch, however often.
      const term = word();
      const gone = await createPublishedDocument(app.ctx, projectId, { metadata: { title: `Gone ${term}` } });
      const kept = await createPublishedDocument(app.ctx, projectId, { metadata: { title: `Kept ${term}` } });
      const keys = [gone, kept].map(({ documentId }) => ({ projectId, documentId }));
      // The worker's own jobs are done first; then the batch is one that stores both for the first time.
      await eventually(async () => (await found(term)).length === 2, 3000, 50);
      await eventually(
        async () =>
          (await storedRow(gone.documentId)) !== undefined &&
          (await storedRow(kept.documentId)) !== undefined,
        3000,
        50,
      );
      await app.ctx.pool.query('DELETE FROM search_documents WHERE document_id = ANY($1::bigint[])', [
        keys.map((key) => key.documentId),
      ]);

      // The indexer reads both before the delete commits, and stores after it.
      const outcome = await deleteCommittedWhileWaiting(
        app.ctx.pool,
        { text: 'DELETE FROM documents WHERE id = $1', values: [gone.documentId] },
        () => indexDocuments(deps(), keys),
      );
      expect(outcome.status === 'rejected' ? outcome.reason : undefined).toBeUndefined();
      expect(await storedRow(kept.documentId)).toMatchObject({ builder_version: SEARCH_DOCUMENT_VERSION });
      expect(await storedRow(gone.documentId)).toBeUndefined();

      // Nothing in the application deletes a document: one deleted in SQL leaves its index entry until an
      // index job for it (here, the next one) or `index verify --repair` removes it.
      await indexDocuments(deps(), [keys[0]!]);
      await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
      expect(await found(term)).toEqual([kept.documentId]);
    });

    it('when a document is deleted while a refusal of it is recorded, then the others are recorded and the write does not fail', async () => {
      const gone = await createPublishedDocument(app.ctx, projectId, { metadata: { title: word() } });
      const kept = await createPublishedDocument(app.ctx, projectId, { metadata: { title: word() } });
      // The worker's own jobs are done first, so only the write below waits for the delete.
      await eventually(
        async () =>
          (await storedRow(gone.documentId)) !== undefined &&
          (await storedRow(kept.documentId)) !== undefined,
        3000,
        50,
      );
      const refusal = (documentId: number) => ({
        key: { projectId, documentId },
        indexVersion: 1,
        reason: 'mapper_parsing_exception: for the test',
      });
      const recorded = async () =>
        (
          await app.ctx.pool.query<{ document_id: number }>(
            'SELECT document_id FROM index_rejections WHERE document_id = ANY($1::bigint[])',
            [[gone.documentId, kept.documentId]],
          )
        ).rows.map((row) => row.document_id);
      try {
        const outcome = await deleteCommittedWhileWaiting(
          app.ctx.pool,
          { text: 'DELETE FROM documents WHERE id = $1', values: [gone.documentId] },
          () =>
            indexRejectionQueries(app.ctx.pool).saveOutcome(
              [refusal(gone.documentId), refusal(kept.documentId)],
              [],
            ),
        );
        expect(outcome.status === 'rejected' ? outcome.reason : undefined).toBeUndefined();
        expect(await recorded()).toEqual([kept.documentId]);
      } finally {
        await app.ctx.pool.query('DELETE FROM index_rejections WHERE document_id = $1', [kept.documentId]);
        await indexDocuments(deps(), [{ projectId, documentId: gone.documentId }]);
      }
    });
  });

  it('when the index drifts from Postgres, then verify reports it and --repair fixes it', async () => {
    // Drift as a lost job leaves it: Postgres changes without the outbox, so no index job ever runs.
    const { documentId: missingId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: word() },
    });
    const { documentId: staleId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: word() },
    });
    // Its publication stays, but what its search document is made of changes (as an import's new dates or an
    // embargo change it) and the re-index is lost: the index answers the old dates.
    const { documentId: redatedId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: word() },
    });
    await eventually(
      async () => {
        for (const documentId of [staleId, redatedId]) {
          const hit = await app.ctx.search.get(
            { index: app.ctx.index.alias, id: searchDocumentId(projectId, documentId) },
            { ignore: [404] },
          );
          if (!hit.found) return false;
        }
        return true;
      },
      3000,
      50,
    );
    await app.ctx.pool.query(
      `UPDATE documents SET first_publication_date = '2001-01-01T00:00:00Z', index_version = index_version + 1
       WHERE id = $1`,
      [redatedId],
    );
    await app.ctx.pool.query(
      `WITH p AS (
         INSERT INTO publications (project_id, document_id, document_version, content_type, document_type, metadata, content, updated_at)
         SELECT project_id, id, version, content_type, document_type, metadata, content, updated_at FROM documents WHERE id = ANY($1)
         RETURNING id, document_id)
       UPDATE documents d SET latest_publication_id = p.id, index_version = index_version + 100
       FROM p WHERE d.id = p.document_id`,
      [[missingId, staleId]],
    );
    await app.ctx.search.delete({
      index: app.ctx.index.alias,
      id: searchDocumentId(projectId, missingId),
      refresh: true,
    });
    // An entry whose document was never published (e.g. written by hand).
    await app.ctx.search.index({
      index: app.ctx.index.alias,
      id: searchDocumentId(projectId, 999_999_002),
      document: { projectId, documentId: 999_999_002, publicationId: 1 },
      refresh: true,
    });
    const mine = (keys: { projectId: number; documentId: number }[]) =>
      keys.filter((key) => key.projectId === projectId).map((key) => key.documentId);

    const report = await verifyIndex(deps());
    expect(mine(report.missing)).toEqual([missingId]);
    expect(mine(report.stale)).toEqual([staleId, redatedId]);
    expect(mine(report.extra)).toEqual([999_999_002]);

    const repaired = await verifyIndex(deps(), { repair: true });
    expect(repaired.repaired).toBeGreaterThanOrEqual(4);
    await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
    const redated = await api.get(`documents/latestPublications?id=${redatedId}&fields=systemdata`);
    expect(redated.body.results[0].systemdata.firstPublicationDate).toBe('2001-01-01T00:00:00.000Z');
    const after = await verifyIndex(deps());
    expect(mine(after.missing)).toEqual([]);
    expect(mine(after.stale)).toEqual([]);
    expect(mine(after.extra)).toEqual([]);
  });

  it('when status is asked, then it names the alias, its index and the counts', async () => {
    const status = await indexStatus({ ...deps(), boss: app.ctx.boss });
    expect(status.alias).toBe(app.ctx.index.alias);
    expect(status.indices).toHaveLength(1);
    expect(status.rebuilding).toEqual([]);
    expect(status.indexedCount).toBeGreaterThan(0);
    expect(status.publishedCount).toBeGreaterThanOrEqual(status.indexedCount - 1);
  });
});
