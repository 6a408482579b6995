import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow, republishDocument } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

describe('GET documents/latestPublications', () => {
  let app: TestApp;
  let projectId: number;
  let api: ReturnType<typeof apiClient>;
  /** Document ids in publish order: ids[0] published first. */
  const ids: number[] = [];
  const COUNT = 30;

  beforeAll(async () => {
    app = await startTestApp();
    projectId = (await createTestProject(app.ctx)).projectId;
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    for (let n = 0; n < COUNT; n += 1) {
      const page = n % 10 === 9;
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        now: new Date(Date.UTC(2025, 1, 1, 0, n)),
        contentType: page ? 'page' : 'regular',
        documentType: page ? 'page' : 'article',
        metadata: { title: `Doc ${n}` },
        content: [
          { id: 'p', component: 'paragraph', content: { text: 'always' } },
          {
            id: 'later',
            component: 'paragraph',
            content: { text: 'later' },
            conditions: { dateTime: { gte: '2099-01-01T00:00:00Z' } },
          },
        ],
      });
      ids.push(documentId);
    }
    // The homepage is the project config's homepageDocumentId.
    await app.ctx.pool.query(
      `UPDATE projects SET config = jsonb_set(config, '{settings,homepageDocumentId}', to_jsonb($2::int)) WHERE id = $1`,
      [projectId, ids[9]],
    );
    await indexNow(app.ctx, projectId, ids);
  });

  afterAll(async () => {
    await app.close();
  });

  const list = async (query = '') => {
    const response = await api.get(`documents/latestPublications?${query}`);
    expect(response.status).toBe(200);
    return (response.body.results as { systemdata: { documentId: number } }[]).map(
      (item) => item.systemdata.documentId,
    );
  };
  const newestFirst = () => [...ids].reverse();

  describe('access and validation', () => {
    it('when no token is sent, then 401', async () => {
      expect((await apiClient(app.url).get('documents/latestPublications')).status).toBe(401);
    });

    it('when the token lacks public-api:read, then 403', async () => {
      const { token } = await tokenFor(app.ctx, projectId, ['public-api:write']);
      expect((await apiClient(app.url, token).get('documents/latestPublications')).status).toBe(403);
    });

    it.each([
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=ten', 'limit'],
      ['offset=10001', 'offset'],
      ['fields=systemdata,bogus', 'fields'],
      ['reverse=yes', 'reverse'],
      ['documentTypes=article,blog', 'documentTypes'],
      ['id=1,x', 'id'],
      ['id.gt=-3', 'id.gt'],
      ['publishedAt.gte=2025-02-30', 'publishedAt.gte'],
      ['componentConditions=%5B%5D', 'componentConditions'],
    ])('when the query is %s, then 400 naming %s', async (query, key) => {
      const response = await api.get(`documents/latestPublications?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error_details[key]).toEqual(expect.any(String));
    });
  });

  it('when called without parameters, then every document comes newest publication first with references', async () => {
    const response = await api.get('documents/latestPublications');
    expect(
      response.body.results.map((item: { systemdata: { documentId: number } }) => item.systemdata.documentId),
    ).toEqual(newestFirst());
    expect(Object.keys(response.body.results[0]).sort()).toEqual([
      'content',
      'metadata',
      'references',
      'systemdata',
    ]);
    expect(response.body.results[0].systemdata).toMatchObject({
      projectId,
      documentId: ids[COUNT - 1],
      lastPublicationDate: new Date(Date.UTC(2025, 1, 1, 0, COUNT - 1)).toISOString(),
    });
  });

  it.each([
    ['reverse=true', () => ids],
    // As the vendor's reference writes its examples, and as existing exporters send it: the name alone is true.
    ['reverse&publishedAt.gte=2025-02-01T00:28:00Z', () => [ids[28], ids[29]]],
    ['reverse=1', () => ids],
    ['reverse=0', () => newestFirst()],
    ['homepage', () => [ids[9]]],
    ['homepage=1', () => [ids[9]]],
    ['homepage=0&limit=2', () => newestFirst().slice(0, 2)],
    ['limit=3&offset=2', () => newestFirst().slice(2, 5)],
    ['limit=0', () => []],
    ['contentTypes=page', () => [ids[29], ids[19], ids[9]]],
    ['documentTypes=page', () => [ids[29], ids[19], ids[9]]],
    ['homepage=true', () => [ids[9]]],
    ['id={IDS}', () => [ids[7], ids[3]]],
    ['id={ONE}', () => [ids[5]]],
    ['id.gte={A}&id.lt={B}&reverse=true', () => ids.slice(10, 20)],
    ['id.gt={A}&id.lte={B}', () => ids.slice(11, 21).reverse()],
    // Both bounds of a side given: each holds (the tighter one decides), whichever comes first.
    ['id.gt={A}&id.gte={C}&id.lte={B}', () => ids.slice(11, 21).reverse()],
    ['id.gte={C}&id.gt={A}&id.lte={B}', () => ids.slice(11, 21).reverse()],
    ['id.gte={A}&id.gt={C}&id.lt={B}&id.lte={D}', () => ids.slice(10, 20).reverse()],
    ['id.gt={A}&id.gte={A}&id.lt={B}&id.lte={B}', () => ids.slice(11, 20).reverse()],
    [
      'publishedAt.gt=2025-02-01T00:05:00Z&publishedAt.gte=2025-02-01T00:01:00Z&publishedAt.lt=2025-02-01T00:08:00Z&publishedAt.lte=2025-02-01T00:20:00Z',
      () => [ids[7], ids[6]],
    ],
    [
      'publishedAt.gte=2025-02-01T00:05:00Z&publishedAt.lt=2025-02-01T00:08:00Z',
      () => [ids[7], ids[6], ids[5]],
    ],
    // Publication times are held to the millisecond: a bound with digits past it lies between two of them.
    [
      'publishedAt.gte=2025-02-01T00:05:00.0001Z&publishedAt.lt=2025-02-01T00:08:00.000001Z',
      () => [ids[8], ids[7], ids[6]],
    ],
    [
      'publishedAt.gt=2025-02-01T00:05:00.0009Z&publishedAt.lte=2025-02-01T00:08:00.0009Z',
      () => [ids[8], ids[7], ids[6]],
    ],
    ['publishedAt.gt=2025-02-01T00:28:00Z', () => [ids[29]]],
    // Past the millisecond (what the dates are stored at): 00:05:00.000 is not >= 00:05:00.0001, 00:08:00.000 is <.
    [
      'publishedAt.gte=2025-02-01T00:05:00.0001Z&publishedAt.lt=2025-02-01T00:08:00.0001Z',
      () => [ids[8], ids[7], ids[6]],
    ],
    [
      'publishedAt.gt=2025-02-01T00:05:00.0009Z&publishedAt.lte=2025-02-01T00:08:00.0009Z',
      () => [ids[8], ids[7], ids[6]],
    ],
    ['publishedAt.lte=2025-02-01T00:01:00Z', () => [ids[1], ids[0]]],
    // Instants past 9999 or before year 0 in UTC: JavaScript writes them with an expanded year (+010000-...,
    // -000001-...), which Elasticsearch cannot parse (a 500); they are still dates, so everything or nothing.
    ['publishedAt.lt=9999-12-31T23:59:59-18:00', () => newestFirst()],
    ['publishedAt.gt=9999-12-31T23:59:59-18:00', () => []],
    ['publishedAt.gte=0000-01-01T00:00:00%2B18:00&limit=2', () => newestFirst().slice(0, 2)],
    ['publishedAt.lte=0000-01-01T00:00:00%2B18:00', () => []],
  ])('when the query is %s, then exactly those documents come back in order', async (query, expected) => {
    const resolved = query
      .replace('{IDS}', `${ids[3]},${ids[7]}`)
      .replace('{ONE}', String(ids[5]))
      .replaceAll('{A}', String(ids[10]))
      .replaceAll('{B}', String(ids[20]))
      .replace('{C}', String(ids[5]))
      .replace('{D}', String(ids[25]));
    expect(await list(resolved)).toEqual(expected());
  });

  it('when four pullers read disjoint id ranges in parallel, then together they see every document exactly once', async () => {
    const min = ids[0]!;
    const max = ids[COUNT - 1]! + 1;
    const step = Math.ceil((max - min) / 4);
    const pull = async (from: number, to: number) => {
      const seen: number[] = [];
      for (let offset = 0; ; offset += 4) {
        const page = await list(`id.gte=${from}&id.lt=${to}&limit=4&offset=${offset}&fields=systemdata`);
        seen.push(...page);
        if (page.length < 4) return seen;
      }
    };
    const parts = await Promise.all(
      [0, 1, 2, 3].map((i) => pull(min + i * step, Math.min(max, min + (i + 1) * step))),
    );
    const all = parts.flat();
    expect(all).toHaveLength(COUNT);
    expect([...all].sort((a, b) => a - b)).toEqual(ids);
  });

  it('when fields=systemdata, then only systemdata comes back', async () => {
    const response = await api.get('documents/latestPublications?limit=1&fields=systemdata');
    expect(Object.keys(response.body.results[0])).toEqual(['systemdata']);
  });

  it('when component conditions are left at their defaults, then components scheduled for later are dropped', async () => {
    const response = await api.get('documents/latestPublications?limit=1');
    expect(response.body.results[0].content.map((c: { id: string }) => c.id)).toEqual(['p']);
    const ignored = await api.get('documents/latestPublications?limit=1&ignoreComponentConditions=true');
    expect(ignored.body.results[0].content.map((c: { id: string }) => c.id)).toEqual(['p', 'later']);
  });

  it('when the version is 2025-11, then a bare array comes back; v1 leaves out references', async () => {
    const bare = await api.withVersion('2025-11').get('documents/latestPublications?limit=2');
    expect(Array.isArray(bare.body)).toBe(true);
    expect(bare.body).toHaveLength(2);
    const v1 = await api.withVersion('v1').get('documents/latestPublications?limit=1');
    expect(Object.keys(v1.body[0]).sort()).toEqual(['content', 'metadata', 'systemdata']);
  });

  it('when the version is 2026-01, then {results} comes back', async () => {
    const response = await api.withVersion('2026-01').get('documents/latestPublications?limit=2');
    expect(Object.keys(response.body)).toEqual(['results']);
  });
});

describe('GET documents/latestPublications and publications/search with awkward text', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let documentId: number;
  let projectId: number;
  // Quotes, backslashes, brackets, the word "conditions" in quotes, and text outside ASCII: the answer copies
  // stored JSON bytes, so this is where a mistake in finding where one body ends would show.
  const metadata = { title: 'Er sagte: "}]{[" \\ "conditions": \\" — Zürich 東京 🎉' };
  const content = [
    { id: 'p', component: 'paragraph', content: { text: 'Zeile\neins\t"zwei" \\\\ \u2028 ende' } },
    {
      id: 'later',
      component: 'paragraph',
      content: { text: '"conditions": {"dateTime": "never"}' },
      conditions: { dateTime: { gte: '2099-01-01T00:00:00Z' } },
    },
  ];

  beforeAll(async () => {
    app = await startTestApp();
    projectId = (await createTestProject(app.ctx)).projectId;
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    documentId = (await createPublishedDocument(app.ctx, projectId, { metadata, content })).documentId;
    await indexNow(app.ctx, projectId, [documentId]);
  });

  afterAll(async () => {
    await app.close();
  });

  it('when the text is awkward, then both endpoints answer JSON with exactly the published text', async () => {
    for (const path of ['documents/latestPublications', 'publications/search']) {
      const response = await api.get(`${path}?ignoreComponentConditions=true`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('etag')).toMatch(/^W\/".+"$/);
      expect(response.body.results).toHaveLength(1);
      expect(response.body.results[0].systemdata.documentId).toBe(documentId);
      expect(response.body.results[0].metadata).toEqual(metadata);
      expect(response.body.results[0].content).toEqual(content);
    }
  });

  it('when conditions apply, then the later component is dropped and the rest of the text is intact', async () => {
    for (const path of ['documents/latestPublications', 'publications/search']) {
      const response = await api.get(path);
      expect(response.body.results[0].metadata).toEqual(metadata);
      expect(response.body.results[0].content).toEqual([content[0]]);
    }
  });

  it('when what a list would hold changes (a republish, other fields, another version, other conditions), then its ETag changes too', async () => {
    const etagOf = async (path: string, version = '2026-03') =>
      (await api.withVersion(version).get(path)).headers.get('etag');
    for (const path of ['documents/latestPublications', 'publications/search']) {
      const before = await etagOf(path);
      expect(await etagOf(path)).toBe(before);
      expect(await etagOf(`${path}?fields=systemdata`)).not.toBe(before);
      expect(await etagOf(path, '2025-11')).not.toBe(before);
      expect(await etagOf(`${path}?ignoreComponentConditions=true`)).not.toBe(before);
    }
    const listBefore = await etagOf('documents/latestPublications');
    const searchBefore = await etagOf('publications/search');
    await republishDocument(app.ctx, projectId, documentId, {
      ...metadata,
      title: `${metadata.title} (updated)`,
    });
    await indexNow(app.ctx, projectId, [documentId]);
    expect(await etagOf('documents/latestPublications')).not.toBe(listBefore);
    expect(await etagOf('publications/search')).not.toBe(searchBefore);
  });

  it('when the same list is asked for again, then the ETag is the same and If-None-Match gets 304', async () => {
    const first = await api.get('documents/latestPublications');
    const etag = first.headers.get('etag')!;
    // As a browser's reload revalidates (max-age=0); fetch's `no-cache` gets 304 as well
    // (conditional-reads.test.ts).
    const second = await api.get('documents/latestPublications', {
      'if-none-match': etag,
      'cache-control': 'max-age=0',
    });
    expect(second.status).toBe(304);
  });
});
