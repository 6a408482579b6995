import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import type { Content } from '../../src/domain/content';

const para = (id: string, text: string, conditions?: Record<string, unknown>) => ({
  id,
  component: 'paragraph',
  identifier: 'test-design.paragraph',
  content: { text },
  ...(conditions ? { conditions } : {}),
});

const CONTENT = [
  para('doc-always', 'Always'),
  para('doc-future', 'From 2030', { dateTime: { gte: '2030-01-01T00:00:00Z' } }),
  para('doc-past', 'Until 2020', { dateTime: { lt: '2020-01-01T00:00:00Z' } }),
  para('doc-ch', 'Swiss only', { brands: ['ch'] }),
  para('doc-de', 'German only', { brands: ['de'] }),
  {
    id: 'doc-box',
    component: 'container',
    identifier: 'test-design.container',
    conditions: { brands: ['de'] },
    containers: { main: [para('doc-inner', 'Inside the German box')] },
  },
] as Content;

const ids = (content: { id: string }[]) => content.map((component) => component.id);

describe('GET documents/{documentId}/latestPublication', () => {
  let app: TestApp;
  let project: { projectId: number; channelId: number };
  let api: ReturnType<typeof apiClient>;
  let documentId: number;

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId)).token);
    const document = await createPublishedDraft(app.ctx, {
      ...project,
      metadata: { title: 'Conditions', authors: { $ref: 'documents', references: [{ id: '77' }] } },
      content: CONTENT,
    });
    documentId = document.id;
  });
  afterAll(async () => {
    await app.close();
  });

  it('when no token, a bad token or a token without public-api:read is used, then 401 and 403', async () => {
    expect((await apiClient(app.url).get(`documents/${documentId}/latestPublication`)).status).toBe(401);
    expect((await apiClient(app.url, 'bad').get(`documents/${documentId}/latestPublication`)).status).toBe(
      401,
    );
    const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:write']);
    const response = await apiClient(app.url, token).get(`documents/${documentId}/latestPublication`);
    expect(response.status).toBe(403);
  });

  it('when the id, fields or componentConditions are invalid, then 400 names the parameter', async () => {
    expect((await api.get('documents/abc/latestPublication')).body.error_details).toMatchObject({
      documentId: 'must be a positive integer',
    });
    const fields = await api.get(`documents/${documentId}/latestPublication?fields=metadata,secrets`);
    expect(fields.status).toBe(400);
    expect(fields.body.error_details.fields).toContain('systemdata, metadata, content, references');
    const badJson = await api.get(`documents/${documentId}/latestPublication?componentConditions={not json`);
    expect(badJson.status).toBe(400);
    expect(badJson.body.error_details.componentConditions).toContain('must be valid JSON');
    const badKey = await api.get(
      `documents/${documentId}/latestPublication?componentConditions=${encodeURIComponent('{"when":"now"}')}`,
    );
    expect(badKey.status).toBe(400);
  });

  it("when componentConditions' dateTime has an offset whose + was sent unencoded, then the 400 says to send it as %2B", async () => {
    // Written by hand into a URL, the + of the offset is a space by the time the query string is read.
    const json = '{"dateTime":"2031-06-01T12:00:00+02:00","brand":"de"}';
    const unencoded = await api.get(
      `documents/${documentId}/latestPublication?componentConditions=${json.replaceAll('"', '%22')}`,
    );
    expect(unencoded.status).toBe(400);
    expect(unencoded.body.error_details).toEqual({
      name: 'ValidationError',
      componentConditions:
        "dateTime must be an ISO 8601 date-time string, e.g. \"2025-01-31T12:00:00Z\"; its offset's '+' arrived " +
        "as a space (a '+' in a query string is one): send it as %2B, e.g. 2031-06-01T12:00:00%2B02:00",
    });
    // Sent as the 400 says, the same conditions are read: from 2030 on, the German brand.
    const encoded = await api.get(
      `documents/${documentId}/latestPublication?componentConditions=${encodeURIComponent(json)}`,
    );
    expect(encoded.status).toBe(200);
    expect(ids(encoded.body.content)).toEqual(['doc-always', 'doc-future', 'doc-de', 'doc-box']);
    // Any other dateTime that is none keeps the plain wording.
    const other = await api.get(
      `documents/${documentId}/latestPublication?componentConditions=${encodeURIComponent('{"dateTime":"soon"}')}`,
    );
    expect(other.body.error_details.componentConditions).toBe(
      'dateTime must be an ISO 8601 date-time string, e.g. "2025-01-31T12:00:00Z"',
    );
  });

  it('when the document is unknown, never published, or of another project, then 404 NotFound', async () => {
    const draft = await createDraftDocument(app.ctx, { ...project });
    for (const id of [draft.id, 999999]) {
      const response = await api.get(`documents/${id}/latestPublication`);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({
        status: 404,
        error: 'Not Found',
        error_details: { name: 'NotFound' },
      });
    }
    const other = await createTestProject(app.ctx);
    const otherApi = apiClient(app.url, (await tokenFor(app.ctx, other.projectId)).token);
    expect((await otherApi.get(`documents/${documentId}/latestPublication`)).status).toBe(404);
  });

  it('when no fields are asked for, then v1 answers systemdata, metadata, content and later versions add references', async () => {
    const v1 = await api.withVersion('v1').get(`documents/${documentId}/latestPublication`);
    expect(Object.keys(v1.body)).toEqual(['systemdata', 'metadata', 'content']);
    const latest = await api.get(`documents/${documentId}/latestPublication`);
    expect(Object.keys(latest.body)).toEqual(['systemdata', 'metadata', 'content', 'references']);
    expect(latest.body.references).toEqual([
      { id: '77', type: 'document', location: 'metadata', propertyName: 'authors' },
    ]);
    expect(latest.body.systemdata).toMatchObject({
      projectId: project.projectId,
      channelId: project.channelId,
      documentId,
      publicationId: expect.any(Number),
      documentType: 'article',
      contentType: 'regular',
      design: { name: 'test-design', version: '1.0.0' },
      firstPublicationDate: expect.any(String),
      lastPublicationDate: expect.any(String),
    });
    const picked = await api.get(`documents/${documentId}/latestPublication?fields=metadata`);
    expect(picked.body).toEqual({ metadata: { title: 'Conditions', authors: expect.any(Object) } });
  });

  it('when no conditions are given, then now and the default brand (ch) decide which components stay', async () => {
    const response = await api.get(`documents/${documentId}/latestPublication`);
    expect(ids(response.body.content)).toEqual(['doc-always', 'doc-ch']);
  });

  it('when a dateTime and brand are given, then the bounds and brands are checked against them, containers included', async () => {
    const conditions = encodeURIComponent(JSON.stringify({ dateTime: '2031-06-01T00:00:00Z', brand: 'de' }));
    const response = await api.get(
      `documents/${documentId}/latestPublication?componentConditions=${conditions}`,
    );
    expect(ids(response.body.content)).toEqual(['doc-always', 'doc-future', 'doc-de', 'doc-box']);
    expect(ids(response.body.content[3].containers.main)).toEqual(['doc-inner']);
    const past = encodeURIComponent(JSON.stringify({ dateTime: '2019-12-31T23:59:59Z' }));
    const before = await api.get(`documents/${documentId}/latestPublication?componentConditions=${past}`);
    expect(ids(before.body.content)).toEqual(['doc-always', 'doc-past', 'doc-ch']);
  });

  it('when ignoreComponentConditions=true, then every component is kept as stored', async () => {
    const response = await api.get(
      `documents/${documentId}/latestPublication?ignoreComponentConditions=true`,
    );
    expect(response.body.content).toEqual(CONTENT);
  });

  it('when renditions are asked for up to 2025-07, then known handles are rendered as HTML and unknown ones skipped', async () => {
    const old = api.withVersion('2025-07');
    const response = await old.get(`documents/${documentId}/latestPublication?renditions=web,print`);
    expect(response.status).toBe(200);
    expect(response.body.renditions).toEqual([{ handle: 'web', content: expect.stringContaining('Always') }]);
    expect(response.body.renditions[0].content).toContain('<div class="paragraph">');
    const route = await old.get(`documents/${documentId}/latestPublication/renditions/html,print`);
    expect(route.status).toBe(200);
    expect(route.body).toEqual([{ handle: 'html', content: expect.stringContaining('Swiss only') }]);
  });

  it('when the renditions route gets component conditions, then they decide what is rendered; any other parameter is a 400 naming it', async () => {
    // The vendor's reference lists ignoreComponentConditions and componentConditions for this route too.
    const old = api.withVersion('2025-07');
    const route = `documents/${documentId}/latestPublication/renditions/html`;
    const html = async (query: string) => {
      const response = await old.get(`${route}${query}`);
      expect(response.status).toBe(200);
      return (response.body as { handle: string; content: string }[])[0]!.content;
    };
    const byDefault = await html('');
    expect(byDefault).toContain('Swiss only');
    expect(byDefault).not.toContain('German only');
    const german = await html(
      `?componentConditions=${encodeURIComponent(JSON.stringify({ dateTime: '2031-06-01T00:00:00Z', brand: 'de' }))}`,
    );
    expect(german).toContain('German only');
    expect(german).not.toContain('Swiss only');
    const everything = await html('?ignoreComponentConditions=true');
    expect(everything).toContain('German only');
    expect(everything).toContain('Swiss only');

    const unknown = await old.get(`${route}?fields=content`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error_details).toEqual({ name: 'ValidationError', fields: 'is not allowed' });
    const broken = await old.get(`${route}?componentConditions=not-json`);
    expect(broken.status).toBe(400);
    expect(Object.keys(broken.body.error_details)).toEqual(['name', 'componentConditions']);
  });

  it('when renditions are asked for from 2025-09, then the parameter is a 400 and the renditions route does not exist', async () => {
    const response = await api
      .withVersion('2025-09')
      .get(`documents/${documentId}/latestPublication?renditions=web`);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.error_details)).toContain('renditions');
    const route = await api
      .withVersion('2025-09')
      .get(`documents/${documentId}/latestPublication/renditions/web`);
    expect(route.status).toBe(404);
    expect(route.body.error_details).toEqual({
      url: `/api/2025-09/documents/${documentId}/latestPublication/renditions/web`,
    });
  });
});
