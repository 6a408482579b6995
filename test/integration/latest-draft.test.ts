import type { Content } from '../../src/domain/content';
import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

describe('GET documents/{documentId}/latestDraft', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let project: { projectId: number; channelId: number };

  const conditional: Content = [
    {
      id: 'doc-always',
      component: 'paragraph',
      identifier: 'test-design.paragraph',
      content: { text: 'always' },
    },
    {
      id: 'doc-ch',
      component: 'paragraph',
      identifier: 'test-design.paragraph',
      content: { text: 'ch only' },
      conditions: { brands: ['ch'] },
    },
    {
      id: 'doc-2020',
      component: 'paragraph',
      identifier: 'test-design.paragraph',
      content: { text: 'in 2020' },
      conditions: { dateTime: { gte: '2020-01-01T00:00:00Z', lt: '2021-01-01T00:00:00Z' } },
    },
  ] as Content;

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId)).token);
  });
  afterAll(async () => {
    await app.close();
  });

  it('when no token is sent, then 401; without write and drafts:read both, then 403', async () => {
    const doc = await createDraftDocument(app.ctx, project);
    expect((await apiClient(app.url).get(`documents/${doc.id}/latestDraft`)).status).toBe(401);
    for (const scopes of [
      ['public-api:read'],
      ['public-api:write'],
      ['public-api:read', 'public-api:drafts:read'],
    ]) {
      const { token } = await tokenFor(app.ctx, project.projectId, scopes);
      const response = await apiClient(app.url, token).get(`documents/${doc.id}/latestDraft`);
      expect(response.status).toBe(403);
    }
    const { token } = await tokenFor(app.ctx, project.projectId, [
      'public-api:write',
      'public-api:drafts:read',
    ]);
    expect((await apiClient(app.url, token).get(`documents/${doc.id}/latestDraft`)).status).toBe(200);
  });

  it('when a parameter is invalid, then 400 naming it', async () => {
    const doc = await createDraftDocument(app.ctx, project);
    const badJson = await api.get(`documents/${doc.id}/latestDraft?componentConditions={nope`);
    expect(badJson.status).toBe(400);
    expect(badJson.body.error_details).toHaveProperty(['componentConditions']);
    const badBool = await api.get(`documents/${doc.id}/latestDraft?ignoreComponentConditions=yes`);
    expect(badBool.status).toBe(400);
    expect(badBool.body.error_details).toHaveProperty(['ignoreComponentConditions']);
    const badField = await api.get(`documents/${doc.id}/latestDraft?fields=systemdata,secrets`);
    expect(badField.status).toBe(400);
    expect(badField.body.error_details).toHaveProperty(['fields']);
    const badId = await api.get('documents/x1/latestDraft');
    expect(badId.status).toBe(400);
    expect(badId.body.error_details).toHaveProperty(['documentId']);
  });

  it('when the document is unknown or another project’s, then 404 NotFound', async () => {
    const missing = await api.get('documents/987654321/latestDraft');
    expect(missing.status).toBe(404);
    expect(missing.body.error_details).toMatchObject({ name: 'NotFound' });
    const other = await createTestProject(app.ctx);
    const foreign = await createDraftDocument(app.ctx, other);
    expect((await api.get(`documents/${foreign.id}/latestDraft`)).status).toBe(404);
  });

  it('when a never-published draft is read, then it answers systemdata without publicationId, metadata, content and references', async () => {
    const target = await createDraftDocument(app.ctx, project);
    const doc = await createDraftDocument(app.ctx, {
      ...project,
      metadata: { title: 'Draft', authors: { $ref: 'documents', references: [{ id: String(target.id) }] } },
    });
    const response = await api.get(`documents/${doc.id}/latestDraft`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['content', 'metadata', 'references', 'systemdata']);
    expect(response.body.systemdata).toEqual({
      projectId: project.projectId,
      channelId: project.channelId,
      documentId: doc.id,
      documentType: 'article',
      contentType: 'regular',
      design: { name: 'test-design', version: '1.0.0' },
      updatedAt: doc.updatedAt.toISOString(),
      version: doc.version,
    });
    expect(response.body.metadata.title).toBe('Draft');
    expect(response.body.references).toEqual([
      { id: String(target.id), type: 'document', location: 'metadata', propertyName: 'authors' },
    ]);
  });

  it('when the draft changed after publishing, then latestDraft shows the change and no publicationId', async () => {
    const doc = await createPublishedDraft(app.ctx, project);
    const patched = await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'Edited after publish' }],
    });
    expect(patched.status).toBe(204);
    const response = await api.get(`documents/${doc.id}/latestDraft`);
    expect(response.body.metadata.title).toBe('Edited after publish');
    expect(response.body.systemdata).not.toHaveProperty('publicationId');
    expect(response.body.systemdata.firstPublicationDate).toBe(doc.firstPublicationDate!.toISOString());
  });

  it('when two editors send the version latestDraft answered, then the first edit wins and the second is a 409', async () => {
    const doc = await createPublishedDraft(app.ctx, project);
    const read = await api.get(`documents/${doc.id}/latestDraft`);
    const { version } = read.body.systemdata as { version: number };
    expect(version).toBe(doc.version);
    const edit = (title: string) =>
      api.patch(`documents/${doc.id}/commands`, {
        version,
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: title }],
      });
    const [first, second] = await Promise.all([edit('first'), edit('second')]);
    expect([first.status, second.status].sort()).toEqual([204, 409]);
    const loser = first.status === 409 ? first : second;
    expect(loser.body.error_details).toMatchObject({ expectedVersion: version, currentVersion: version + 1 });
    const after = await api.get(`documents/${doc.id}/latestDraft`);
    expect(after.body.systemdata.version).toBe(version + 1);
    expect(after.body.metadata.title).toBe(first.status === 204 ? 'first' : 'second');
    // A publication's systemdata has no version: it is the draft's.
    const live = await api.get(`documents/${doc.id}/latestPublication`);
    expect(live.body.systemdata).not.toHaveProperty('version');
  });

  it('when fields is given, then only those come back; v1 defaults leave references out', async () => {
    const doc = await createDraftDocument(app.ctx, project);
    const only = await api.get(`documents/${doc.id}/latestDraft?fields=metadata`);
    expect(Object.keys(only.body)).toEqual(['metadata']);
    const v1 = await api.withVersion('v1').get(`documents/${doc.id}/latestDraft`);
    expect(Object.keys(v1.body).sort()).toEqual(['content', 'metadata', 'systemdata']);
  });

  it('when component conditions apply, then the default brand and now decide; explicit conditions or ignore override', async () => {
    const doc = await createDraftDocument(app.ctx, { ...project, content: conditional });
    const ids = (body: { content: { id: string }[] }) => body.content.map((c) => c.id);

    const byDefault = await api.get(`documents/${doc.id}/latestDraft`);
    expect(ids(byDefault.body)).toEqual(['doc-always', 'doc-ch']);

    const conditions = encodeURIComponent(JSON.stringify({ dateTime: '2020-06-01T00:00:00Z', brand: 'de' }));
    const explicit = await api.get(`documents/${doc.id}/latestDraft?componentConditions=${conditions}`);
    expect(ids(explicit.body)).toEqual(['doc-always', 'doc-2020']);

    const ignored = await api.get(`documents/${doc.id}/latestDraft?ignoreComponentConditions=true`);
    expect(ids(ignored.body)).toEqual(['doc-always', 'doc-ch', 'doc-2020']);
  });

  it('when renditions are asked for up to 2025-07, then they come back; from 2025-09 the parameter is a 400', async () => {
    const doc = await createDraftDocument(app.ctx, project);
    const old = await api
      .withVersion('2025-07')
      .get(`documents/${doc.id}/latestDraft?renditions=web,unknown`);
    expect(old.status).toBe(200);
    expect(old.body.renditions).toHaveLength(1);
    expect(old.body.renditions[0].handle).toBe('web');
    expect(old.body.renditions[0].content).toContain('First');
    const gone = await api.withVersion('2025-09').get(`documents/${doc.id}/latestDraft?renditions=web`);
    expect(gone.status).toBe(400);
    expect(gone.body.error_details.renditions).toMatch(/only up to 2025-07/);
  });

  it('when an editor sets a text with a script and an event handler, then the 2025-07 rendition drops them (sites embed it as it is)', async () => {
    const doc = await createDraftDocument(app.ctx, project);
    const old = api.withVersion('2025-07');
    const text = 'Read <b>this</b><script>steal()</script><img src=x onerror="steal()">';
    const set = await old.patch(`documents/${doc.id}/commands`, {
      commands: [
        { operation: 'setEditableDirective', componentId: 'doc-para', directiveName: 'text', value: text },
      ],
    });
    expect(set.status).toBe(204);
    const response = await old.get(`documents/${doc.id}/latestDraft?renditions=web`);
    expect(response.status).toBe(200);
    const [rendition] = response.body.renditions;
    expect(rendition.content).toContain('<div data-directive="text">Read <b>this</b><img src="x" /></div>');
    expect(rendition.content).not.toMatch(/<script|onerror/);
  });
});
