import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDraft } from '../helpers/draft-documents';
import { ALL_SCOPES, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, type ApiResponse } from '../helpers/http';

// Supplement §6: an invalid componentConditions is a 400. ignoreComponentConditions=true does not excuse it: the
// same 400 as when the conditions apply, on every route that takes them.
describe('an invalid componentConditions with ignoreComponentConditions=true', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let documentId: number;
  let listId: number;

  const invalidValues = ['{nope', '{"colour":"red"}', '{"dateTime":"yesterday"}', '{"brand":""}'];

  /** Each GET route that takes component conditions, with its query string so far. */
  const getRoutes = () => [
    'documents/latestPublications?limit=1',
    'publications/search?limit=1',
    `documents/${documentId}/latestDraft?fields=systemdata`,
    `documents/${documentId}/latestPublication?fields=systemdata`,
    `document-lists/${listId}?limit=1`,
  ];

  const expect400 = (response: ApiResponse, route: string) => {
    expect({ route, status: response.status }).toEqual({ route, status: 400 });
    expect(response.body.error_details).toHaveProperty(['componentConditions']);
  };

  beforeAll(async () => {
    app = await startTestApp();
    const project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, ALL_SCOPES)).token);
    documentId = (await createPublishedDraft(app.ctx, { ...project, metadata: { title: 'Conditioned' } })).id;
    listId = (await app.ctx.commands.createDocumentList({ projectId: project.projectId, name: 'Front' })).id;
    await app.ctx.commands.addToDocumentList({ listId, documentIds: [documentId] });
  });
  afterAll(async () => {
    await app.close();
  });

  it('when a GET route is asked, then the same 400 as when the conditions are not ignored', async () => {
    for (const route of getRoutes()) {
      for (const value of invalidValues) {
        const conditions = `componentConditions=${encodeURIComponent(value)}`;
        const applied = await api.get(`${route}&${conditions}`);
        const ignored = await api.get(`${route}&ignoreComponentConditions=true&${conditions}`);
        expect400(applied, route);
        expect400(ignored, route);
        expect(ignored.body).toEqual(applied.body);
      }
    }
  });

  it('when a GET route is asked with valid conditions ignored, then 200', async () => {
    const conditions = `componentConditions=${encodeURIComponent('{"dateTime":"2020-01-01T00:00:00Z","brand":"de"}')}`;
    for (const route of getRoutes()) {
      const response = await api.get(`${route}&ignoreComponentConditions=true&${conditions}`);
      expect({ route, status: response.status }).toEqual({ route, status: 200 });
    }
  });

  it('when the composition body ignores them, then the same 400 as when it does not', async () => {
    const route = `composition/${documentId}`;
    const bodies: unknown[] = [
      ...invalidValues,
      { dateTime: 'yesterday' },
      { colour: 'red' },
      'not json',
      42,
    ];
    for (const componentConditions of bodies) {
      const applied = await api.post(route, { componentConditions });
      const ignored = await api.post(route, { componentConditions, ignoreComponentConditions: true });
      expect400(applied, route);
      expect400(ignored, route);
      expect(ignored.body).toEqual(applied.body);
    }
    const valid = await api.post(route, {
      componentConditions: { dateTime: '2020-01-01T00:00:00Z' },
      ignoreComponentConditions: true,
    });
    expect(valid.status).toBe(200);
  });
});
