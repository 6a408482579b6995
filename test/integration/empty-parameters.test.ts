import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

// api-spec §4.7-§4.9, §4.12-§4.15, §4.20 and supplement §4, §5, §7 give `fields`, `sort`, `limit` and `offset` a
// default; a parameter sent empty (`fields=`, `limit=`) means that default, as the name left out does, on every
// list and read route.
describe('a parameter with a default, sent empty', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let documentId: number;
  let listId: number;

  beforeAll(async () => {
    app = await startTestApp();
    const project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, ALL_SCOPES)).token);
    ({ documentId } = await createPublishedDocument(app.ctx, project.projectId, {
      metadata: { title: 'Empty parameters' },
      content: [
        { id: 'p1', component: 'paragraph', identifier: 'test-design.paragraph', content: { text: 'Hello' } },
      ] as never,
    }));
    await indexNow(app.ctx, project.projectId, [documentId]);
    listId = (await app.ctx.commands.createDocumentList({ projectId: project.projectId, name: 'Front' })).id;
    await app.ctx.commands.addToDocumentList({ listId, documentIds: [documentId] });
  });
  afterAll(async () => {
    await app.close();
  });

  it('when fields= is sent empty, then the answer is the one without fields', async () => {
    for (const route of [
      'documents/latestPublications?limit=5',
      `documents/latestPublications?limit=5&id=${documentId}`,
      'publications/search?limit=5',
      `documents/${documentId}/latestDraft?ignoreComponentConditions=false`,
      `documents/${documentId}/latestPublication?ignoreComponentConditions=false`,
      `document-lists/${listId}?limit=5`,
    ]) {
      const without = await api.get(route);
      const empty = await api.get(`${route}&fields=`);
      expect({ route, status: without.status }).toEqual({ route, status: 200 });
      expect({ route, status: empty.status, body: empty.body }).toEqual({
        route,
        status: 200,
        body: without.body,
      });
    }
    // And it is the default: the search's items carry systemdata, metadata and content.
    const search = await api.get('publications/search?limit=5&fields=');
    expect(search.body.results).toHaveLength(1);
    expect(Object.keys(search.body.results[0]).sort()).toEqual(['content', 'metadata', 'systemdata']);
  });

  it('when sort= is sent empty, then the search answers as without sort', async () => {
    const without = await api.get('publications/search?limit=5');
    const empty = await api.get('publications/search?limit=5&sort=');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(without.body);
  });

  it('when limit= or offset= is sent empty, then the answer is the one without them', async () => {
    // Each route (with a parameter it takes besides limit and offset, where it has one), and whether it takes offset.
    for (const [route, takesOffset] of [
      ['documents/latestPublications?reverse=false', true],
      ['publications/search?search=', true],
      ['document-lists?name=Front', true],
      [`document-lists/${listId}?reverse=true`, false],
      ['publicationEvents?reverse=false', false],
      [`documents/${documentId}/incomingDocumentReferences`, true],
    ] as const) {
      const without = await api.get(route);
      expect({ route, status: without.status }).toEqual({ route, status: 200 });
      const empties = takesOffset ? ['limit=', 'offset=', 'limit=&offset='] : ['limit='];
      for (const empty of empties) {
        const response = await api.get(`${route}${route.includes('?') ? '&' : '?'}${empty}`);
        expect({ route, empty, status: response.status, body: response.body }).toEqual({
          route,
          empty,
          status: 200,
          body: without.body,
        });
      }
    }
  });

  it('when fields has an empty item, or a filter is sent empty, then it is still a 400 naming it', async () => {
    for (const [query, key] of [
      ['fields=systemdata,,content', 'fields'],
      ['fields[]=systemdata&fields[]=', 'fields'],
      ['contentTypes=', 'contentTypes'],
    ] as const) {
      const response = await api.get(`documents/latestPublications?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(response.body.error_details).toHaveProperty([key]);
    }
  });
});
