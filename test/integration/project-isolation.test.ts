import { importDocumentsNow } from '../../src/commands/import-documents';
import { documentListQueries } from '../../src/db/queries/document-lists';
import { ApiVersion } from '../../src/domain/api-versions';
import type { Content, Metadata } from '../../src/domain/content';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

/**
 * Project isolation of references: project A's documents point at project B's document, list and media entry
 * (document and media ids are only unique per project), stored as old data may hold them (straight in the
 * database) and as an import before 2026-01 stores them (as sent). Whatever A reads resolves nothing of B, and
 * B's incoming references never list A's documents.
 */
describe('references to another project', () => {
  const SECRET = 'B-SECRET';
  let app: TestApp;
  let a: { projectId: number; channelId: number };
  let b: { projectId: number; channelId: number };
  let aApi: ReturnType<typeof apiClient>;
  let bApi: ReturnType<typeof apiClient>;
  let theirs: number;
  let theirList: number;
  /** A's documents that reference B's: written in the database, and imported (2025-11). */
  let fromDatabase: number;
  let fromImport: number;
  let aList: number;

  const foreignMetadata = (): Metadata => ({
    title: 'A document of A',
    related: { $ref: 'document', reference: { id: String(theirs) } },
    more: { $ref: 'documents', references: [{ id: String(theirs) }] },
    picture: { $ref: 'mediaLibrary', reference: { id: 'shared' } },
  });
  const foreignContent = (): Content =>
    [
      {
        id: 'link',
        component: 'link-box',
        identifier: 'test-design.link-box',
        content: { link: { $ref: 'document', reference: { id: String(theirs) }, href: '/x' }, text: 'L' },
      },
      {
        id: 'include',
        component: 'embed',
        identifier: 'test-design.embed',
        content: {
          teaser: {
            service: 'teaser',
            params: {
              doc: { $ref: 'document', reference: { id: String(theirs) } },
              docs: { $ref: 'documents', references: [{ id: String(theirs) }] },
              mediaId: theirs,
            },
          },
        },
      },
      {
        id: 'list',
        component: 'embed',
        identifier: 'test-design.embed',
        content: {
          teaser: {
            service: 'teaser-list',
            params: { list: { $ref: 'list', reference: { id: theirList } } },
          },
        },
      },
      {
        id: 'image',
        component: 'image',
        identifier: 'test-design.image',
        content: { image: { $ref: 'mediaLibrary', reference: { id: 'shared' } } },
      },
    ] as Content;

  beforeAll(async () => {
    app = await startTestApp();
    a = await createTestProject(app.ctx);
    b = await createTestProject(app.ctx);
    aApi = apiClient(app.url, (await tokenFor(app.ctx, a.projectId)).token);
    bApi = apiClient(app.url, (await tokenFor(app.ctx, b.projectId)).token);

    ({ documentId: theirs } = await createPublishedDocument(app.ctx, b.projectId, {
      metadata: { title: `${SECRET} title`, description: `${SECRET} description` },
      content: [
        { id: 'p', component: 'paragraph', identifier: 'test-design.paragraph', content: { text: SECRET } },
      ] as Content,
    }));
    theirList = await documentListQueries(app.ctx.pool).replace(b.projectId, 'theirs', [theirs]);
    // The same media id in both projects: B's entry is another entry than A's.
    for (const [project, title] of [
      [a.projectId, 'A picture'],
      [b.projectId, `${SECRET} picture`],
    ] as const) {
      await app.ctx.pool.query(
        `INSERT INTO media_entries (project_id, id, media_type, asset, metadata)
         VALUES ($1, 'shared', 'image', $2, $3)`,
        [
          project,
          JSON.stringify({
            key: `${project}/shared.png`,
            filename: 'shared.png',
            mimeType: 'image/png',
            size: 1,
          }),
          JSON.stringify({ title }),
        ],
      );
    }

    ({ documentId: fromDatabase } = await createPublishedDocument(app.ctx, a.projectId, {
      metadata: foreignMetadata(),
      content: foreignContent(),
    }));
    const imported = await importDocumentsNow(app.ctx, a.projectId, ApiVersion.parse('2025-11')!, {
      systemName: 'isolation',
      documents: [
        {
          id: 'ext-1',
          contentType: 'regular',
          metadata: foreignMetadata(),
          content: foreignContent(),
          flags: { autoPublish: true },
        },
      ],
    });
    expect(imported.logs.map((log) => log.state)).toEqual(['published']);
    fromImport = imported.logs[0]!.document_id!;
    // A's list holding B's document, as old data (or a write that skipped the check) could.
    aList = await documentListQueries(app.ctx.pool).replace(a.projectId, 'mixed', [theirs, fromDatabase]);
  });
  afterAll(async () => {
    await app.close();
  });

  const sources = () => [fromDatabase, fromImport];

  it('when A composes its document with every field, preloads and includes, then nothing of B resolves', async () => {
    for (const documentId of sources()) {
      const response = await aApi.post(`composition/${documentId}`, {
        fields: ['systemdata', 'metadata', 'content', 'html', 'includes', 'design'],
        metadata: { preload: { related: true, more: true, picture: true } },
        resolveIncludes: true,
        renderOptions: { renderDirectiveInfo: true },
      });
      expect(response.status).toBe(200);
      expect(response.body.metadata.related).toEqual({
        $ref: 'document',
        reference: { id: String(theirs) },
        isPreloaded: false,
      });
      expect(response.body.metadata.more).toEqual({
        $ref: 'documents',
        references: [{ id: String(theirs), isPreloaded: false }],
      });
      expect(response.body.includes).toEqual([
        { componentId: 'include', directiveName: 'teaser', resolvedValue: { content: [] } },
        { componentId: 'list', directiveName: 'teaser', resolvedValue: { content: [] } },
      ]);
      expect(response.text).not.toContain(SECRET);
    }
  });

  it('when A reads its publications, draft and references, in any version, then only ids of B show, never its content', async () => {
    for (const documentId of sources()) {
      const reads = [
        aApi.get(`documents/${documentId}/latestPublication`),
        aApi.get(`documents/${documentId}/latestDraft`),
        aApi.withVersion('2025-07').get(`documents/${documentId}/latestPublication?renditions=web`),
        aApi.withVersion('2025-07').get(`documents/${documentId}/latestPublication/renditions/web,html`),
        aApi.withVersion('2025-07').get(`documents/${documentId}/latestDraft?renditions=web`),
        aApi.get(
          `documents/latestPublications?id=${documentId}&fields=systemdata,metadata,content,references`,
        ),
      ];
      for (const response of await Promise.all(reads)) {
        expect(response.status).toBe(200);
        expect(response.text).not.toContain(SECRET);
      }
      const publication = await aApi.get(`documents/${documentId}/latestPublication`);
      // The references field names what A's metadata points at, as stored: an id, unresolved.
      // (In the order Postgres keeps metadata keys: shortest first.)
      expect(publication.body.references).toEqual([
        { id: String(theirs), type: 'document', location: 'metadata', propertyName: 'more' },
        { id: String(theirs), type: 'document', location: 'metadata', propertyName: 'related' },
      ]);
    }
  });

  it("when A reads its list holding B's document, then B's document is left out, in the list and its include", async () => {
    const list = await aApi.get(`document-lists/${aList}?fields=systemdata,metadata,content`);
    expect(list.status).toBe(200);
    expect(
      list.body.documents.map((doc: { systemdata: { documentId: number } }) => doc.systemdata.documentId),
    ).toEqual([fromDatabase]);
    expect(list.text).not.toContain(SECRET);
    const lists = await aApi.get('document-lists?limit=100');
    expect(lists.text).not.toContain(SECRET);

    const { documentId } = await createPublishedDocument(app.ctx, a.projectId, {
      content: [
        {
          id: 'own-list',
          component: 'embed',
          identifier: 'test-design.embed',
          content: { teaser: { service: 'teaser-list', params: { listId: aList } } },
        },
      ] as Content,
    });
    const composed = await aApi.post(`composition/${documentId}`, {
      fields: ['includes'],
      resolveIncludes: true,
    });
    const teased = composed.body.includes[0].resolvedValue.content.map(
      (item: { content: { documentId: number } }) => item.content.documentId,
    );
    expect(teased).toEqual([fromDatabase]);
    expect(composed.text).not.toContain(SECRET);
  });

  it("when B reads the incoming references of its document and media entry, then A's documents are never listed", async () => {
    for (const path of [
      `documents/${theirs}/incomingDocumentReferences`,
      `drafts/${theirs}/incomingDocumentReferences`,
      `documents/${theirs}/incomingMediaReferences`,
      'mediaLibrary/shared/incomingDocumentReferences',
      'mediaLibrary/shared/incomingMediaReferences',
    ]) {
      const response = await bApi.get(path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ results: [], total: 0, cursor: '' });
    }
    // A asking about B's document learns nothing of it (404, as for no document).
    for (const path of [
      `documents/${theirs}/incomingDocumentReferences`,
      `drafts/${theirs}/incomingDocumentReferences`,
      `documents/${theirs}/incomingMediaReferences`,
    ]) {
      expect((await aApi.get(path)).status).toBe(404);
    }
    // A's own entry 'shared' is what A's documents point at.
    const own = await aApi.get('mediaLibrary/shared/incomingDocumentReferences');
    expect(own.body.results.map((item: { id: number }) => item.id)).toEqual(sources());
    expect(own.text).not.toContain(SECRET);
  });

  it("when A reads its media entry of the id B's entry also has, then it is A's", async () => {
    const entry = await aApi.get('mediaLibrary/shared');
    expect(entry.status).toBe(200);
    expect(entry.body.metadata).toEqual({ title: 'A picture' });
    const listed = await aApi.get('mediaLibrary?ids=shared');
    expect(listed.text).not.toContain(SECRET);
  });
});
