import { importDocumentsNow } from '../../src/commands/import-documents';
import { ApiVersion } from '../../src/domain/api-versions';
import type { Content } from '../../src/domain/content';
import { incomingCursorSignature } from '../../src/domain/incoming-references';
import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';
import { noisePng } from '../helpers/image-server';
import { localFolderBackend, type StoreBackend } from '../helpers/object-stores';

/**
 * GET documents/{id}/incomingDocumentReferences, documents/{id}/incomingMediaReferences and
 * drafts/{id}/incomingDocumentReferences (api-spec §2.9, §4.12, §4.13, §4.18, §4.20).
 */
describe('incoming references', () => {
  let app: TestApp;
  let project: { projectId: number; channelId: number };
  let other: { projectId: number; channelId: number };
  /** Scopes public-api:read, write and drafts:read: every endpoint of this file and the commands. */
  let api: ReturnType<typeof apiClient>;
  let otherApi: ReturnType<typeof apiClient>;
  let token: string;
  let otherToken: string;
  let media: StoreBackend;
  let png: Buffer;

  const ENDPOINTS = [
    'documents/{id}/incomingDocumentReferences',
    'documents/{id}/incomingMediaReferences',
    'drafts/{id}/incomingDocumentReferences',
  ];
  const at = (endpoint: string, id: number | string, query = '') =>
    `${endpoint.replace('{id}', String(id))}${query}`;

  const authorsRef = (...ids: number[]) => ({
    $ref: 'documents',
    references: ids.map((id) => ({ id: String(id) })),
  });
  const linkAndInclude = (target: number): Content =>
    [
      {
        id: 'doc-link',
        component: 'link-box',
        identifier: 'test-design.link-box',
        content: { link: { $ref: 'document', reference: { id: String(target) }, href: '/a' }, text: 'Link' },
      },
      {
        id: 'doc-embed',
        component: 'embed',
        identifier: 'test-design.embed',
        content: {
          teaser: { service: 'teaser', params: { doc: { $ref: 'document', reference: { id: target } } } },
        },
      },
    ] as Content;

  const publishedWith = (input: { metadata?: Record<string, unknown>; content?: Content }) =>
    createPublishedDraft(app.ctx, { ...project, content: [], ...input });
  /** A media entry imported the way a client does: a PNG uploaded, then POST import/mediaLibrary naming it. */
  const importMedia = async (
    token: string,
    id: string,
    metadata: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => {
    const uploaded = await fetch(`${app.url}/api/2026-03/mediaLibrary/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      body: png,
    });
    expect(uploaded.status).toBe(201);
    const { uploadId } = (await uploaded.json()) as { uploadId: string };
    const response = await apiClient(app.url, token).post('import/mediaLibrary', {
      mediaLibraryEntries: [{ id, mediaType: 'image', asset: { uploadId }, metadata, ...extra }],
    });
    expect(response.body.results[0]).toMatchObject({ ok: true, id });
  };

  beforeAll(async () => {
    media = await localFolderBackend();
    app = await startTestApp({ env: media.env });
    png = await noisePng(8, 6);
    project = await createTestProject(app.ctx);
    other = await createTestProject(app.ctx);
    token = (await tokenFor(app.ctx, project.projectId)).token;
    otherToken = (await tokenFor(app.ctx, other.projectId)).token;
    api = apiClient(app.url, token);
    otherApi = apiClient(app.url, otherToken);
  });
  afterAll(async () => {
    await app.close();
    await media.dispose();
  });

  describe('access and input', () => {
    it('when no token is sent, then 401; without the scope of the endpoint, then 403', async () => {
      const target = await publishedWith({});
      for (const endpoint of ENDPOINTS) {
        expect((await apiClient(app.url).get(at(endpoint, target.id))).status).toBe(401);
      }
      const writeOnly = apiClient(
        app.url,
        (await tokenFor(app.ctx, project.projectId, ['public-api:write'])).token,
      );
      for (const endpoint of ENDPOINTS) {
        const response = await writeOnly.get(at(endpoint, target.id));
        expect(response.status).toBe(403);
        expect(response.body).toEqual(
          envelope(403, 'Forbidden', { access_token: 'The request requires higher privileges' }),
        );
      }
      // documents/ reads need public-api:read; drafts/ needs public-api:drafts:read (supplement §2).
      const read = apiClient(
        app.url,
        (await tokenFor(app.ctx, project.projectId, ['public-api:read'])).token,
      );
      expect((await read.get(at(ENDPOINTS[0]!, target.id))).status).toBe(200);
      expect((await read.get(at(ENDPOINTS[1]!, target.id))).status).toBe(200);
      expect((await read.get(at(ENDPOINTS[2]!, target.id))).status).toBe(403);
      const drafts = apiClient(
        app.url,
        (await tokenFor(app.ctx, project.projectId, ['public-api:drafts:read'])).token,
      );
      expect((await drafts.get(at(ENDPOINTS[2]!, target.id))).status).toBe(200);
      expect((await drafts.get(at(ENDPOINTS[0]!, target.id))).status).toBe(403);
    });

    it('when a parameter is invalid or unknown, then 400 naming it, on every endpoint', async () => {
      const target = await publishedWith({});
      for (const endpoint of ENDPOINTS) {
        const badId = await api.get(at(endpoint, 'abc'));
        expect(badId.status).toBe(400);
        expect(badId.body).toEqual(
          envelope(400, 'Bad Request', { documentId: 'must be a positive integer' }),
        );
        const hugeId = await api.get(at(endpoint, '99999999999999999999'));
        expect(hugeId.status).toBe(400);
        expect(hugeId.body.error_details).toHaveProperty(['documentId']);
        const zero = await api.get(at(endpoint, 0));
        expect(zero.status).toBe(400);

        const bad = await api.get(at(endpoint, target.id, '?limit=101&offset=-1&nope=1'));
        expect(bad.status).toBe(400);
        expect(bad.body.error_details).toEqual({
          name: 'ValidationError',
          limit: 'must be <= 100',
          offset: 'must be >= 0',
          nope: 'is not allowed',
        });
        const notNumbers = await api.get(at(endpoint, target.id, '?limit=ten&offset=10001'));
        expect(notNumbers.status).toBe(400);
        expect(notNumbers.body.error_details).toEqual({
          name: 'ValidationError',
          limit: 'must be an integer',
          offset: 'must be <= 10000',
        });
      }
    });

    it('when after is sent before 2026-01, is not a cursor of the endpoint, or comes with offset, then 400 on after', async () => {
      const target = await publishedWith({});
      for (const endpoint of ENDPOINTS) {
        const old = await api.withVersion('2025-11').get(at(endpoint, target.id, '?after=abc'));
        expect(old.status).toBe(400);
        expect(old.body.error_details.after).toMatch(/not available in API version 2025-11/);
        const forged = await api.get(at(endpoint, target.id, '?after=bm90LWEtY3Vyc29y'));
        expect(forged.status).toBe(400);
        expect(forged.body.error_details.after).toMatch(/invalid cursor/);
        const empty = await api.get(at(endpoint, target.id, '?after='));
        expect(empty.status).toBe(400);
        expect(empty.body.error_details).toHaveProperty(['after']);
      }
      // A real cursor, of a search: signed by this server, but for another endpoint.
      const searchCursor = app.ctx.cursors.encode([target.id], '-sortDate,-documentId');
      const foreign = await api.get(at(ENDPOINTS[0]!, target.id, `?after=${searchCursor}`));
      expect(foreign.status).toBe(400);
      expect(foreign.body.error_details.after).toMatch(/invalid cursor/);
      // A cursor of drafts/ is not one of documents/, for the same document.
      const draftCursor = app.ctx.cursors.encode(
        [1],
        incomingCursorSignature('incomingDocumentReferences:draft', target.id),
        project.projectId,
      );
      const crossed = await api.get(at(ENDPOINTS[0]!, target.id, `?after=${draftCursor}`));
      expect(crossed.status).toBe(400);
      const ownSignature = incomingCursorSignature('incomingDocumentReferences:publication', target.id);
      const valid = app.ctx.cursors.encode([1], ownSignature, project.projectId);
      const both = await api.get(at(ENDPOINTS[0]!, target.id, `?after=${valid}&offset=1`));
      expect(both.status).toBe(400);
      expect(both.body.error_details.after).toMatch(/use after or offset, not both/);
      // A signed cursor of this list whose value is not a document id.
      const wrongKey = app.ctx.cursors.encode(['m-1'], ownSignature, project.projectId);
      const wrong = await api.get(at(ENDPOINTS[0]!, target.id, `?after=${wrongKey}`));
      expect(wrong.status).toBe(400);
      expect(wrong.body.error_details.after).toMatch(/not issued by this endpoint/);
    });

    it('when the cursor of one document’s list is sent for another document, then 400 on after, nothing paged', async () => {
      const [first, second] = [await publishedWith({}), await publishedWith({})];
      // Both documents are pointed at by one published document, and first's drafts also by a draft.
      await publishedWith({ metadata: { authors: authorsRef(first.id, second.id) } });
      await createDraftDocument(app.ctx, { ...project, metadata: { authors: authorsRef(first.id) } });
      const otherList =
        'invalid cursor: it was issued for another list (the endpoint and its document must stay those of the ' +
        'first page); start again without after';
      for (const endpoint of [ENDPOINTS[0]!, ENDPOINTS[2]!]) {
        const page = await api.get(at(endpoint, first.id, '?limit=1'));
        expect(page.body.cursor).toEqual(expect.any(String));
        const onFirst = await api.get(at(endpoint, first.id, `?limit=1&after=${page.body.cursor}`));
        expect(onFirst.status).toBe(200);
        const onSecond = await api.get(at(endpoint, second.id, `?limit=1&after=${page.body.cursor}`));
        expect(onSecond.status).toBe(400);
        expect(onSecond.body).toEqual(envelope(400, 'Bad Request', { after: otherList }));
      }
      // incomingMediaReferences signs its cursors with the document as well.
      const mediaSignature = (id: number) => incomingCursorSignature('incomingMediaReferences:document', id);
      const mediaCursor = app.ctx.cursors.encode(['m-1'], mediaSignature(first.id), project.projectId);
      expect((await api.get(at(ENDPOINTS[1]!, first.id, `?after=${mediaCursor}`))).status).toBe(200);
      const crossed = await api.get(at(ENDPOINTS[1]!, second.id, `?after=${mediaCursor}`));
      expect(crossed.status).toBe(400);
      expect(crossed.body.error_details.after).toBe(otherList);
      // A cursor issued before cursors named their document says nowhere which one it pages: refused.
      const unbound = app.ctx.cursors.encode([1], 'incomingDocumentReferences:publication');
      expect((await api.get(at(ENDPOINTS[0]!, first.id, `?after=${unbound}`))).body.error_details.after).toBe(
        otherList,
      );
      // Nor one that names no project, or another project: the list is the project's.
      const signature = incomingCursorSignature('incomingDocumentReferences:publication', first.id);
      const noProject = app.ctx.cursors.encode([1], signature);
      expect(
        (await api.get(at(ENDPOINTS[0]!, first.id, `?after=${noProject}`))).body.error_details.after,
      ).toBe(otherList);
      const otherProject = await api.get(
        at(ENDPOINTS[0]!, first.id, `?after=${app.ctx.cursors.encode([1], signature, other.projectId)}`),
      );
      expect(otherProject.body).toEqual(
        envelope(400, 'Bad Request', {
          after: 'invalid cursor: it was issued for another project; start again without after',
        }),
      );
    });

    it('when the document is unknown or another project’s, then 404 on every endpoint, whatever points at it', async () => {
      const mine = await publishedWith({});
      await publishedWith({ metadata: { authors: authorsRef(mine.id) } });
      for (const endpoint of ENDPOINTS) {
        const unknown = await api.get(at(endpoint, 987654321));
        expect(unknown.status).toBe(404);
        expect(unknown.body).toEqual(envelope(404, 'Not Found', { name: 'NotFound' }));
        // The other project's token never sees this project's document, nor what points at it.
        const foreign = await otherApi.get(at(endpoint, mine.id));
        expect(foreign.status).toBe(404);
        expect(foreign.body).toEqual(envelope(404, 'Not Found', { name: 'NotFound' }));
        expect(foreign.text).not.toContain('references');
      }
    });

    it('when the document is not published, then documents/ is 404 and drafts/ answers', async () => {
      const target = await createDraftDocument(app.ctx, { ...project, content: [] });
      await createDraftDocument(app.ctx, {
        ...project,
        content: [],
        metadata: { authors: authorsRef(target.id) },
      });
      expect((await api.get(at(ENDPOINTS[0]!, target.id))).status).toBe(404);
      expect((await api.get(at(ENDPOINTS[1]!, target.id))).status).toBe(404);
      const drafts = await api.get(at(ENDPOINTS[2]!, target.id));
      expect(drafts.status).toBe(200);
      expect(drafts.body.results).toHaveLength(1);
    });
  });

  describe('documents pointing at a document', () => {
    let target: number;
    let viaMetadata: number;
    let viaContent: number;
    let draftOnly: number;

    beforeAll(async () => {
      target = (await publishedWith({})).id;
      viaMetadata = (await publishedWith({ metadata: { title: 'B', authors: authorsRef(target, 1) } })).id;
      viaContent = (await publishedWith({ content: linkAndInclude(target) })).id;
      draftOnly = (
        await createDraftDocument(app.ctx, {
          ...project,
          content: [],
          metadata: { authors: authorsRef(target) },
        })
      ).id;
      // Another project's document naming the same id: a different document, never counted here.
      await createPublishedDraft(app.ctx, {
        ...other,
        content: [],
        metadata: { authors: authorsRef(target) },
      });
    });

    const metadataItem = () => ({
      id: viaMetadata,
      references: [{ id: String(target), location: 'metadata', propertyName: 'authors', type: 'document' }],
    });
    const contentItem = () => ({
      id: viaContent,
      references: [
        {
          componentId: 'doc-embed',
          componentName: 'embed',
          directiveName: 'teaser',
          id: String(target),
          location: 'include-directive',
          propertyName: 'doc',
          serviceName: 'teaser',
          type: 'document',
        },
        {
          componentId: 'doc-link',
          componentName: 'link-box',
          directiveName: 'link',
          id: String(target),
          location: 'link-directive',
          type: 'document',
        },
      ],
    });

    it('when asked up to 2025-11, then a bare array of the published referrers in ascending id with every reference', async () => {
      const response = await api.withVersion('2025-11').get(at(ENDPOINTS[0]!, target));
      expect(response.status).toBe(200);
      expect(response.body).toEqual([metadataItem(), contentItem()]);
      const v1 = await api.withVersion('v1').get(at(ENDPOINTS[0]!, target));
      expect(v1.body).toEqual([metadataItem(), contentItem()]);
    });

    it('when asked from 2026-01, then {results, total, cursor}; the cursor pages on until a short page', async () => {
      const all = await api.withVersion('2026-01').get(at(ENDPOINTS[0]!, target));
      expect(all.body).toEqual({ results: [metadataItem(), contentItem()], total: 2, cursor: '' });

      const first = await api.get(at(ENDPOINTS[0]!, target, '?limit=1'));
      expect(first.body).toEqual({ results: [metadataItem()], total: 2, cursor: expect.any(String) });
      const second = await api.get(at(ENDPOINTS[0]!, target, `?limit=1&after=${first.body.cursor}`));
      expect(second.body).toEqual({ results: [contentItem()], total: 2, cursor: expect.any(String) });
      const third = await api.get(at(ENDPOINTS[0]!, target, `?limit=1&after=${second.body.cursor}`));
      expect(third.body).toEqual({ results: [], total: 2, cursor: '' });
    });

    it('when limit and offset are given, then that page; limit=0 gives none and the total', async () => {
      const page = await api.withVersion('2025-03').get(at(ENDPOINTS[0]!, target, '?limit=1&offset=1'));
      expect(page.body).toEqual([contentItem()]);
      const past = await api.withVersion('2025-03').get(at(ENDPOINTS[0]!, target, '?offset=5'));
      expect(past.body).toEqual([]);
      const none = await api.get(at(ENDPOINTS[0]!, target, '?limit=0'));
      expect(none.body).toEqual({ results: [], total: 2, cursor: '' });
    });

    it('when asked through drafts/, then the published references and the current drafts’ too, unpublished documents included', async () => {
      const response = await api.get(at(ENDPOINTS[2]!, target));
      expect(response.status).toBe(200);
      expect(response.body.total).toBe(3);
      expect(response.body.results.map((item: { id: number }) => item.id)).toEqual([
        viaMetadata,
        viaContent,
        draftOnly,
      ]);
      expect(response.body.results[2]).toEqual({
        id: draftOnly,
        references: [{ id: String(target), location: 'metadata', propertyName: 'authors', type: 'document' }],
      });
      const paged = await api.get(at(ENDPOINTS[2]!, target, '?limit=2'));
      const rest = await api.get(at(ENDPOINTS[2]!, target, `?limit=2&after=${paged.body.cursor}`));
      expect(rest.body.results.map((item: { id: number }) => item.id)).toEqual([draftOnly]);
      expect(rest.body.cursor).toBe('');
    });
  });

  describe('kept current by every write, in its transaction', () => {
    const ids = async (endpoint: string, target: number) =>
      ((await api.get(at(endpoint, target))).body.results as { id: number }[]).map((item) => item.id);

    it('when a command changes a draft, then drafts/ follows at once and documents/ only once it is published', async () => {
      const target = (await publishedWith({})).id;
      const source = (await publishedWith({ metadata: { title: 'S' } })).id;
      const command = (commands: unknown[]) => api.patch(`documents/${source}/commands`, { commands });
      expect(await ids(ENDPOINTS[2]!, target)).toEqual([]);

      const added = await command([
        { operation: 'setMetadataProperty', propertyName: 'authors', value: authorsRef(target) },
      ]);
      expect(added.status).toBe(204);
      expect(await ids(ENDPOINTS[2]!, target)).toEqual([source]);
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([]);

      expect((await command([{ operation: 'publish' }])).status).toBe(204);
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([source]);
      // The same reference in the draft and the publication is one reference.
      expect((await api.get(at(ENDPOINTS[2]!, target))).body.results).toEqual([
        {
          id: source,
          references: [
            { id: String(target), location: 'metadata', propertyName: 'authors', type: 'document' },
          ],
        },
      ]);

      // Removed from the draft only: the publication still points at it, and drafts/ shows that too.
      const removed = await command([
        { operation: 'setMetadataProperty', propertyName: 'authors', value: null },
      ]);
      expect(removed.status).toBe(204);
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([source]);
      expect(await ids(ENDPOINTS[2]!, target)).toEqual([source]);

      expect((await command([{ operation: 'publish' }])).status).toBe(204);
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([]);
      expect(await ids(ENDPOINTS[2]!, target)).toEqual([]);
    });

    it('when the referring document is unpublished, then it leaves documents/ and stays in drafts/', async () => {
      const target = (await publishedWith({})).id;
      const source = (await publishedWith({ content: linkAndInclude(target) })).id;
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([source]);
      const response = await api.patch(`documents/${source}/commands`, {
        commands: [{ operation: 'unpublish' }],
      });
      expect(response.status).toBe(204);
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([]);
      expect(await ids(ENDPOINTS[2]!, target)).toEqual([source]);
    });

    it('when a command fails, then nothing of it is seen: the references are those before it', async () => {
      const target = (await publishedWith({})).id;
      const source = (await publishedWith({ metadata: { authors: authorsRef(target) } })).id;
      const failed = await api.patch(`documents/${source}/commands`, {
        version: 999,
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'authors', value: null },
          { operation: 'publish' },
        ],
      });
      expect(failed.status).toBe(409);
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([source]);
      expect(await ids(ENDPOINTS[2]!, target)).toEqual([source]);
    });

    it('when an import creates, updates and publishes a document, then its references follow', async () => {
      const target = (await publishedWith({})).id;
      const version = ApiVersion.parse('2025-11')!;
      const importOne = (metadata: Record<string, unknown>, autoPublish: boolean) =>
        importDocumentsNow(app.ctx, project.projectId, version, {
          systemName: 'refs-test',
          documents: [{ id: 'ext-1', contentType: 'regular', content: [], metadata, flags: { autoPublish } }],
        });
      const created = await importOne({ title: 'Imported', authors: authorsRef(target) }, false);
      const documentId = created.logs[0]!.document_id!;
      expect(created.logs[0]!.state).toBe('imported');
      expect(await ids(ENDPOINTS[2]!, target)).toEqual([documentId]);
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([]);

      await importOne({ title: 'Imported', authors: authorsRef(target) }, true);
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([documentId]);

      await importOne({ title: 'Imported without authors' }, true);
      expect(await ids(ENDPOINTS[0]!, target)).toEqual([]);
      expect(await ids(ENDPOINTS[2]!, target)).toEqual([]);
    });
  });

  describe('media entries pointing at a document', () => {
    let target: number;

    beforeAll(async () => {
      target = (await publishedWith({})).id;
      await importMedia(token, 'm-b', {
        credit: { $ref: 'documents', references: [{ id: target }, { id: 1 }] },
      });
      await importMedia(
        token,
        'm-a',
        {
          title: 'photo',
          source: { $ref: 'document', reference: { id: String(target) } },
        },
        // A translation's metadata counts as the entry's: one reference per property all the same.
        {
          translations: [
            {
              locale: 'de',
              metadata: {
                photographer: { $ref: 'document', reference: { id: String(target) } },
                source: { $ref: 'document', reference: { id: String(target) } },
              },
            },
          ],
        },
      );
      await importMedia(token, 'm-c', { title: `mentions ${target} in text only`, id: target });
      await importMedia(otherToken, 'm-0', {
        photographer: { $ref: 'document', reference: { id: String(target) } },
      });
    });

    const itemA = () => ({
      id: 'm-a',
      references: [
        { id: String(target), location: 'metadata', propertyName: 'photographer', type: 'document' },
        { id: String(target), location: 'metadata', propertyName: 'source', type: 'document' },
      ],
    });
    const itemB = () => ({
      id: 'm-b',
      references: [{ id: String(target), location: 'metadata', propertyName: 'credit', type: 'document' }],
    });

    it('when asked up to 2025-11, then a bare array of the project’s entries in id order', async () => {
      const response = await api.withVersion('2025-11').get(at(ENDPOINTS[1]!, target));
      expect(response.status).toBe(200);
      expect(response.body).toEqual([itemA(), itemB()]);
    });

    it('when asked from 2026-01, then {results, total, cursor}, and the cursor continues after the last entry', async () => {
      const first = await api.get(at(ENDPOINTS[1]!, target, '?limit=1'));
      expect(first.body).toEqual({ results: [itemA()], total: 2, cursor: expect.any(String) });
      const second = await api.get(at(ENDPOINTS[1]!, target, `?limit=1&after=${first.body.cursor}`));
      expect(second.body).toEqual({ results: [itemB()], total: 2, cursor: expect.any(String) });
      const end = await api.get(at(ENDPOINTS[1]!, target, `?limit=1&after=${second.body.cursor}`));
      expect(end.body).toEqual({ results: [], total: 2, cursor: '' });
      const offset = await api.get(at(ENDPOINTS[1]!, target, '?offset=1'));
      expect(offset.body).toEqual({ results: [itemB()], total: 2, cursor: '' });
      // A document cursor is not a media cursor.
      const documentCursor = app.ctx.cursors.encode(
        [1],
        incomingCursorSignature('incomingDocumentReferences:publication', target),
        project.projectId,
      );
      expect((await api.get(at(ENDPOINTS[1]!, target, `?after=${documentCursor}`))).status).toBe(400);
    });

    it('when an entry’s metadata changes, then the next read says so', async () => {
      const doc = (await publishedWith({})).id;
      await importMedia(token, 'm-x', { about: { $ref: 'document', reference: { id: doc } } });
      expect((await api.get(at(ENDPOINTS[1]!, doc))).body.total).toBe(1);
      const patched = await api.patch('mediaLibrary/m-x', {
        patches: [{ operation: 'setMetadata', metadata: {} }],
      });
      expect(patched.status).toBe(200);
      expect((await api.get(at(ENDPOINTS[1]!, doc))).body).toEqual({ results: [], total: 0, cursor: '' });
    });
  });
});
