import { withTransaction } from '../../src/db/pool';
import { documentQueries } from '../../src/db/queries/documents';
import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, envelope, eventually } from '../helpers/http';
import { nestedArrays } from '../helpers/json';

describe('planner/element (planning-tool element sync)', () => {
  let app: TestApp;
  let project: { projectId: number; channelId: number; handle: string };
  let planner: ReturnType<typeof apiClient>;
  let editor: ReturnType<typeof apiClient>;
  let elementCounter = 0;
  const nextElementId = () => `story-${Date.now()}-${(elementCounter += 1)}`;

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx, { config: { planner: { elements: { enabled: true } } } });
    planner = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, ['planner'])).token);
    editor = apiClient(
      app.url,
      (await tokenFor(app.ctx, project.projectId, ['public-api:write', 'public-api:drafts:read'])).token,
    );
  });
  afterAll(() => app.close());

  const load = async (id: number) => (await documentQueries(app.ctx.pool).findById(project.projectId, id))!;
  const storedElement = async (documentId: number) =>
    (
      await app.ctx.pool.query<{ element_id: string; element: unknown }>(
        'SELECT element_id, element FROM planner_elements WHERE document_id = $1',
        [documentId],
      )
    ).rows[0];
  const documentCount = async (projectId: number) =>
    Number(
      (
        await app.ctx.pool.query<{ n: string }>('SELECT count(*) AS n FROM documents WHERE project_id = $1', [
          projectId,
        ])
      ).rows[0]!.n,
    );
  const commandsOf = async (documentId: number) =>
    (
      await app.ctx.pool.query<{ client_id: string; commands: unknown[] }>(
        'SELECT client_id, commands FROM document_command_transactions WHERE document_id = $1 ORDER BY id',
        [documentId],
      )
    ).rows;
  const create = async (body: Record<string, unknown> = {}) => {
    const response = await planner.post('planner/element', {
      id: nextElementId(),
      title: 'Planned',
      ...body,
    });
    expect(response.status).toBe(201);
    return response.body.id as number;
  };

  describe('every route', () => {
    const routes = (id: number) =>
      [
        ['POST', 'planner/element', { id: 'x' }],
        ['PUT', 'planner/element', { id: 'x' }],
        ['PUT', `planner/element/${id}`, {}],
        ['DELETE', `planner/element/${id}`, undefined],
      ] as const;
    const send = (client: ReturnType<typeof apiClient>, method: string, path: string, body: unknown) =>
      method === 'POST'
        ? client.post(path, body)
        : method === 'PUT'
          ? client.put(path, body)
          : client.delete(path);

    it('when no token is sent, then 401; without the planner scope, then 403', async () => {
      const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:write', 'enrichment']);
      for (const [method, path, body] of routes(1)) {
        expect([method, path, (await send(apiClient(app.url), method, path, body)).status]).toEqual([
          method,
          path,
          401,
        ]);
        const forbidden = await send(apiClient(app.url, token), method, path, body);
        expect([method, path, forbidden.status]).toEqual([method, path, 403]);
        expect(forbidden.body).toEqual(
          envelope(403, 'Forbidden', { access_token: 'The request requires higher privileges' }),
        );
      }
    });

    it('when element sync is not enabled for the project, then 400 ConfigurationError naming it, and nothing is written', async () => {
      const off = await createTestProject(app.ctx, { config: { planner: { elements: { enabled: false } } } });
      const doc = await createDraftDocument(app.ctx, off);
      const client = apiClient(app.url, (await tokenFor(app.ctx, off.projectId, ['planner'])).token);
      const before = await documentCount(off.projectId);
      for (const [method, path, body] of routes(doc.id)) {
        const response = await send(client, method, path, body);
        expect([method, path, response.body]).toEqual([
          method,
          path,
          envelope(400, 'Bad Request', {
            name: 'ConfigurationError',
            message: `Planner element sync is not enabled for project '${off.handle}' (projectId=${off.projectId})`,
          }),
        ]);
      }
      const never = await createTestProject(app.ctx);
      const other = apiClient(app.url, (await tokenFor(app.ctx, never.projectId, ['planner'])).token);
      expect((await other.post('planner/element', { id: 'x' })).body.error_details.name).toBe(
        'ConfigurationError',
      );
      expect(await documentCount(off.projectId)).toBe(before);
    });

    it('when a body is not JSON, then 415', async () => {
      const response = await planner.post('planner/element', 'id=1', { 'content-type': 'text/plain' });
      expect(response.status).toBe(415);
    });

    it('when the element or the path is malformed, then 400 naming each path, and nothing is written', async () => {
      const before = await documentCount(project.projectId);
      const bad = await planner.post('planner/element', {
        title: 5,
        description: ['x'],
        metadata: { constructor: 1, ok: 'fine' },
        documentId: 'abc',
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error_details).toEqual({
        name: 'ValidationError',
        id: 'is required',
        title: 'must be a string',
        description: 'must be a string',
        'metadata.constructor': 'is a reserved name',
        documentId: expect.stringMatching(/^must be a positive integer document id/),
      });
      const twice = await planner.post('planner/element', { id: 'x', title: 'A', metadata: { title: 'B' } });
      expect(twice.body.error_details).toEqual({
        name: 'ValidationError',
        'metadata.title': 'is given as title already',
      });
      const emptyName = await planner.post('planner/element', { id: 'x', metadata: { '': 1 } });
      expect(emptyName.body.error_details).toEqual({
        name: 'ValidationError',
        'metadata.': 'must not be empty',
      });
      const overflow = await planner.post('planner/element', '{"id":"x","budget":[1,1e400]}');
      expect(overflow.body.error_details).toEqual({
        name: 'ValidationError',
        'budget.1': expect.stringMatching(/^must be a number of at most 1\.7976931348623157e\+308 in size/),
      });
      const blankId = await planner.put('planner/element', { id: '   ' });
      expect(blankId.body.error_details).toEqual({ name: 'ValidationError', id: 'must not be empty' });
      const objectId = await planner.put('planner/element', { id: { x: 1 } });
      expect(objectId.body.error_details.id).toMatch(/^must be the planning tool’s element id/);
      const notObject = await planner.put('planner/element', [1]);
      expect(notObject.body.error_details).toEqual({ name: 'ValidationError', body: 'must be an object' });
      const huge = await planner.post('planner/element', { id: 'x', notes: 'n'.repeat(300 * 1024) });
      expect(huge.body.error_details).toEqual({
        name: 'ValidationError',
        body: 'must be at most 262144 bytes as JSON',
      });
      const badPath = await planner.put('planner/element/abc', {});
      expect(badPath.body.error_details).toEqual({
        name: 'ValidationError',
        documentId: 'must be a positive integer',
      });
      expect((await planner.delete('planner/element/0')).status).toBe(400);
      expect(await documentCount(project.projectId)).toBe(before);
    });

    it('when the element names more metadata properties than it may, then 400 at once and nothing is written', async () => {
      // Each property becomes a setMetadataProperty command (a commands request takes 100): 30,000 short ones
      // fit in the element's 256 KiB and took 5 to 7 s of the server per request, mostly validating them.
      const before = await documentCount(project.projectId);
      const metadata = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [i.toString(36), 0]));
      const started = Date.now();
      const response = await planner.post('planner/element', { id: nextElementId(), metadata });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(response.body).toEqual(
        envelope(400, 'Bad Request', {
          name: 'ValidationError',
          metadata: 'must have at most 1000 properties',
        }),
      );
      expect(await documentCount(project.projectId)).toBe(before);
      const most = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, i]));
      const id = await create({ metadata: most });
      expect(Object.keys((await load(id)).metadata)).toHaveLength(1001);
    });

    it('when a command the element maps to breaks a document limit, then 400 and neither the draft nor the link stays', async () => {
      const before = await documentCount(project.projectId);
      const elementId = nextElementId();
      const response = await planner.post('planner/element', {
        id: elementId,
        metadata: { deep: nestedArrays(70) },
      });
      expect(response.status).toBe(400);
      expect(response.body.error_details).toMatchObject({
        commandIndex: 0,
        path: expect.stringMatching(/^metadata\.deep/),
      });
      expect(await documentCount(project.projectId)).toBe(before);
      expect(
        (await app.ctx.pool.query('SELECT 1 FROM planner_elements WHERE element_id = $1', [elementId]))
          .rowCount,
      ).toBe(0);
    });
  });

  describe('POST planner/element', () => {
    it('when the element is new, then 201 {id}: a draft of the first article type whose metadata commands set, and the element stored as sent', async () => {
      const elementId = nextElementId();
      const body = {
        id: elementId,
        title: 'Council votes on the budget',
        description: 'Live from the chamber',
        metadata: { flag: 'politics' },
        assignments: [{ user: 'ana', role: 'author' }],
        publications: [{ platform: 'web', status: 'planned' }],
      };
      const response = await planner.post('planner/element', body);
      expect(response.status).toBe(201);
      expect(response.body).toEqual({ id: expect.any(Number) });
      const id = response.body.id as number;

      const draft = await editor.get(`documents/${id}/latestDraft`);
      expect(draft.status).toBe(200);
      expect(draft.body.systemdata).toMatchObject({
        documentId: id,
        contentType: 'regular',
        documentType: 'article',
        design: { name: 'test-design', version: '1.0.0' },
      });
      expect(draft.body.metadata).toEqual({
        title: 'Council votes on the budget',
        description: 'Live from the chamber',
        flag: 'politics',
      });
      expect(draft.body.content).toEqual([]);
      expect(await storedElement(id)).toEqual({ element_id: elementId, element: body });
      const transactions = await commandsOf(id);
      expect(transactions).toHaveLength(1);
      expect(transactions[0]!.commands).toHaveLength(3);
      expect((await load(id)).version).toBe(2);
    });

    it('when the element id is a number, then it is the same element as its string', async () => {
      const numeric = Date.now();
      const first = await planner.post('planner/element', { id: numeric, title: 'Numbered' });
      expect(first.status).toBe(201);
      const again = await planner.post('planner/element', { id: String(numeric), title: 'Numbered' });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(first.body.id);
    });

    it('when the tool sends a POST again, then the same document answers (200) and nothing is created twice', async () => {
      const elementId = nextElementId();
      const first = await planner.post('planner/element', { id: elementId, title: 'Once' });
      const before = await documentCount(project.projectId);
      const again = await planner.post('planner/element', { id: elementId, title: 'Once, edited' });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ id: first.body.id });
      expect(await documentCount(project.projectId)).toBe(before);
      expect((await load(first.body.id)).metadata).toEqual({ title: 'Once, edited' });
    });

    it('when the tool sends the same new element several times at once, then one 201 and 200s, all with one document', async () => {
      // A retry while the first POST is still running (its answer lost on the way): the losers of the race
      // hit the link's unique key and answered 409 with Postgres's key detail.
      const elementId = nextElementId();
      const before = await documentCount(project.projectId);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => planner.post('planner/element', { id: elementId, title: 'Raced' })),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      const ids = new Set(answers.map((answer) => answer.body.id as number));
      expect(ids.size).toBe(1);
      expect(await documentCount(project.projectId)).toBe(before + 1);
    });

    it('when documentId names a document of the project, then the element is linked to it (200) and its fields are written', async () => {
      const doc = await createDraftDocument(app.ctx, {
        ...project,
        metadata: { title: 'Existing', flag: 'keep' },
      });
      const response = await planner.post('planner/element', {
        id: nextElementId(),
        documentId: String(doc.id),
        title: 'Planned title',
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ id: doc.id });
      expect((await load(doc.id)).metadata).toEqual({ title: 'Planned title', flag: 'keep' });
    });

    it('when documentId names an unknown document or one of another project, then 404', async () => {
      const other = await createTestProject(app.ctx);
      const foreign = await createDraftDocument(app.ctx, other);
      for (const documentId of [foreign.id, 987654321]) {
        const response = await planner.post('planner/element', { id: nextElementId(), documentId });
        expect(response.status).toBe(404);
        expect(response.body).toEqual(
          envelope(404, 'Not Found', { name: 'NotFound', message: `Document ${documentId} not found` }),
        );
      }
      expect((await documentQueries(app.ctx.pool).findById(other.projectId, foreign.id))!.version).toBe(
        foreign.version,
      );
    });

    it('when the document is linked to another element, or the element to another document, then 409', async () => {
      const linked = await create();
      const elementOfLinked = (await storedElement(linked))!.element_id;
      const taken = await planner.post('planner/element', { id: nextElementId(), documentId: linked });
      expect(taken.status).toBe(409);
      expect(taken.body.error_details).toEqual({
        name: 'Conflict',
        message: `Document ${linked} is linked to planner element '${elementOfLinked}'`,
      });
      const doc = await createDraftDocument(app.ctx, project);
      const moved = await planner.post('planner/element', { id: elementOfLinked, documentId: doc.id });
      expect(moved.status).toBe(409);
      expect(moved.body.error_details.message).toBe(
        `Planner element '${elementOfLinked}' is linked to document ${linked}, not ${doc.id}`,
      );
    });

    it('when a second element is linked to a document while the tool updates the first one, then 409 and 200, never a deadlock', async () => {
      // The POST held the document and then waited for its link's row, which the PUT held while it waited
      // for the document: Postgres broke the deadlock by failing one of them, a 500 after a second.
      const linked = await create();
      const elementOfLinked = (await storedElement(linked))!.element_id;
      const lockWaiters = async () =>
        Number(
          (
            await app.ctx.pool.query<{ n: string }>(
              `SELECT count(*) AS n FROM pg_stat_activity
               WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            )
          ).rows[0]!.n,
        );
      let linking: ReturnType<typeof planner.post> | undefined;
      let updating: ReturnType<typeof planner.put> | undefined;
      // The document is held while the POST queues for it first and then the PUT (holding its link) behind it.
      await withTransaction(app.ctx.pool, async (tx) => {
        await documentQueries(tx).findByIdForUpdate(project.projectId, linked);
        linking = planner.post('planner/element', { id: nextElementId(), documentId: linked });
        await eventually(async () => (await lockWaiters()) >= 1);
        updating = planner.put(`planner/element/${linked}`, { title: 'Updated meanwhile' });
        await eventually(async () => (await lockWaiters()) >= 2);
      });
      const [linkAnswer, updateAnswer] = await Promise.all([linking!, updating!]);
      expect(linkAnswer.body).toEqual(
        envelope(409, 'Conflict', {
          name: 'Conflict',
          message: `Document ${linked} is linked to planner element '${elementOfLinked}'`,
        }),
      );
      expect(updateAnswer).toMatchObject({ status: 200, body: { id: linked } });
      expect((await load(linked)).metadata).toMatchObject({ title: 'Updated meanwhile' });
      expect((await storedElement(linked))!.element_id).toBe(elementOfLinked);
    });

    it('when the config names the content type, then drafts are of that type; with none to use, 400 ConfigurationError', async () => {
      const pages = await createTestProject(app.ctx, {
        config: { planner: { elements: { enabled: true, contentType: 'page' } } },
      });
      const client = apiClient(app.url, (await tokenFor(app.ctx, pages.projectId, ['planner'])).token);
      const created = await client.post('planner/element', { id: 'p1', title: 'A page' });
      expect(created.status).toBe(201);
      const row = (await documentQueries(app.ctx.pool).findById(pages.projectId, created.body.id))!;
      expect([row.contentType, row.documentType]).toEqual(['page', 'page']);

      const noArticles = await createTestProject(app.ctx, {
        config: {
          planner: { elements: { enabled: true } },
          contentTypes: [{ handle: 'page', documentType: 'page', metadata: [] }],
        },
      });
      const none = apiClient(app.url, (await tokenFor(app.ctx, noArticles.projectId, ['planner'])).token);
      const refused = await none.post('planner/element', { id: 'p1' });
      expect(refused.body).toEqual(
        envelope(400, 'Bad Request', {
          name: 'ConfigurationError',
          message: expect.stringContaining(
            `'${noArticles.handle}' (projectId=${noArticles.projectId}) has no content type`,
          ),
        }),
      );
    });
  });

  describe('PUT planner/element and planner/element/{documentId}', () => {
    it('when the element changes, then only what changed becomes commands, and an editor’s change elsewhere stays', async () => {
      const elementId = nextElementId();
      const id = (
        await planner.post('planner/element', {
          id: elementId,
          title: 'First',
          metadata: { flag: 'a', priority: 1 },
        })
      ).body.id;
      // The editor changes a field the tool also set, and one it never named.
      await editor.patch(`documents/${id}/commands`, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'priority', value: 5 },
          { operation: 'setMetadataProperty', propertyName: 'summary', value: 'by the editor' },
        ],
      });
      const response = await planner.put('planner/element', {
        id: elementId,
        title: 'Second',
        metadata: { flag: 'a', priority: 1 },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ id });
      expect((await load(id)).metadata).toEqual({
        title: 'Second',
        flag: 'a',
        priority: 5,
        summary: 'by the editor',
      });
      const last = (await commandsOf(id)).at(-1)!;
      expect(last.commands).toEqual([
        { operation: 'setMetadataProperty', propertyName: 'title', value: 'Second' },
      ]);
    });

    it('when a field the element had is gone or null, then it is removed from the metadata', async () => {
      const elementId = nextElementId();
      const id = (
        await planner.post('planner/element', {
          id: elementId,
          title: 'T',
          description: 'D',
          metadata: { flag: 'x' },
        })
      ).body.id;
      await planner.put(`planner/element/${id}`, { title: 'T', description: null });
      expect((await load(id)).metadata).toEqual({ title: 'T' });
    });

    it('when nothing mapped changed, then no new version is written but the element is stored as sent', async () => {
      const elementId = nextElementId();
      const id = (await planner.post('planner/element', { id: elementId, title: 'Same' })).body.id;
      const version = (await load(id)).version;
      const response = await planner.put(`planner/element/${id}`, {
        id: elementId,
        title: 'Same',
        status: 'ready',
      });
      expect(response.status).toBe(200);
      expect((await load(id)).version).toBe(version);
      expect((await storedElement(id))!.element).toEqual({ id: elementId, title: 'Same', status: 'ready' });
    });

    it('when the element or the document is not linked, or the document is another project’s, then 404', async () => {
      expect((await planner.put('planner/element', { id: 'never-sent' })).body).toEqual(
        envelope(404, 'Not Found', {
          name: 'NotFound',
          message: "Planner element 'never-sent' is not linked to a document",
        }),
      );
      // An element id of 200 characters was repeated whole: its first 100 and its length.
      expect((await planner.put('planner/element', { id: 'e'.repeat(200) })).body).toEqual(
        envelope(404, 'Not Found', {
          name: 'NotFound',
          message: `Planner element '${'e'.repeat(100)}…' (200 characters) is not linked to a document`,
        }),
      );
      const unlinked = await createDraftDocument(app.ctx, project);
      expect((await planner.put(`planner/element/${unlinked.id}`, {})).status).toBe(404);
      const other = await createTestProject(app.ctx, {
        config: { planner: { elements: { enabled: true } } },
      });
      const otherPlanner = apiClient(app.url, (await tokenFor(app.ctx, other.projectId, ['planner'])).token);
      const foreign = (await otherPlanner.post('planner/element', { id: 'theirs', title: 'Theirs' })).body.id;
      const response = await planner.put(`planner/element/${foreign}`, { title: 'Ours now' });
      expect(response.status).toBe(404);
      expect(response.body.error_details).toEqual({
        name: 'NotFound',
        message: `Document ${foreign} is not linked to a planner element`,
      });
      expect((await planner.delete(`planner/element/${foreign}`)).status).toBe(404);
      expect((await documentQueries(app.ctx.pool).findById(other.projectId, foreign))!.metadata).toEqual({
        title: 'Theirs',
      });
    });

    it('when the body names another element than the one linked to the document, then 409', async () => {
      const id = await create();
      const response = await planner.put(`planner/element/${id}`, { id: 'someone-else' });
      expect(response.status).toBe(409);
      expect(response.body.error_details.message).toMatch(
        /^Document \d+ is linked to planner element '.*', not 'someone-else'$/,
      );
    });
  });

  describe('preconditions of PUT and DELETE (If-Match, If-None-Match, If-Unmodified-Since)', () => {
    const linked = async () => {
      const elementId = nextElementId();
      const id = (await planner.post('planner/element', { id: elementId, title: 'Kept' })).body.id as number;
      return { elementId, id };
    };
    /** Every write of the element's link: PUT by its id, PUT by the document's, DELETE. */
    const writes = (link: { elementId: string; id: number }, headers: Record<string, string>) => [
      () => planner.put('planner/element', { id: link.elementId, title: 'Changed' }, headers),
      () => planner.put(`planner/element/${link.id}`, { title: 'Changed' }, headers),
      () => planner.delete(`planner/element/${link.id}`, headers),
    ];
    const expectKept = async (link: { elementId: string; id: number }) => {
      expect((await storedElement(link.id))!.element).toEqual({ id: link.elementId, title: 'Kept' });
      expect((await load(link.id)).metadata).toEqual({ title: 'Kept' });
    };

    it('when If-Match names an entity tag, then 412 and nothing is written; `*` holds; an unknown link stays a 404', async () => {
      const link = await linked();
      for (const ifMatch of ['W/"1-abc"', '"1"', '"x", W/"y"']) {
        for (const write of writes(link, { 'if-match': ifMatch })) {
          expect((await write()).body).toEqual(
            envelope(412, 'Precondition Failed', {
              name: 'PreconditionFailed',
              message:
                'If-Match cannot hold: a planner element has no entity tag to match. Send If-Unmodified-Since instead',
            }),
          );
        }
      }
      await expectKept(link);
      const any = await planner.put(`planner/element/${link.id}`, { title: 'Any' }, { 'if-match': '*' });
      expect([any.status, any.body]).toEqual([200, { id: link.id }]);
      expect((await load(link.id)).metadata).toEqual({ title: 'Any' });
      expect((await planner.delete(`planner/element/${link.id}`, { 'if-match': '*' })).status).toBe(204);
      expect(await storedElement(link.id)).toBeUndefined();
      // Judged only on a link that exists (RFC 9110 §13.2.1): the 404 it was.
      for (const write of writes(link, { 'if-match': '"1"' })) expect((await write()).status).toBe(404);
    });

    it('when If-None-Match is `*`, then 412 on a linked element (a PUT never creates one); a tag list holds', async () => {
      const link = await linked();
      for (const ifNoneMatch of ['*', '"a", *']) {
        for (const write of writes(link, { 'if-none-match': ifNoneMatch })) {
          expect((await write()).body).toEqual(
            envelope(412, 'Precondition Failed', {
              name: 'PreconditionFailed',
              message:
                'If-None-Match: * cannot hold: the planner element exists (it asks to change only what does not)',
            }),
          );
        }
      }
      await expectKept(link);
      const tagged = await planner.put(
        `planner/element/${link.id}`,
        { title: 'Tagged' },
        { 'if-none-match': 'W/"x"' },
      );
      expect([tagged.status, tagged.body]).toEqual([200, { id: link.id }]);
      // Judged before the body's id is compared with the linked element's.
      const other = await planner.put(
        `planner/element/${link.id}`,
        { id: 'someone-else' },
        { 'if-none-match': '*' },
      );
      expect(other.status).toBe(412);
    });

    it('when If-Unmodified-Since is before the element was last sent, then 412 and nothing is written; from then on it holds', async () => {
      const link = await linked();
      const sentAt = '2026-01-15T12:00:05.731Z';
      const setSentAt = () =>
        app.ctx.pool.query('UPDATE planner_elements SET updated_at = $2 WHERE document_id = $1', [
          link.id,
          sentAt,
        ]);
      await setSentAt();
      const before = 'Thu, 15 Jan 2026 12:00:04 GMT';
      for (const write of writes(link, { 'if-unmodified-since': before })) {
        expect((await write()).body).toEqual(
          envelope(412, 'Precondition Failed', {
            name: 'PreconditionFailed',
            message: `The planner element was changed after If-Unmodified-Since (${before}): its updatedAt is ${sentAt}`,
            updatedAt: sentAt,
          }),
        );
      }
      await expectKept(link);
      // Ignored when it is no HTTP-date, or beside an If-Match (which decides); at the second it was sent, it holds.
      expect(
        (await planner.put(`planner/element/${link.id}`, {}, { 'if-unmodified-since': 'yesterday' })).status,
      ).toBe(200);
      expect(
        (
          await planner.put(
            `planner/element/${link.id}`,
            {},
            { 'if-unmodified-since': before, 'if-match': '*' },
          )
        ).status,
      ).toBe(200);
      await setSentAt();
      const atTheSecond = { 'if-unmodified-since': 'Thu, 15 Jan 2026 12:00:05 GMT' };
      const put = await planner.put('planner/element', { id: link.elementId, title: 'Now' }, atTheSecond);
      expect([put.status, put.body]).toEqual([200, { id: link.id }]);
      expect((await load(link.id)).metadata).toEqual({ title: 'Now' });
      // The PUT wrote the element: the same date no longer holds.
      expect((await planner.delete(`planner/element/${link.id}`, atTheSecond)).status).toBe(412);
      await setSentAt();
      expect((await planner.delete(`planner/element/${link.id}`, atTheSecond)).status).toBe(204);
    });
  });

  describe('preconditions of POST (it updates a known element as PUT would, and judges them as PUT does)', () => {
    const linked = async () => {
      const elementId = nextElementId();
      const id = (await planner.post('planner/element', { id: elementId, title: 'Kept' })).body.id as number;
      return { elementId, id };
    };
    const expectKept = async (link: { elementId: string; id: number }) => {
      expect((await storedElement(link.id))!.element).toEqual({ id: link.elementId, title: 'Kept' });
      expect((await load(link.id)).metadata).toEqual({ title: 'Kept' });
    };

    it('when If-None-Match is `*`, then a new element is created (201) and a known one is a 412 with nothing written', async () => {
      const created = await planner.post(
        'planner/element',
        { id: nextElementId(), title: 'Fresh' },
        { 'if-none-match': '*' },
      );
      expect(created.status).toBe(201);
      expect((await load(created.body.id as number)).metadata).toEqual({ title: 'Fresh' });

      const link = await linked();
      const again = await planner.post(
        'planner/element',
        { id: link.elementId, title: 'Changed' },
        { 'if-none-match': '*' },
      );
      expect({ status: again.status, body: again.body }).toEqual({
        status: 412,
        body: envelope(412, 'Precondition Failed', {
          name: 'PreconditionFailed',
          message:
            'If-None-Match: * cannot hold: the planner element exists (it asks to change only what does not)',
        }),
      });
      await expectKept(link);
    });

    it('when If-Match names an entity tag, then 412; `*` holds on a known element and is a 412 on a new one, which is not created', async () => {
      const link = await linked();
      const tagged = await planner.post(
        'planner/element',
        { id: link.elementId, title: 'Changed' },
        { 'if-match': '"1"' },
      );
      expect({ status: tagged.status, body: tagged.body }).toEqual({
        status: 412,
        body: envelope(412, 'Precondition Failed', {
          name: 'PreconditionFailed',
          message:
            'If-Match cannot hold: a planner element has no entity tag to match. Send If-Unmodified-Since ' +
            'instead, or If-None-Match: * to write only one that does not exist yet',
        }),
      });
      await expectKept(link);
      const any = await planner.post(
        'planner/element',
        { id: link.elementId, title: 'Any' },
        { 'if-match': '*' },
      );
      expect([any.status, any.body]).toEqual([200, { id: link.id }]);
      expect((await load(link.id)).metadata).toEqual({ title: 'Any' });

      const before = await documentCount(project.projectId);
      const unknown = nextElementId();
      const fresh = await planner.post('planner/element', { id: unknown, title: 'New' }, { 'if-match': '*' });
      expect({ status: fresh.status, body: fresh.body }).toEqual({
        status: 412,
        body: envelope(412, 'Precondition Failed', {
          name: 'PreconditionFailed',
          message: `If-Match cannot hold: planner element '${unknown}' is not linked to a document (it asks to change only what exists)`,
        }),
      });
      expect(await documentCount(project.projectId)).toBe(before);
    });

    it('when If-Unmodified-Since is before the element was last sent, then 412 and nothing is written; at the second it holds', async () => {
      const link = await linked();
      const sentAt = '2026-01-15T12:00:05.731Z';
      await app.ctx.pool.query('UPDATE planner_elements SET updated_at = $2 WHERE document_id = $1', [
        link.id,
        sentAt,
      ]);
      const before = 'Thu, 15 Jan 2026 12:00:04 GMT';
      const stale = await planner.post(
        'planner/element',
        { id: link.elementId, title: 'Changed' },
        { 'if-unmodified-since': before },
      );
      expect({ status: stale.status, body: stale.body }).toEqual({
        status: 412,
        body: envelope(412, 'Precondition Failed', {
          name: 'PreconditionFailed',
          message: `The planner element was changed after If-Unmodified-Since (${before}): its updatedAt is ${sentAt}`,
          updatedAt: sentAt,
        }),
      });
      await expectKept(link);
      const current = await planner.post(
        'planner/element',
        { id: link.elementId, title: 'Now' },
        { 'if-unmodified-since': 'Thu, 15 Jan 2026 12:00:05 GMT' },
      );
      expect([current.status, current.body]).toEqual([200, { id: link.id }]);
      expect((await load(link.id)).metadata).toEqual({ title: 'Now' });
    });
  });

  describe('DELETE planner/element/{documentId}', () => {
    it('when a linked document is unlinked, then 204, the document stays, and the element is unknown after', async () => {
      const elementId = nextElementId();
      const id = (await planner.post('planner/element', { id: elementId, title: 'Kept' })).body.id;
      const response = await planner.delete(`planner/element/${id}`);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect((await load(id)).metadata).toEqual({ title: 'Kept' });
      expect(await storedElement(id)).toBeUndefined();
      expect((await planner.delete(`planner/element/${id}`)).status).toBe(404);
      expect((await planner.put('planner/element', { id: elementId })).status).toBe(404);
      // Linked anew, the element may name the same document again.
      const relinked = await planner.post('planner/element', { id: elementId, documentId: id });
      expect(relinked.status).toBe(200);
    });
  });

  describe('versions', () => {
    it('when legacy-planner is used in v1, beta or 2025-03, then it works like planner', async () => {
      for (const version of ['v1', 'beta', '2025-03']) {
        const legacy = planner.withVersion(version);
        const created = await legacy.post('legacy-planner/element', { id: nextElementId(), title: version });
        expect([version, created.status]).toEqual([version, 201]);
        const updated = await legacy.put(`legacy-planner/element/${created.body.id}`, {
          title: `${version}!`,
        });
        expect(updated.status).toBe(200);
        expect((await load(created.body.id)).metadata).toEqual({ title: `${version}!` });
        expect((await legacy.delete(`legacy-planner/element/${created.body.id}`)).status).toBe(204);
      }
    });

    it('when legacy-planner is used from 2025-05 on, then the plain 404 of an unknown route, token or not', async () => {
      for (const version of ['2025-05', '2025-07', '2026-01', '2026-03']) {
        const response = await planner.withVersion(version).post('legacy-planner/element', { id: 'x' });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({
          status: 404,
          error: 'Not Found',
          error_details: { url: `/api/${version}/legacy-planner/element` },
        });
        const anonymous = await apiClient(app.url, undefined, version).delete('legacy-planner/element/1');
        expect(anonymous.body.error_details).toEqual({ url: `/api/${version}/legacy-planner/element/1` });
      }
    });

    it('when planner is used in v1 and 2025-03, then it exists there too', async () => {
      for (const version of ['v1', '2025-03', '2025-05']) {
        const created = await planner.withVersion(version).post('planner/element', { id: nextElementId() });
        expect([version, created.status]).toEqual([version, 201]);
      }
    });
  });
});
