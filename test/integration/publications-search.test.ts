import { createHash } from 'node:crypto';
import type { Content } from '../../src/domain/content';
import { cursorCodec } from '../../src/domain/search-cursor';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { buildProjectConfig, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';

const paragraph = (id: string, text: string, conditions?: object) => ({
  id,
  component: 'paragraph',
  content: { text },
  ...(conditions ? { conditions } : {}),
});

describe('GET publications/search', () => {
  let app: TestApp;
  let projectId: number;
  let api: ReturnType<typeof apiClient>;
  /** d[1]..d[6]: the documents of the fixture set, by role. */
  const d: Record<number, number> = {};

  beforeAll(async () => {
    app = await startTestApp();
    const contentTypes = buildProjectConfig().contentTypes.map((type) =>
      type.handle === 'regular' ? { ...type, sortDateField: 'publishDate' } : type,
    );
    const project = await createTestProject(app.ctx, { config: { contentTypes } });
    projectId = project.projectId;
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const day = (n: number) => new Date(Date.UTC(2025, 0, n, 12));
    const docs: Parameters<typeof createPublishedDocument>[2][] = [
      {
        now: day(1),
        metadata: {
          title: 'Alpine glacier melts faster',
          flag: 'red',
          priority: 1,
          score: 1.5,
          breaking: true,
          publishDate: '2024-05-10T00:00:00.000Z',
          summary: 'The quick brown fox',
          category: { id: 'news' },
          language: { locale: 'en', groupId: 'g1' },
        },
        content: [paragraph('p1', 'The glacier retreat was measured by satellites.')],
      },
      {
        now: day(2),
        metadata: {
          title: 'Glacier tourism booms',
          flag: 'blue',
          priority: 5,
          score: 2.5,
          breaking: false,
          publishDate: '2024-03-01T00:00:00.000Z',
          summary: 'A lazy dog sleeps',
          category: { id: 'sport' },
          language: { locale: 'de', groupId: 'g1' },
        },
        content: [paragraph('p1', 'Hotels are full.'), paragraph('p2', 'Cable cars run all night.')],
      },
      {
        now: day(3),
        metadata: {
          title: 'Budget vote',
          flag: 'red',
          priority: 10,
          category: { id: 'politics' },
          language: { locale: 'en', groupId: 'g2' },
        },
        content: [
          paragraph('p1', 'Parliament votes today.'),
          paragraph('future', 'Results are in.', { dateTime: { gte: '2099-01-01T00:00:00Z' } }),
        ] as Content,
      },
      { now: day(4), contentType: 'page', documentType: 'page', metadata: { title: 'Home' } },
      {
        now: day(5),
        contentType: 'author',
        documentType: 'data-record',
        metadata: { title: 'Jane', name: 'Jane Doe' },
      },
      {
        now: day(6),
        metadata: { title: 'Embargoed scoop', flag: 'green', priority: 7 },
        embargoUntil: new Date('2030-01-01T00:00:00Z'),
        content: [paragraph('p1', 'Not yet.')],
      },
    ];
    for (const [index, input] of docs.entries()) {
      d[index + 1] = (await createPublishedDocument(app.ctx, projectId, input)).documentId;
    }
    await indexNow(app.ctx, projectId, Object.values(d));
  });

  afterAll(async () => {
    await app.close();
  });

  const ids = (body: { results: { systemdata: { documentId: number } }[] }) =>
    body.results.map((item) => item.systemdata.documentId);
  const roles = (...numbers: number[]) => numbers.map((n) => d[n]);
  const search = (query: string) => api.get(`publications/search?${query}`);
  const filtered = async (filters: unknown) => {
    const response = await search(
      `sort=documentId&limit=100&filters=${encodeURIComponent(JSON.stringify(filters))}`,
    );
    expect(response.status).toBe(200);
    return ids(response.body);
  };

  describe('access and validation', () => {
    it('when no token is sent, then 401', async () => {
      const response = await apiClient(app.url).get('publications/search');
      expect(response.status).toBe(401);
      expect(response.body.error_details.access_token).toBe('The access token is missing.');
    });

    it('when the token lacks public-api:read, then 403', async () => {
      const { token } = await tokenFor(app.ctx, projectId, ['public-api:write']);
      const response = await apiClient(app.url, token).get('publications/search');
      expect(response.status).toBe(403);
    });

    it.each([
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['offset=10001', 'offset'],
      ['fields=id,content', 'fields'],
      ['fields=body', 'fields'],
      ['sort=nope', 'sort'],
      ['sort=-relevance&search=x', 'sort'],
      ['after=garbage', 'after'],
      ['after=abc&offset=10', 'after'],
      ['componentConditions=%7Bbad', 'componentConditions'],
      ['unknownParam=1', 'unknownParam'],
    ])('when the query is %s, then 400 naming %s', async (query, key) => {
      const response = await search(query);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('Bad Request');
      expect(Object.keys(response.body.error_details)).toContain(key);
    });

    it('when fields names something else, then the 400 says what fields takes (not "has an invalid value")', async () => {
      for (const fields of ['body', 'systemdata,body']) {
        const response = await search(`fields=${fields}`);
        expect(response.status).toBe(400);
        expect(response.body.error_details).toEqual({
          name: 'ValidationError',
          fields: 'must be id, or a comma separated list of systemdata, metadata, content, references',
        });
      }
      // An empty item is refused as in every list parameter, in any form (`fields[]=`); `fields=` alone means
      // the default (test/integration/empty-parameters.test.ts).
      for (const fields of ['fields=systemdata,,content', 'fields=,', 'fields[]=systemdata&fields[]=']) {
        const response = await search(fields);
        expect(response.status).toBe(400);
        expect(response.body.error_details).toEqual({
          name: 'ValidationError',
          fields: 'must be a comma separated list without empty items',
        });
      }
    });

    it.each([
      ['not json', 'filters'],
      [JSON.stringify([{ key: 'metadata.nope', term: 'x' }]), 'filters.0.key'],
      [JSON.stringify({ key: 'metadata.breaking', range: { gt: 1 } }), 'filters.range'],
      [JSON.stringify({ and: [{ key: 'documentId', match: 1 }] }), 'filters.and.0.match'],
      [JSON.stringify({ key: 'metadata.priority', term: 'high' }), 'filters.term'],
      [JSON.stringify({ key: 'metadata.summary', range: { gte: 'a' } }), 'filters.range'],
      // Past ±18:00 Elasticsearch cannot read the offset: it was a 500.
      [
        JSON.stringify({ key: 'metadata.publishDate', range: { gte: '2024-05-01T00:00:00+18:30' } }),
        'filters.range.gte',
      ],
    ])('when filters is %s, then 400 naming %s', async (filters, path) => {
      const response = await search(`filters=${encodeURIComponent(filters)}`);
      expect(response.status).toBe(400);
      expect(response.body.error_details[path]).toEqual(expect.any(String));
    });

    it('when a documentId term or bound is an integer past 2^53, then 400 saying the range an id must be in', async () => {
      // Read as the nearest double (…992), it was refused as "must be an integer": the integer the client sent.
      for (const [filters, path] of [
        ['{"key":"documentId","term":9007199254740993}', 'filters.term'],
        ['{"key":"documentId","range":{"gt":-9007199254740993}}', 'filters.range.gt'],
      ]) {
        const response = await search(`filters=${encodeURIComponent(filters!)}`);
        expect(response.status).toBe(400);
        expect(response.body.error_details[path!]).toContain(
          "must be an integer between -9007199254740991 and 9007199254740991 for 'documentId'",
        );
      }
    });

    it('when a filter of the wrong shape holds 1e309, then the 400 shows it as Infinity, not null', async () => {
      // JSON.stringify writes Infinity as null: the 400 said `got {"documentId":null}`, which was never sent.
      const response = await search(`filters=${encodeURIComponent('{"documentId":1e309}')}`);
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual({
        name: 'ValidationError',
        filters:
          'must be a condition {key, term|range|exists} or a combinator {and|or|not}, got {"documentId":Infinity} ' +
          '(Infinity: a number too large for a double)',
      });
    });

    it("when a date bound's offset + is sent unencoded (a space once decoded), then the 400 says to send it as %2B", async () => {
      const filters = '{"key":"lastPublicationDate","range":{"gte":"2024-05-01T12:00:00+02:00"}}';
      const response = await search(`filters=${encodeURIComponent(filters).replace('%2B', '+')}`);
      expect(response.status).toBe(400);
      expect(response.body.error_details['filters.range.gte']).toContain(
        "its offset's '+' arrived as a space (a '+' in a query string is one): send it as %2B, " +
          'e.g. 2024-05-01T12:00:00%2B02:00',
      );
      expect((await search(`filters=${encodeURIComponent(filters)}`)).status).toBe(200);
    });

    it('when a filter key or sort field is 10,000 characters, then the 400 shows its first 100 and its length', async () => {
      const long = 'k'.repeat(10_000);
      const filtered = await search(`filters=${encodeURIComponent(JSON.stringify({ key: long, term: 1 }))}`);
      expect(filtered.status).toBe(400);
      expect(filtered.body.error_details['filters.key']).toMatch(
        new RegExp(`^unknown filter key '${'k'.repeat(100)}…' \\(10000 characters\\); filterable keys are `),
      );
      const sorted = await search(`sort=${long}`);
      expect(sorted.status).toBe(400);
      expect(sorted.body.error_details.sort).toMatch(
        new RegExp(`^unknown sort field '${'k'.repeat(100)}…' \\(10000 characters\\); sortable fields are `),
      );
    });

    it('when filters nests thousands of levels deep (raw brackets fill the query string), then 400 naming filters', async () => {
      const response = await search(`filters=${'['.repeat(6000)}${']'.repeat(6000)}`);
      expect(response.status).toBe(400);
      expect(response.body.error_details.filters).toEqual(expect.stringContaining('at most 10 levels deep'));
    });

    it('when a project has nothing published, then 200 with no results', async () => {
      const other = await createTestProject(app.ctx);
      const { token } = await tokenFor(app.ctx, other.projectId, ['public-api:read']);
      const response = await apiClient(app.url, token).get('publications/search?search=glacier');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ results: [], total: 0, cursor: '' });
    });
  });

  describe('filters return exactly the matching documents', () => {
    const cases: [string, unknown, number[]][] = [
      ['keyword term', { key: 'metadata.flag', term: 'red' }, [1, 3]],
      ['keyword term list', { key: 'metadata.flag', term: ['red', 'green'] }, [1, 3, 6]],
      ['integer range gte', { key: 'metadata.priority', range: { gte: 5 } }, [2, 3, 6]],
      ['integer range gt and lt', { key: 'metadata.priority', range: { gt: 1, lt: 10 } }, [2, 6]],
      ['integer range lte', { key: 'metadata.priority', range: { lte: 5 } }, [1, 2]],
      ['float range', { key: 'metadata.score', range: { lte: 2 } }, [1]],
      ['exists true', { key: 'metadata.score', exists: true }, [1, 2]],
      ['exists false', { key: 'metadata.score', exists: false }, [3, 4, 5, 6]],
      ['boolean term', { key: 'metadata.breaking', term: true }, [1]],
      ['boolean term false', { key: 'metadata.breaking', term: false }, [2]],
      ['date range', { key: 'metadata.publishDate', range: { lt: '2024-04-01' } }, [2]],
      ['date range gte', { key: 'metadata.publishDate', range: { gte: '2024-02-01' } }, [1, 2]],
      ['text term (all words)', { key: 'metadata.summary', term: 'brown fox' }, [1]],
      ['keyword of another content type', { key: 'metadata.name', term: 'Jane Doe' }, [5]],
      // -1 stands for the id of d[2] (replaced below).
      ['documentId term', { key: 'documentId', term: -1 }, [2]],
      ['contentType term', { key: 'contentType', term: 'page' }, [4]],
      ['firstPublicationDate range', { key: 'firstPublicationDate', range: { lt: '2025-01-03' } }, [1, 2]],
      [
        'lastPublicationDate range',
        { key: 'lastPublicationDate', range: { gte: '2025-01-05T00:00:00Z' } },
        [5, 6],
      ],
      [
        'visiblePublicationDate range',
        { key: 'visiblePublicationDate', range: { gt: '2025-01-05T12:00:00Z' } },
        [6],
      ],
      [
        'significantPublicationDate range',
        { key: 'significantPublicationDate', range: { lte: '2025-01-01T12:00:00Z' } },
        [1],
      ],
      ['component count', { key: 'statistics.componentCount.paragraph', range: { gte: 2 } }, [2, 3]],
      // A document without paragraphs has 0 of them, and is counted so.
      [
        'component count up to one',
        { key: 'statistics.componentCount.paragraph', range: { lt: 2 } },
        [1, 4, 5, 6],
      ],
      ['component count zero', { key: 'statistics.componentCount.paragraph', term: 0 }, [4, 5]],
      [
        'component count zero or two',
        { key: 'statistics.componentCount.paragraph', term: [0, 2] },
        [2, 3, 4, 5],
      ],
      [
        'component count of a component no document has',
        { key: 'statistics.componentCount.video', range: { lte: 0 } },
        [1, 2, 3, 4, 5, 6],
      ],
      [
        'component count exists (at least one)',
        { key: 'statistics.componentCount.paragraph', exists: true },
        [1, 2, 3, 6],
      ],
      [
        'component count range above zero',
        { key: 'statistics.componentCount.paragraph', range: { gt: 0, lte: 1 } },
        [1, 6],
      ],
      [
        'not a component count of zero',
        { not: { key: 'statistics.componentCount.paragraph', term: 0 } },
        [1, 2, 3, 6],
      ],
      ['character count', { key: 'statistics.characterCount', range: { gt: 0 } }, [1, 2, 3, 6]],
      ['embargo enforced', { key: 'publishControl.embargo.enforced', term: true }, [6]],
      ['embargo until', { key: 'publishControl.embargo.until', range: { gte: '2029-12-31' } }, [6]],
      [
        'or',
        {
          or: [
            { key: 'metadata.flag', term: 'blue' },
            { key: 'contentType', term: 'page' },
          ],
        },
        [2, 4],
      ],
      ['not', { not: { key: 'metadata.flag', term: 'red' } }, [2, 4, 5, 6]],
      [
        'not over an array (not a and b)',
        {
          not: [
            { key: 'metadata.flag', term: 'red' },
            { key: 'metadata.priority', range: { gte: 5 } },
          ],
        },
        [1, 2, 4, 5, 6],
      ],
      [
        'nested and/or/not',
        {
          and: [
            {
              or: [
                { key: 'metadata.flag', term: 'red' },
                { key: 'metadata.flag', term: 'blue' },
              ],
            },
            { not: { key: 'metadata.breaking', term: true } },
          ],
        },
        [2, 3],
      ],
      [
        'top-level array means and',
        [
          { key: 'metadata.flag', term: 'red' },
          { key: 'metadata.priority', range: { gte: 5 } },
        ],
        [3],
      ],
      ['empty array restricts nothing', [], [1, 2, 3, 4, 5, 6]],
    ];

    it.each(cases)(
      'when filtering by %s, then exactly the matching documents come back',
      async (_name, filters, expected) => {
        const resolved = JSON.parse(
          JSON.stringify(filters).replace('"term":-1', `"term":${d[2]}`),
        ) as unknown;
        expect(await filtered(resolved)).toEqual(roles(...expected));
      },
    );
  });

  describe('the list parameters', () => {
    it.each([
      ['contentTypes=page,author', [4, 5]],
      ['categories=news,politics', [1, 3]],
      ['languages=de', [2]],
      ['languageGroupId=g1', [1, 2]],
      ['languageGroupId=g1&languages=en', [1]],
      ['search=glacier', [1, 2]],
      ['search=%22glacier%20retreat%22', [1]],
      ['search=%22retreat%20glacier%22', []],
    ])('when searching with %s, then exactly the matching documents come back', async (query, expected) => {
      const response = await search(`${query}&sort=documentId`);
      expect(response.status).toBe(200);
      expect(ids(response.body)).toEqual(roles(...expected));
    });

    it('when fields=id, then items are {documentId, projectId} only', async () => {
      const response = await search('fields=id&sort=documentId&contentTypes=page');
      expect(response.body.results).toEqual([{ documentId: d[4], projectId }]);
    });

    it('when fields lists references, then only the named fields come back', async () => {
      const response = await search('fields=metadata,references&contentTypes=page');
      expect(response.body.results).toEqual([{ metadata: { title: 'Home' }, references: [] }]);
    });

    it('when a search has several words, then a document with all of them in its title ranks first', async () => {
      const response = await search('search=glacier%20tourism');
      expect(ids(response.body)).toEqual(roles(2));
    });
  });

  describe('sort', () => {
    it.each([
      ['', [6, 5, 4, 3, 1, 2]],
      ['-sortDate', [6, 5, 4, 3, 1, 2]],
      ['sortDate', [2, 1, 3, 4, 5, 6]],
      ['metadata.priority', [1, 2, 6, 3, 4, 5]],
      ['-metadata.priority', [3, 6, 2, 1, 4, 5]],
      ['metadata.score,-documentId', [1, 2, 6, 5, 4, 3]],
      ['contentType', [5, 4, 1, 2, 3, 6]],
      ['-firstPublicationDate', [6, 5, 4, 3, 2, 1]],
      ['lastPublicationDate', [1, 2, 3, 4, 5, 6]],
      ['-publishControl.embargo.until', [6, 1, 2, 3, 4, 5]],
      ['-documentId', [6, 5, 4, 3, 2, 1]],
    ])('when sort=%s, then the documents come in that order, missing values last', async (sort, expected) => {
      const response = await search(`sort=${sort}&limit=100`);
      expect(response.status).toBe(200);
      expect(ids(response.body)).toEqual(roles(...expected));
    });

    it('when sortDateField is set, then sortDate is that metadata date, else the visible publication date', async () => {
      const response = await search('sort=sortDate&contentTypes=regular');
      expect(ids(response.body)).toEqual(roles(2, 1, 3, 6));
    });
  });

  describe('paging', () => {
    it('when paging with after cursors, then every matching document comes exactly once, in sort order', async () => {
      const seen: number[] = [];
      let after: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const response = await search(`sort=metadata.priority&limit=2${after ? `&after=${after}` : ''}`);
        expect(response.status).toBe(200);
        expect(response.body.total).toBe(6);
        seen.push(...ids(response.body));
        if (!response.body.cursor) break;
        after = response.body.cursor as string;
      }
      expect(seen).toEqual(roles(1, 2, 6, 3, 4, 5));
    });

    it('when paging a full-text search by relevance, then no hit repeats', async () => {
      const first = await search('search=glacier&limit=1');
      const second = await search(`search=glacier&limit=1&after=${first.body.cursor}`);
      expect([...ids(first.body), ...ids(second.body)].sort()).toEqual(roles(1, 2).sort());
    });

    it('when a cursor is reused under another sort, then 400 naming after', async () => {
      const first = await search('sort=metadata.priority&limit=2');
      const response = await search(`sort=documentId&limit=2&after=${first.body.cursor}`);
      expect(response.status).toBe(400);
      expect(response.body.error_details.after).toMatch(/issued for a different search \(sort,/);
    });

    it('when a cursor is sent with another project’s token, then 400 naming after, and in its own project it continues', async () => {
      const other = await createTestProject(app.ctx);
      const theirs: number[] = [];
      for (let n = 0; n < 3; n += 1) {
        theirs.push((await createPublishedDocument(app.ctx, other.projectId)).documentId);
      }
      await indexNow(app.ctx, other.projectId, theirs);
      const otherApi = apiClient(
        app.url,
        (await tokenFor(app.ctx, other.projectId, ['public-api:read'])).token,
      );
      const first = await search('sort=documentId&limit=2');
      expect(first.body.cursor).toEqual(expect.any(String));
      // Its values are a place among this project's documents: elsewhere they would skip or repeat documents.
      const elsewhere = await otherApi.get(
        `publications/search?sort=documentId&limit=2&after=${first.body.cursor}`,
      );
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body).toEqual(
        envelope(400, 'Bad Request', {
          after: 'invalid cursor: it was issued for another project; start again without after',
        }),
      );
      const rest = await search(`sort=documentId&limit=100&after=${first.body.cursor}`);
      expect(ids(rest.body)).toEqual(roles(3, 4, 5, 6));
    });

    it.each([
      [
        'other filters',
        `filters=${encodeURIComponent(JSON.stringify({ key: 'metadata.flag', term: 'blue' }))}`,
      ],
      ['a search term', 'search=glacier'],
      ['other content types', 'contentTypes=page'],
      ['other categories', 'categories=sport'],
      ['other languages', 'languages=de'],
      ['another language group', 'languageGroupId=g2'],
    ])(
      'when a cursor is reused with %s under the same sort, then 400 naming after (it says where in another result set the page starts)',
      async (_label, other) => {
        const first = await search(
          `sort=metadata.priority&limit=2&filters=${encodeURIComponent(JSON.stringify({ key: 'metadata.flag', term: 'red' }))}`,
        );
        expect(first.body.cursor).toEqual(expect.any(String));
        const response = await search(`sort=metadata.priority&limit=2&${other}&after=${first.body.cursor}`);
        expect(response.status).toBe(400);
        expect(response.body.error_details.after).toMatch(/different search/);
      },
    );

    it('when a cursor comes back with the same search written another way, or with other fields, limit or conditions, then it continues', async () => {
      const first = await search(
        `sort=-metadata.priority&limit=1&contentTypes=regular,author&filters=${encodeURIComponent('{"key":"metadata.flag","term":["red","green"]}')}`,
      );
      expect(ids(first.body)).toEqual(roles(3));
      const rest = await search(
        `sort=-metadata.priority&limit=5&fields=systemdata&ignoreComponentConditions=true&contentTypes=${encodeURIComponent('author, regular')}&filters=${encodeURIComponent('{ "key": "metadata.flag", "term": ["red", "green"] }')}&after=${first.body.cursor}`,
      );
      expect(rest.status).toBe(200);
      expect(ids(rest.body)).toEqual(roles(6, 1));
    });

    describe('when a cursor was not issued by this server for this sort', () => {
      const forge = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url');
      /** The sort hash as anyone could compute it before cursors were signed: an unkeyed sha256. */
      const unkeyedHash = (signature: string) =>
        createHash('sha256').update(signature).digest('base64url').slice(0, 10);

      it.each([
        ['values of the wrong type', ['not a number', 'x']],
        ['too many values', [1, 2, 3, 4]],
        ['an object among the values', [{ gt: 1 }, 2]],
      ])('then a hand-made cursor with %s is a 400 keyed after, not a 500', async (_label, values) => {
        const cursor = forge({ v: 1, s: unkeyedHash('metadata.priority,documentId'), a: values });
        const response = await search(`sort=metadata.priority&limit=2&after=${cursor}`);
        expect(response.status).toBe(400);
        expect(response.body.error_details).toEqual({
          name: 'ValidationError',
          after: 'invalid cursor: pass the cursor of a previous response',
        });
      });

      it('then a cursor of ours with one byte changed is a 400', async () => {
        const first = await search('sort=metadata.priority&limit=2');
        const bytes = Buffer.from(first.body.cursor as string, 'base64url');
        bytes[bytes.length - 3]! ^= 1;
        const response = await search(`sort=metadata.priority&limit=2&after=${bytes.toString('base64url')}`);
        expect(response.status).toBe(400);
        expect(response.body.error_details.after).toBe(
          'invalid cursor: pass the cursor of a previous response',
        );
      });

      it('then a cursor signed by a server with another key is a 400', async () => {
        const other = cursorCodec(Buffer.alloc(32, 7));
        const cursor = other.encode([1, d[1]!], 'metadata.priority,documentId');
        const response = await search(`sort=metadata.priority&limit=2&after=${cursor}`);
        expect(response.status).toBe(400);
        expect(response.body.error_details.after).toBe(
          'invalid cursor: pass the cursor of a previous response',
        );
      });

      it('then a signed cursor whose values do not fit the sort (a field changed type) is a 400, never reaching Elasticsearch', async () => {
        const ours = cursorCodec(app.ctx.config.search.cursorKey);
        const cursor = ours.encode(['high', d[1]!], 'metadata.priority,documentId');
        const response = await search(`sort=metadata.priority&limit=2&after=${cursor}`);
        expect(response.status).toBe(400);
        expect(response.body.error_details.after).toBe(
          'invalid cursor: its values do not fit the sort; start again without after',
        );
      });
    });

    it('when limit and offset are given, then that window comes back', async () => {
      const response = await search('sort=documentId&limit=2&offset=2');
      expect(ids(response.body)).toEqual(roles(3, 4));
      expect(response.body.cursor).toEqual(expect.any(String));
    });
  });

  describe('component conditions', () => {
    const contentIds = (body: { results: { content: { id: string }[] }[] }) =>
      body.results[0]!.content.map((component) => component.id);

    it('when no conditions are given, then components scheduled for later are left out (dateTime now)', async () => {
      const response = await search(
        `filters=${encodeURIComponent(JSON.stringify({ key: 'documentId', term: d[3] }))}`,
      );
      expect(contentIds(response.body)).toEqual(['p1']);
    });

    it('when componentConditions names a later dateTime, then the scheduled component is there', async () => {
      const conditions = encodeURIComponent(JSON.stringify({ dateTime: '2099-06-01T00:00:00Z' }));
      const filters = encodeURIComponent(JSON.stringify({ key: 'documentId', term: d[3] }));
      const response = await search(`filters=${filters}&componentConditions=${conditions}`);
      expect(contentIds(response.body)).toEqual(['p1', 'future']);
    });

    it('when ignoreComponentConditions=true, then every component is there', async () => {
      const filters = encodeURIComponent(JSON.stringify({ key: 'documentId', term: d[3] }));
      const response = await search(`filters=${filters}&ignoreComponentConditions=true`);
      expect(contentIds(response.body)).toEqual(['p1', 'future']);
    });

    it('when stored conditions have another shape than a command writes (imported as sent), then the component is left out, as with an unreadable bound', async () => {
      // POST import/documents stores a component's conditions as sent: a dateTime given as the date itself, or
      // brands as one text, used to show the component to every reader at once.
      const own = await createTestProject(app.ctx);
      const reader = apiClient(app.url, (await tokenFor(app.ctx, own.projectId, ['public-api:read'])).token);
      const { documentId } = await createPublishedDocument(app.ctx, own.projectId, {
        metadata: { title: 'Conditions as sent' },
        content: [
          paragraph('p1', 'Always.'),
          paragraph('later', 'Not yet.', { dateTime: '2099-01-01T00:00:00Z' }),
          paragraph('swiss', 'Only for ch.', { brands: 'ch' }),
          paragraph('scheduled', 'Not yet either.', { dateTime: { gte: '2099-01-01T00:00:00Z' } }),
        ] as Content,
      });
      await indexNow(app.ctx, own.projectId, [documentId]);
      expect(contentIds((await reader.get('publications/search')).body)).toEqual(['p1']);
      const single = await reader.get(`documents/${documentId}/latestPublication`);
      expect(single.body.content.map((component: { id: string }) => component.id)).toEqual(['p1']);
      const all = await reader.get('publications/search?ignoreComponentConditions=true');
      expect(contentIds(all.body)).toEqual(['p1', 'later', 'swiss', 'scheduled']);
    });
  });

  describe('versions', () => {
    it('when the version is 2025-11, then a bare array of {systemdata, metadata, content} comes back', async () => {
      const response = await api.withVersion('2025-11').get('publications/search?contentTypes=page');
      expect(Array.isArray(response.body)).toBe(true);
      expect(Object.keys(response.body[0]).sort()).toEqual(['content', 'metadata', 'systemdata']);
      expect(response.body[0].systemdata).toMatchObject({ documentId: d[4], projectId, contentType: 'page' });
    });

    it('when the version is 2025-11 and after is given, then 400: cursors start in 2026-01', async () => {
      const response = await api.withVersion('2025-11').get('publications/search?after=abc');
      expect(response.status).toBe(400);
      expect(response.body.error_details.after).toMatch(/2026-01/);
    });

    it('when the version is 2026-01, then {results, total, cursor} comes back', async () => {
      const response = await api.withVersion('2026-01').get('publications/search?limit=4');
      expect(response.body).toEqual({ results: expect.any(Array), total: 6, cursor: expect.any(String) });
      expect(response.body.results).toHaveLength(4);
    });

    it('when the same query string comes under two versions, and again, then each version answers by its own rules every time', async () => {
      for (let round = 0; round < 2; round++) {
        const older = await api.withVersion('2025-11').get('publications/search?limit=2&after=abc');
        expect(older.status).toBe(400);
        expect(older.body.error_details.after).toMatch(/2026-01/);
        const newer = await api.withVersion('2026-03').get('publications/search?limit=2&after=abc');
        expect(newer.status).toBe(400);
        expect(newer.body.error_details.after).not.toMatch(/2026-01/);
        const bare = await api.withVersion('2025-11').get('publications/search?limit=2');
        expect(Array.isArray(bare.body)).toBe(true);
        const wrapped = await api.withVersion('2026-03').get('publications/search?limit=2');
        expect(wrapped.body.results).toHaveLength(2);
      }
    });

    it('when another project searches, then none of these documents come back', async () => {
      const other = await createTestProject(app.ctx);
      await createPublishedDocument(app.ctx, other.projectId, { metadata: { title: 'Glacier elsewhere' } });
      const { token } = await tokenFor(app.ctx, other.projectId, ['public-api:read']);
      const response = await apiClient(app.url, token).get('publications/search?search=glacier&fields=id');
      expect(
        response.body.results.every((item: { projectId: number }) => item.projectId === other.projectId),
      ).toBe(true);
    });
  });
});
