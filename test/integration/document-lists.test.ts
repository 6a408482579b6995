import pg from 'pg';
import type { Content } from '../../src/domain/content';
import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { unpublish } from '../helpers/documents';
import { createTestProject, READ, tokenFor } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';
import { publishedInSql } from '../helpers/published-in-sql';
import { deleteCommittedWhileWaiting } from '../helpers/uncommitted-delete';

/** GET document-lists and GET document-lists/{id} (api-spec §4.7, §4.8, §4.20, supplement §8). */
describe('document lists', () => {
  let app: TestApp;
  let project: { projectId: number; channelId: number };
  let other: { projectId: number; channelId: number };
  let api: ReturnType<typeof apiClient>;
  let otherApi: ReturnType<typeof apiClient>;

  const conditional: Content = [
    {
      id: 'doc-always',
      component: 'paragraph',
      identifier: 'test-design.paragraph',
      content: { text: 'all' },
    },
    {
      id: 'doc-de',
      component: 'paragraph',
      identifier: 'test-design.paragraph',
      content: { text: 'de only' },
      conditions: { brands: ['de'] },
    },
  ] as Content;

  /** Published p1..p4 and never-published u1; "Front page" holds p1, u1, p2, p3 in editor order. */
  let p1: number;
  let p2: number;
  let p3: number;
  let p4: number;
  let u1: number;
  let front: number;
  let weekend: number;
  let news: number;
  let breaking: number;
  let foreignList: number;

  const published = async (title: string, content: Content = []) =>
    (await createPublishedDraft(app.ctx, { ...project, metadata: { title }, content })).id;
  const newList = async (projectId: number, name: string, ids: number[]) => {
    const list = await app.ctx.commands.createDocumentList({ projectId, name });
    if (ids.length > 0) await app.ctx.commands.addToDocumentList({ listId: list.id, documentIds: ids });
    return list.id;
  };
  const documentIds = (documents: { systemdata: { documentId: number } }[]) =>
    documents.map((document) => document.systemdata.documentId);

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx);
    other = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, READ)).token);
    otherApi = apiClient(app.url, (await tokenFor(app.ctx, other.projectId, READ)).token);
    p1 = await published('One', conditional);
    u1 = (await createDraftDocument(app.ctx, { ...project, metadata: { title: 'Draft' }, content: [] })).id;
    p2 = await published('Two');
    p3 = await published('Three');
    p4 = await published('Four');
    front = await newList(project.projectId, 'Front page', [p1, u1, p2, p3]);
    weekend = await newList(project.projectId, 'Weekend 100%', [p4]);
    breaking = await newList(project.projectId, 'Breaking News', [p2]);
    news = await newList(project.projectId, 'news', []);
    const foreignDoc = await createPublishedDraft(app.ctx, { ...other, content: [] });
    foreignList = await newList(other.projectId, 'Front page', [foreignDoc.id]);
  });
  afterAll(async () => {
    await app.close();
  });

  describe('access and input', () => {
    it('when no token is sent, then 401; without public-api:read, then 403', async () => {
      for (const path of ['document-lists', `document-lists/${front}`]) {
        expect((await apiClient(app.url).get(path)).status).toBe(401);
        const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:write']);
        const response = await apiClient(app.url, token).get(path);
        expect(response.status).toBe(403);
        expect(response.body).toEqual(
          envelope(403, 'Forbidden', { access_token: 'The request requires higher privileges' }),
        );
      }
    });

    it('when a parameter of GET document-lists is invalid or unknown, then 400 naming it', async () => {
      const bad = await api.get('document-lists?limit=101&offset=10001&nope=1');
      expect(bad.status).toBe(400);
      expect(bad.body.error_details).toEqual({
        name: 'ValidationError',
        limit: 'must be <= 100',
        offset: 'must be <= 10000',
        nope: 'is not allowed',
      });
      const negative = await api.get('document-lists?limit=-1&offset=x&name=');
      expect(negative.status).toBe(400);
      // The parameter `name` is not written over the error's own name (nor passed off as its message key).
      expect(negative.body.error_details).toEqual({
        name: 'ValidationError',
        message: 'name: must not be empty',
        limit: 'must be >= 0',
        offset: 'must be an integer',
      });
    });

    it('when the id or a parameter of GET document-lists/{id} is invalid or unknown, then 400 naming it', async () => {
      for (const id of ['abc', '0', '-1', '1.5', '2147483648', '99999999999999999999']) {
        const response = await api.get(`document-lists/${id}`);
        expect(response.status).toBe(400);
        expect(response.body.error_details).toHaveProperty(['id']);
      }
      const bad = await api.get(
        `document-lists/${front}?reverse=yes&fields=systemdata,references&limit=101&componentConditions={nope&x=1`,
      );
      expect(bad.status).toBe(400);
      expect(bad.body.error_details).toEqual({
        name: 'ValidationError',
        reverse: "must be 'true' or 'false' ('1' or '0'; the name alone means true)",
        fields: 'must be a comma separated list of systemdata, metadata, content',
        limit: 'must be <= 100',
        x: 'is not allowed',
      });
      const conditions = await api.get(`document-lists/${front}?componentConditions={nope`);
      expect(conditions.status).toBe(400);
      expect(conditions.body.error_details).toHaveProperty(['componentConditions']);
      const ignore = await api.get(`document-lists/${front}?ignoreComponentConditions=maybe`);
      expect(ignore.status).toBe(400);
      expect(ignore.body.error_details).toHaveProperty(['ignoreComponentConditions']);
      const emptyItem = await api.get(`document-lists/${front}?fields=systemdata,`);
      expect(emptyItem.status).toBe(400);
      expect(emptyItem.body.error_details).toHaveProperty(['fields']);
      // `fields=` alone means the default, as leaving it out does.
      const emptyFields = await api.get(`document-lists/${front}?fields=`);
      expect(emptyFields.status).toBe(200);
      expect(emptyFields.body).toEqual((await api.get(`document-lists/${front}`)).body);
    });

    it('when the list is unknown or another project’s, then 404; the listing never shows another project’s lists', async () => {
      const unknown = await api.get('document-lists/2147483647');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual(envelope(404, 'Not Found', { name: 'NotFound' }));
      const foreign = await api.get(`document-lists/${foreignList}`);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(envelope(404, 'Not Found', { name: 'NotFound' }));
      // And the other way round: the other project's token sees its own list only.
      expect((await otherApi.get(`document-lists/${front}`)).status).toBe(404);
      const theirs = await otherApi.get('document-lists');
      expect(theirs.body.results.map((list: { id: number }) => list.id)).toEqual([foreignList]);
      const mine = await api.get('document-lists?name=Front%20page');
      expect(mine.body.results.map((list: { id: number }) => list.id)).toEqual([front]);
    });
  });

  describe('GET document-lists/{id}', () => {
    it('when asked with defaults, then the published documents newest-added first, systemdata and metadata only', async () => {
      const response = await api.get(`document-lists/${front}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: front,
        name: 'Front page',
        documents: [expect.any(Object), expect.any(Object), expect.any(Object)],
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(documentIds(response.body.documents)).toEqual([p3, p2, p1]);
      for (const document of response.body.documents) {
        expect(Object.keys(document)).toEqual(['systemdata', 'metadata']);
        expect(document.systemdata).toMatchObject({
          projectId: project.projectId,
          publicationId: expect.any(Number),
        });
      }
      expect(response.body.documents[2].metadata).toEqual({ title: 'One' });
    });

    it('when reverse=false, then the editor order; limit counts the published documents from the start', async () => {
      const editor = await api.get(`document-lists/${front}?reverse=false`);
      expect(documentIds(editor.body.documents)).toEqual([p1, p2, p3]);
      const two = await api.get(`document-lists/${front}?reverse=false&limit=2`);
      expect(documentIds(two.body.documents)).toEqual([p1, p2]);
      const newest = await api.get(`document-lists/${front}?limit=1`);
      expect(documentIds(newest.body.documents)).toEqual([p3]);
      const none = await api.get(`document-lists/${front}?limit=0`);
      expect(none.body.documents).toEqual([]);
      const empty = await api.get(`document-lists/${news}`);
      expect(empty.body).toMatchObject({ id: news, name: 'news', documents: [] });
    });

    it('when fields names content, then the content with component conditions applied as asked', async () => {
      const texts = async (query: string) => {
        const response = await api.get(
          `document-lists/${front}?reverse=false&limit=1&fields=content${query}`,
        );
        expect(response.status).toBe(200);
        expect(Object.keys(response.body.documents[0])).toEqual(['content']);
        return (response.body.documents[0].content as { content: { text: string } }[]).map(
          (c) => c.content.text,
        );
      };
      // The project's default brand is ch: the de-only component is dropped.
      expect(await texts('')).toEqual(['all']);
      expect(await texts(`&componentConditions=${encodeURIComponent('{"brand":"de"}')}`)).toEqual([
        'all',
        'de only',
      ]);
      expect(await texts('&ignoreComponentConditions=true')).toEqual(['all', 'de only']);
      const all = await api.get(`document-lists/${front}?fields=metadata,content,systemdata`);
      expect(Object.keys(all.body.documents[0])).toEqual(['metadata', 'content', 'systemdata']);
    });

    it('when asked in any version, then the list object, never wrapped', async () => {
      const latest = await api.get(`document-lists/${front}`);
      for (const version of ['v1', '2025-03', '2025-11', '2026-01']) {
        const response = await api.withVersion(version).get(`document-lists/${front}`);
        expect(response.status).toBe(200);
        expect(response.body).toEqual(latest.body);
      }
    });

    it('when a listed document is published or unpublished, then the next read follows', async () => {
      const draft = (
        await createDraftDocument(app.ctx, { ...project, metadata: { title: 'Later' }, content: [] })
      ).id;
      const p5 = await published('Five');
      const later = await newList(project.projectId, 'Later', [draft, p5]);
      expect(documentIds((await api.get(`document-lists/${later}`)).body.documents)).toEqual([p5]);
      const publish = apiClient(app.url, (await tokenFor(app.ctx, project.projectId)).token);
      expect(
        (await publish.patch(`documents/${draft}/commands`, { commands: [{ operation: 'publish' }] })).status,
      ).toBe(204);
      expect(documentIds((await api.get(`document-lists/${later}`)).body.documents)).toEqual([p5, draft]);
      await unpublish(app.ctx, project.projectId, p5);
      expect(documentIds((await api.get(`document-lists/${later}`)).body.documents)).toEqual([draft]);
      // The listing of lists resolves the same way.
      const listing = await api.get('document-lists?name=Later');
      expect(documentIds(listing.body.results[0].documents)).toEqual([draft]);
    });
  });

  describe('GET document-lists', () => {
    const names = (lists: { name: string }[]) => lists.map((list) => list.name);

    it('when asked from 2026-01, then {results}: every list by name, each with its first 10 published documents', async () => {
      const response = await api.get('document-lists');
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['results']);
      expect(names(response.body.results)).toEqual(
        expect.arrayContaining(['Breaking News', 'Front page', 'news', 'Weekend 100%']),
      );
      const frontItem = response.body.results.find((list: { id: number }) => list.id === front);
      expect(frontItem).toEqual({
        id: front,
        name: 'Front page',
        documents: expect.any(Array),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(documentIds(frontItem.documents)).toEqual([p3, p2, p1]);
      expect(Object.keys(frontItem.documents[0])).toEqual(['systemdata', 'metadata']);
    });

    it('when asked up to 2025-11, then a bare array', async () => {
      const latest = await api.get('document-lists?name=front');
      for (const version of ['v1', '2025-03', '2025-11']) {
        const response = await api.withVersion(version).get('document-lists?name=front');
        expect(response.status).toBe(200);
        expect(response.body).toEqual(latest.body.results);
      }
    });

    it('when name is given, then lists containing it, case-insensitive, the exact name first; % is a plain character', async () => {
      expect(names((await api.get('document-lists?name=NEWS')).body.results)).toEqual([
        'news',
        'Breaking News',
      ]);
      expect(names((await api.get('document-lists?name=front%20PAGE')).body.results)).toEqual(['Front page']);
      expect(names((await api.get('document-lists?name=100%25')).body.results)).toEqual(['Weekend 100%']);
      expect(names((await api.get('document-lists?name=%25')).body.results)).toEqual(['Weekend 100%']);
      expect(names((await api.get('document-lists?name=_')).body.results)).toEqual([]);
      expect((await api.get('document-lists?name=nothing-like-it')).body).toEqual({ results: [] });
    });

    it('when a name spells an accent with a combining mark, then it is one name with the composed spelling', async () => {
      // Stored as given, 'Cafe' + U+0301 and 'Café' were two lists that look the same, and each spelling of
      // ?name= found only its own.
      const decomposed = 'Cafe\u0301 corner';
      const composed = 'Caf\u00e9 corner';
      const list = await newList(project.projectId, decomposed, [p4]);
      await expect(
        app.ctx.commands.createDocumentList({ projectId: project.projectId, name: composed }),
      ).rejects.toMatchObject({ status: 409 });
      for (const name of [composed, decomposed, 'CAF\u00c9', 'E\u0301 C']) {
        const response = await api.get(`document-lists?name=${encodeURIComponent(name)}`);
        expect(response.status).toBe(200);
        expect(response.body.results.map((item: { id: number }) => item.id)).toEqual([list]);
        expect(response.body.results[0].name).toBe(composed);
      }
    });

    it('when limit is given, then that many documents per list; offset skips lists', async () => {
      const one = await api.get('document-lists?name=e&limit=1');
      const byName = Object.fromEntries(
        one.body.results.map((list: { name: string; documents: [] }) => [
          list.name,
          documentIds(list.documents),
        ]),
      );
      expect(byName).toMatchObject({ 'Front page': [p3], 'Breaking News': [p2], 'Weekend 100%': [p4] });
      const byId = (id: number) => one.body.results.find((list: { id: number }) => list.id === id);
      expect(documentIds(byId(breaking).documents)).toEqual([p2]);
      expect(documentIds(byId(weekend).documents)).toEqual([p4]);
      const zero = await api.get('document-lists?name=front&limit=0');
      expect(zero.body.results[0].documents).toEqual([]);
      const all = names((await api.get('document-lists?name=e')).body.results);
      const skipped = names((await api.get('document-lists?name=e&offset=1')).body.results);
      expect(skipped).toEqual(all.slice(1));
      expect((await api.get('document-lists?offset=10000')).body).toEqual({ results: [] });
    });

    it('when names differ in case or accent, then they are ordered as in a dictionary (the same in any database); a spelling asked for comes first', async () => {
      // The database's own collation ordered them: by code point in a C.UTF-8 database (Zebra before apple,
      // Ñews after everything), another way in en_US, so each install answered its own order.
      const own = await createTestProject(app.ctx);
      const ownApi = apiClient(app.url, (await tokenFor(app.ctx, own.projectId, READ)).token);
      const byCreation = ['Ñews', 'Zebra', 'news', 'Éclair', 'News', 'apple', 'eclair', 'Breaking News'];
      const ids = new Map<string, number>();
      for (const name of byCreation) ids.set(name, await newList(own.projectId, name, []));
      const listed = (await ownApi.get('document-lists')).body.results;
      expect(names(listed)).toEqual([
        'apple',
        'Breaking News',
        'eclair',
        'Éclair',
        'news',
        'News',
        'Ñews',
        'Zebra',
      ]);
      // Every name of the listing has its id: the same lists, only in a new order.
      expect(listed.map((list: { id: number }) => list.id)).toEqual(
        names(listed).map((name) => ids.get(name)),
      );
      // Both 'news' and 'News' are the name asked for, case aside: the spelling sent first, then the other.
      expect(names((await ownApi.get('document-lists?name=News')).body.results)).toEqual([
        'News',
        'news',
        'Breaking News',
      ]);
      expect(names((await ownApi.get('document-lists?name=news')).body.results)).toEqual([
        'news',
        'News',
        'Breaking News',
      ]);
      expect(names((await ownApi.get('document-lists?name=ñEWS')).body.results)).toEqual(['Ñews']);
    });
  });

  describe('what a read costs', () => {
    /** Rows of `table` the plan of `statement` read, as EXPLAIN ANALYZE counts them. */
    const rowsRead = async (statement: { text: string; values: unknown[] }, table: string) => {
      const explained = await app.ctx.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
        statement.values,
      );
      interface PlanNode {
        'Relation Name'?: string;
        'Actual Rows': number;
        'Actual Loops': number;
        Plans?: PlanNode[];
      }
      const walk = (node: PlanNode): number =>
        (node['Relation Name'] === table ? node['Actual Rows'] * node['Actual Loops'] : 0) +
        (node.Plans ?? []).reduce((sum, child) => sum + walk(child), 0);
      return walk(explained.rows[0]!['QUERY PLAN'][0].Plan);
    };

    /** The statement the app sent for a request that reads list items, the rows it got back, and the answer. */
    const capture = async (path: string) => {
      // Reads go through the pool, whose query returns the promise of the result.
      const query = jest.spyOn(pg.Pool.prototype, 'query');
      const response = await api.get(path);
      const calls = query.mock.calls.map(([text, values], index) => ({
        text: typeof text === 'string' ? text : ((text as { text?: string }).text ?? ''),
        values: Array.isArray(values) ? values : [],
        result: query.mock.results[index]?.value as Promise<pg.QueryResult>,
      }));
      query.mockRestore();
      const call = calls.find(({ text }) => text.includes('FROM document_list_items'));
      expect(call).toBeDefined();
      const { text, values, result } = call!;
      return { response, statement: { text, values }, rows: (await result).rows };
    };

    it('when a list holds 20,000 published documents, then a read of its first few reads a few items, not all of them', async () => {
      // Every read numbered and sorted all the items of the list to keep its first `limit`: 5 s for a list of
      // 300,000 (a "latest" list that only grows), and the listing did so for up to 100 lists at once.
      const ids = await publishedInSql(app.ctx.pool, project, [], { count: 20_000, title: 'Long' });
      const long = await newList(project.projectId, 'Long', ids);
      await app.ctx.pool.query('ANALYZE document_list_items, documents, publications');

      const newest = await capture(`document-lists/${long}?limit=3`);
      expect(newest.response.status).toBe(200);
      expect(documentIds(newest.response.body.documents)).toEqual(ids.slice(-3).reverse());
      expect(await rowsRead(newest.statement, 'document_list_items')).toBeLessThanOrEqual(100);

      const first = await capture(`document-lists/${long}?limit=3&reverse=false`);
      expect(documentIds(first.response.body.documents)).toEqual(ids.slice(0, 3));
      expect(await rowsRead(first.statement, 'document_list_items')).toBeLessThanOrEqual(100);

      const listing = await capture('document-lists?name=Long&limit=2');
      expect(documentIds(listing.response.body.results[0].documents)).toEqual(ids.slice(-2).reverse());
      expect(await rowsRead(listing.statement, 'document_list_items')).toBeLessThanOrEqual(100);
    });

    it('when documents of a list are large, then a read that does not show their content does not fetch it', async () => {
      // Every read fetched each document's whole content from Postgres and dropped it when fields did not ask
      // for it: the listing (never content) moved up to 100 lists x `limit` contents per request.
      const large: Content = Array.from({ length: 200 }, (_, index) => ({
        id: `doc-large-${index}`,
        component: 'paragraph',
        identifier: 'test-design.paragraph',
        content: { text: 'x'.repeat(5_000) },
      }));
      const ids = [await published('Large one', large), await published('Large two', large)];
      const list = await newList(project.projectId, 'Large contents', ids);
      const fetched = (rows: unknown[]) => Buffer.byteLength(JSON.stringify(rows));

      for (const path of [`document-lists/${list}`, 'document-lists?name=Large%20contents']) {
        const read = await capture(path);
        expect(read.response.status).toBe(200);
        expect(read.rows).toHaveLength(2);
        expect(fetched(read.rows)).toBeLessThan(10_000);
      }
      const withContent = await capture(`document-lists/${list}?fields=metadata,content`);
      expect(withContent.response.body.documents[0].content).toHaveLength(200);
      expect(withContent.response.body.documents[1].metadata).toEqual({ title: 'Large one' });
      expect(fetched(withContent.rows)).toBeGreaterThan(2_000_000);
    });
  });

  describe('kept by the CLI use cases', () => {
    it('when a list name is taken, or an id is not a document of the project, then it is refused and nothing changes', async () => {
      await expect(
        app.ctx.commands.createDocumentList({ projectId: project.projectId, name: 'Front page' }),
      ).rejects.toMatchObject({ status: 409 });
      await expect(
        app.ctx.commands.createDocumentList({ projectId: project.projectId, name: '   ' }),
      ).rejects.toMatchObject({ status: 400 });
      const foreignDoc = await createPublishedDraft(app.ctx, { ...other, content: [] });
      await expect(
        app.ctx.commands.addToDocumentList({ listId: front, documentIds: [p4, foreignDoc.id] }),
      ).rejects.toMatchObject({ status: 404 });
      const again = await app.ctx.commands.addToDocumentList({ listId: front, documentIds: [p2] });
      expect(again).toMatchObject({ added: [], alreadyListed: [p2] });
      const response = await api.get(`document-lists/${front}?reverse=false`);
      expect(documentIds(response.body.documents)).toEqual([p1, p2, p3]);
    });

    it('when a listed document is deleted, then it leaves the list with it; adding it again is refused naming it, nothing added', async () => {
      // A list cannot hold a document that is gone (its items go with the document), so unlike a menu there is
      // no stored id to let through: the id is a new one again.
      const doomed = await published('Deleted later');
      const list = await newList(project.projectId, 'Loses a document', [p1, doomed]);
      await app.ctx.pool.query('DELETE FROM documents WHERE id = $1', [doomed]);
      expect(documentIds((await api.get(`document-lists/${list}?reverse=false`)).body.documents)).toEqual([
        p1,
      ]);
      await expect(
        app.ctx.commands.addToDocumentList({ listId: list, documentIds: [p1, doomed, p2] }),
      ).rejects.toMatchObject({
        status: 404,
        details: { message: `No document ${doomed} in the project of list ${list}; nothing was added` },
      });
      expect(await app.ctx.commands.addToDocumentList({ listId: list, documentIds: [p1, p2] })).toMatchObject(
        {
          added: [p2],
          alreadyListed: [p1],
        },
      );
    });

    it('when a document is deleted while an add checks it, then the same refusal naming it, nothing added', async () => {
      // The add read the document as there (the delete not committed yet) and its insert then met the
      // foreign key: an unexplained error from the CLI instead of the refusal a deleted document gets.
      const doomed = await published('Deleted during an add');
      const list = await newList(project.projectId, 'Races a delete', [p1]);
      const outcome = await deleteCommittedWhileWaiting(
        app.ctx.pool,
        { text: 'DELETE FROM documents WHERE id = $1', values: [doomed] },
        () => app.ctx.commands.addToDocumentList({ listId: list, documentIds: [p2, doomed] }),
      );
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: {
          status: 404,
          details: { message: `No document ${doomed} in the project of list ${list}; nothing was added` },
        },
      });
      const items = await app.ctx.pool.query(
        'SELECT document_id FROM document_list_items WHERE list_id = $1',
        [list],
      );
      expect(items.rows).toEqual([{ document_id: p1 }]);
    });

    it('when an add lists nothing new, then the list reads as before (same updatedAt, 304 on its ETag); a real add moves updatedAt', async () => {
      const list = await newList(project.projectId, 'Unchanged by no-op adds', [p1, p2]);
      const before = await api.get(`document-lists/${list}`);
      const etag = before.headers.get('etag')!;
      expect(etag).toBeTruthy();
      // As a poller on fetch revalidates (fetch adds `Cache-Control: no-cache`, which is for caches).
      const revalidate = { 'If-None-Match': etag };

      const again = await app.ctx.commands.addToDocumentList({ listId: list, documentIds: [p2, p1, p2] });
      expect(again).toMatchObject({ added: [], alreadyListed: [p2, p1] });
      const after = await api.get(`document-lists/${list}`);
      expect(after.body).toEqual(before.body);
      expect((await api.get(`document-lists/${list}`, revalidate)).status).toBe(304);
      const head = await fetch(`${app.url}/api/2026-03/document-lists/${list}`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${(await tokenFor(app.ctx, project.projectId, READ)).token}` },
      });
      expect([head.status, head.headers.get('etag'), head.headers.get('content-length')]).toEqual([
        200,
        etag,
        String(Buffer.byteLength(after.text)),
      ]);
      expect(after.headers.get('content-type')).toBe('application/json; charset=utf-8');

      await app.ctx.commands.addToDocumentList({ listId: list, documentIds: [p3] });
      const grown = await api.get(`document-lists/${list}`);
      expect(Date.parse(grown.body.updatedAt)).toBeGreaterThan(Date.parse(before.body.updatedAt));
      expect(documentIds(grown.body.documents)).toEqual([p3, p2, p1]);
      expect((await api.get(`document-lists/${list}`, revalidate)).status).toBe(200);
    });
  });
});
