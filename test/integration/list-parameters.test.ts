import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

/**
 * A list parameter (contentTypes, fields, ...) answers the same whichever form a client sends it in: the comma
 * list, repeated (URLSearchParams.append, Python requests), with [] (axios) or with indices (qs, the vendor's
 * node SDK). It used to be a 400 `must be given once` for all but the comma list.
 */
const FORMS: Record<string, (name: string, items: string[]) => string> = {
  repeated: (name, items) => items.map((item) => `${name}=${item}`).join('&'),
  brackets: (name, items) => items.map((item) => `${name}[]=${item}`).join('&'),
  'encoded brackets': (name, items) => items.map((item) => `${name}%5B%5D=${item}`).join('&'),
  indices: (name, items) => items.map((item, index) => `${name}[${index}]=${item}`).join('&'),
  // Past 20 items the query parser reads indices as an object keyed by index: still the list, in index order.
  'indices past 20, sent out of order': (name, items) =>
    items
      .map((item, index) => `${name}[${index + 21}]=${item}`)
      .reverse()
      .join('&'),
};

describe('list parameters in every form', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  const documents: number[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    const { projectId } = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const inputs: Parameters<typeof createPublishedDocument>[2][] = [
      { metadata: { title: 'News', category: { id: 'news' }, language: { locale: 'en', groupId: 'g1' } } },
      { metadata: { title: 'Sport', category: { id: 'sport' }, language: { locale: 'de', groupId: 'g1' } } },
      {
        metadata: {
          title: 'Politics',
          category: { id: 'politics' },
          language: { locale: 'fr', groupId: 'g2' },
        },
      },
      { contentType: 'page', documentType: 'page', metadata: { title: 'Home' } },
      { contentType: 'author', documentType: 'data-record', metadata: { title: 'Jane', name: 'Jane Doe' } },
    ];
    for (const [index, input] of inputs.entries()) {
      const now = new Date(Date.UTC(2025, 0, index + 1, 12));
      documents.push((await createPublishedDocument(app.ctx, projectId, { ...input, now })).documentId);
    }
    await indexNow(app.ctx, projectId, documents);
  });

  afterAll(async () => {
    await app.close();
  });

  const ids = (body: { results: { systemdata?: { documentId: number }; documentId?: number }[] }) =>
    body.results.map((item) => item.systemdata?.documentId ?? item.documentId);

  const cases: [route: string, name: string, items: string[], expected: () => number[] | 'all'][] = [
    ['publications/search?sort=documentId', 'contentTypes', ['page', 'author'], () => documents.slice(3)],
    [
      'publications/search?sort=documentId',
      'categories',
      ['news', 'politics'],
      () => [documents[0]!, documents[2]!],
    ],
    ['publications/search?sort=documentId', 'languages', ['de', 'fr'], () => documents.slice(1, 3)],
    ['publications/search?sort=documentId', 'fields', ['systemdata', 'content'], () => documents],
    ['publications/search?sort=documentId', 'fields', ['id'], () => documents],
    // sort was the one list parameter read as text only: `sort=-contentType&sort=-documentId` was a 400
    // `must be given once`, and axios' `sort[]=` or the node SDK's `sort[0]=` the same.
    [
      'publications/search?limit=100',
      'sort',
      ['-contentType', '-documentId'],
      () => [documents[2]!, documents[1]!, documents[0]!, documents[3]!, documents[4]!],
    ],
    [
      'documents/latestPublications?reverse',
      'contentTypes',
      ['regular', 'page'],
      () => documents.slice(0, 4),
    ],
    [
      'documents/latestPublications?reverse',
      'documentTypes',
      ['page', 'data-record'],
      () => documents.slice(3),
    ],
    ['documents/latestPublications?reverse', 'fields', ['metadata', 'systemdata'], () => documents],
    ['documents/latestPublications?reverse', 'id', ['ID1', 'ID4'], () => [documents[1]!, documents[4]!]],
    ['publicationEvents?limit=1000', 'contentTypes', ['author', 'page'], () => documents.slice(3)],
    ['publicationEvents?limit=1000', 'documentTypes', ['article', 'page'], () => documents.slice(0, 4)],
  ];

  it.each(cases)(
    'when %s has %s in any form, then the answer is the comma form’s',
    async (route, name, names, expected) => {
      // `ID<n>` stands for the n-th fixture document's id, known once beforeAll ran.
      const items = names.map((item) =>
        item.replace(/^ID(\d)$/, (_, n: string) => String(documents[Number(n)])),
      );
      const read = (query: string) => api.get(`${route}&${query}`);
      const comma = await read(`${name}=${items.join(',')}`);
      expect(comma.status).toBe(200);
      const found = route.startsWith('publicationEvents')
        ? (comma.body.results as { documentId: number }[]).map((event) => event.documentId)
        : ids(comma.body);
      expect(found).toEqual(expected());
      for (const [form, query] of Object.entries(FORMS)) {
        const answer = await read(query(name, items));
        expect({ form, status: answer.status, body: answer.body }).toEqual({
          form,
          status: 200,
          body: comma.body,
        });
      }
    },
  );

  it('when a list is sent in a mix of forms, then its items are all of them, as in one comma list', async () => {
    const mixed = await api.get(
      'publications/search?sort=documentId&contentTypes=page&contentTypes[]=author',
    );
    const comma = await api.get('publications/search?sort=documentId&contentTypes=page,author');
    expect(mixed.status).toBe(200);
    expect(mixed.body).toEqual(comma.body);
    const commasInside = await api.get(
      'documents/latestPublications?documentTypes[]=page,data-record&documentTypes[]=article',
    );
    expect(ids(commasInside.body)).toEqual([...documents].reverse());
  });

  it.each([
    [
      'publications/search',
      'contentTypes[a][b]=x',
      'contentTypes',
      'must be a comma separated list, or one item per repeat: x=a&x=b, x[]=a&x[]=b or x[0]=a&x[1]=b',
    ],
    [
      'publications/search',
      'categories[a]=x',
      'categories',
      'must be a comma separated list, or one item per repeat: x=a&x=b, x[]=a&x[]=b or x[0]=a&x[1]=b',
    ],
    [
      'publications/search',
      'languages[0]=en&languages[0]=de',
      'languages',
      'must be a comma separated list, or one item per repeat: x=a&x=b, x[]=a&x[]=b or x[0]=a&x[1]=b',
    ],
    [
      'publications/search',
      'contentTypes[]=page&contentTypes[]=',
      'contentTypes',
      'must be a comma separated list without empty items',
    ],
    [
      'publications/search',
      'fields[]=id&fields[]=content',
      'fields',
      'id cannot be combined with other fields: use fields=id alone',
    ],
    [
      'publications/search',
      'fields[]=body',
      'fields',
      'must be id, or a comma separated list of systemdata, metadata, content, references',
    ],
    [
      'publications/search',
      'sort[a]=documentId',
      'sort',
      'must be a comma separated list of sort fields, or one item per repeat: x=a&x=b, x[]=a&x[]=b or x[0]=a&x[1]=b',
    ],
    [
      'publications/search',
      'sort[]=documentId&sort[]=',
      'sort',
      'must be a comma separated list of sort fields without empty items',
    ],
    [
      'publications/search',
      'sort=contentType&sort=-contentType',
      'sort',
      "'contentType' is given more than once",
    ],
    [
      'documents/latestPublications',
      'documentTypes=page&documentTypes=blog',
      'documentTypes',
      'must be a comma separated list of article, page, data-record',
    ],
    [
      'documents/latestPublications',
      'fields[0]=systemdata&fields[1]=body',
      'fields',
      'must be a comma separated list of systemdata, metadata, content, references',
    ],
    [
      'documents/latestPublications',
      'id[]=1&id[]=x',
      'id',
      'must be a document id or a comma separated list of document ids',
    ],
    [
      'publicationEvents',
      'documentTypes[]=blog',
      'documentTypes',
      'must be a comma separated list of article, page, data-record',
    ],
    [
      'publicationEvents',
      'contentTypes[x]=page',
      'contentTypes',
      'must be a comma separated list, or one item per repeat: x=a&x=b, x[]=a&x[]=b or x[0]=a&x[1]=b',
    ],
  ])('when %s gets %s, then 400 naming %s', async (route, query, name, message) => {
    const response = await api.get(`${route}?${query}`);
    expect({ status: response.status, details: response.body.error_details }).toEqual({
      status: 400,
      details: { name: 'ValidationError', [name]: message },
    });
  });

  it('when a search is paged with sort in the comma form, then its cursor continues it in the other forms', async () => {
    const first = await api.get('publications/search?sort=-contentType,-documentId&limit=2');
    expect(ids(first.body)).toEqual([documents[2], documents[1]]);
    for (const [form, query] of Object.entries(FORMS)) {
      const next = await api.get(
        `publications/search?${query('sort', ['-contentType', '-documentId'])}&limit=2&after=${first.body.cursor}`,
      );
      expect({ form, status: next.status, ids: ids(next.body) }).toEqual({
        form,
        status: 200,
        ids: [documents[0], documents[3]],
      });
    }
  });

  it('when id lists more than 1000 ids in the repeated or bracket form, then the same 400 as the comma list', async () => {
    const many = Array.from({ length: 1001 }, (_, index) => String(index + 1));
    const expected = { name: 'ValidationError', id: 'must list at most 1000 ids' };
    expect((await api.get(`documents/latestPublications?id=${many.join(',')}`)).body.error_details).toEqual(
      expected,
    );
    for (const form of ['repeated', 'brackets', 'indices'] as const) {
      const response = await api.get(`documents/latestPublications?${FORMS[form]!('id', many)}`);
      expect({ form, status: response.status, details: response.body.error_details }).toEqual({
        form,
        status: 400,
        details: expected,
      });
    }
  });
});
