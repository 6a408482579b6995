import { createHmac } from 'node:crypto';
import type { Metadata } from '../../src/domain/content';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow, republishDocument, unpublish } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

/**
 * publications/search answers held to the truth worked out here from the documents this file published: a
 * seeded generator gives 30 documents many ties (publish dates, metadata values) and missing values, and every
 * answer must be what sorting or filtering those documents by hand gives.
 */

interface Published {
  id: number;
  metadata: Metadata;
  publishedAt: Date;
}

/** A small deterministic generator, so a failure names the same documents every run. */
function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const ABSENT = undefined;

describe('publications/search against the truth', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  const docs: Published[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    const { projectId } = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const random = seeded(42);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    for (let n = 0; n < 30; n += 1) {
      const metadata: Metadata = { title: `Document ${n}` };
      const values: Record<string, unknown> = {
        flag: pick(['red', 'Red', 'blue', 'b', ABSENT, ABSENT]),
        // The integer bounds are values a document may hold, not stand-ins for a missing one.
        priority: pick([1, 1, 1, 5, -3, 2147483647, -2147483648, ABSENT, ABSENT]),
        score: pick([1.5, 1.5, 0.25, -2.5, 0, ABSENT, ABSENT]),
        breaking: pick([true, false, ABSENT]),
        publishDate: pick([
          '2024-05-10T00:00:00.000Z',
          '2024-05-10T02:00:00+02:00',
          '2024-05-10',
          '2023-01-01T10:00:00Z',
          ABSENT,
          ABSENT,
        ]),
      };
      // The last two hold the integer bounds for sure, with ids above documents that lack priority.
      if (n >= 28) values.priority = n === 28 ? 2147483647 : -2147483648;
      for (const [key, value] of Object.entries(values)) if (value !== ABSENT) metadata[key] = value;
      // Ten documents per day: publication dates tie in threes of ten.
      const publishedAt = new Date(Date.UTC(2025, 0, 1 + Math.floor(n / 10)));
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        now: publishedAt,
        metadata,
      });
      docs.push({ id: documentId, metadata, publishedAt });
    }
    await indexNow(
      app.ctx,
      projectId,
      docs.map((doc) => doc.id),
    );
  });

  afterAll(async () => {
    await app.close();
  });

  /** A document's value of a sort name as a comparable number or string; undefined when it has none. */
  const sortValue = (doc: Published, name: string): number | string | undefined => {
    if (name === 'documentId') return doc.id;
    if (name === 'sortDate' || name.endsWith('PublicationDate')) return doc.publishedAt.getTime();
    const value = doc.metadata[name.slice('metadata.'.length)];
    if (value === undefined) return undefined;
    if (name === 'metadata.publishDate') return Date.parse(value as string);
    if (typeof value === 'boolean') return value ? 1 : 0;
    return value as number | string;
  };

  /** The documents in the order of `sort` (supplement §5): missing values last either way, documentId last. */
  const sortedBy = (sort: string): number[] => {
    const entries = sort.split(',').map((entry) => ({
      name: entry.replace(/^-/, ''),
      sign: entry.startsWith('-') ? -1 : 1,
    }));
    if (!entries.some((entry) => entry.name === 'documentId')) entries.push({ name: 'documentId', sign: 1 });
    const compare = (a: Published, b: Published): number => {
      for (const { name, sign } of entries) {
        const left = sortValue(a, name);
        const right = sortValue(b, name);
        if (left === right) continue;
        if (left === undefined) return 1;
        if (right === undefined) return -1;
        return (left < right ? -1 : 1) * sign;
      }
      return 0;
    };
    return [...docs].sort(compare).map((doc) => doc.id);
  };

  const documentIds = (body: { results: { systemdata: { documentId: number } }[] }) =>
    body.results.map((item) => item.systemdata.documentId);

  /** Every page of a search, following the cursors. */
  const pageThrough = async (query: string, limit: number): Promise<number[]> => {
    const seen: number[] = [];
    let after: string | null = null;
    for (let page = 0; page <= docs.length; page += 1) {
      const response = await api.get(
        `publications/search?${query}&limit=${limit}${after ? `&after=${after}` : ''}`,
      );
      expect(response.status).toBe(200);
      seen.push(...documentIds(response.body));
      after = response.body.cursor as string | null;
      if (!after) break;
    }
    return seen;
  };

  describe('paging with after through ties and missing values', () => {
    it.each([
      '-sortDate,-documentId',
      'sortDate',
      '-lastPublicationDate',
      'metadata.priority',
      '-metadata.priority',
      'metadata.flag',
      '-metadata.flag',
      'metadata.score',
      '-metadata.score',
      'metadata.breaking',
      '-metadata.breaking',
      'metadata.publishDate',
      '-metadata.publishDate',
      'metadata.priority,-metadata.score',
      '-metadata.flag,metadata.breaking,-documentId',
    ])(
      'when paging sort=%s, then every document comes exactly once, in sort order, missing values last',
      async (sort) => {
        for (const limit of [2, 7]) {
          expect(await pageThrough(`sort=${sort}`, limit)).toEqual(sortedBy(sort));
        }
      },
    );
  });
  describe('filters', () => {
    type Filter =
      | { key: string; term: unknown }
      | { key: string; range: Record<string, unknown> }
      | { key: string; exists: boolean }
      | { and: Filter[] }
      | { or: Filter[] }
      | { not: Filter | Filter[] };

    /** The value a filter key reads of a document, dates as epoch milliseconds; undefined when absent. */
    const filterValue = (doc: Published, key: string): unknown => {
      if (key === 'documentId') return doc.id;
      if (key === 'lastPublicationDate') return doc.publishedAt.getTime();
      // These documents have no content: no component of any name, 0 of each.
      if (key.startsWith('statistics.componentCount.')) return 0;
      const value = doc.metadata[key.slice('metadata.'.length)];
      return key === 'metadata.publishDate' && typeof value === 'string' ? Date.parse(value) : value;
    };
    const comparable = (key: string, value: unknown): unknown =>
      key === 'metadata.publishDate' || key === 'lastPublicationDate' ? Date.parse(value as string) : value;

    /** What a filter means, evaluated over one document by hand. */
    const holds = (filter: Filter, doc: Published): boolean => {
      if ('and' in filter) return filter.and.every((inner) => holds(inner, doc));
      if ('or' in filter) return filter.or.some((inner) => holds(inner, doc));
      if ('not' in filter) {
        const inner = Array.isArray(filter.not) ? { and: filter.not } : filter.not;
        return !holds(inner, doc);
      }
      const value = filterValue(doc, filter.key);
      // A component count exists when there is at least one such component.
      if ('exists' in filter) {
        const exists = filter.key.startsWith('statistics.componentCount.')
          ? value !== 0
          : value !== undefined;
        return exists === filter.exists;
      }
      if (value === undefined) return false;
      if ('term' in filter) {
        const terms = Array.isArray(filter.term) ? filter.term : [filter.term];
        return terms.some((term) => comparable(filter.key, term) === value);
      }
      const bound = (name: string) => comparable(filter.key, filter.range[name]) as number;
      const number = value as number;
      return (
        (filter.range.gt === undefined || number > bound('gt')) &&
        (filter.range.gte === undefined || number >= bound('gte')) &&
        (filter.range.lt === undefined || number < bound('lt')) &&
        (filter.range.lte === undefined || number <= bound('lte'))
      );
    };

    /** Random filters over every kind of key, nested up to three levels. */
    const generator = (seed: number) => {
      const random = seeded(seed);
      const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
      const keys: Record<string, { values: () => unknown[]; ranged: boolean }> = {
        'metadata.flag': { values: () => ['red', 'Red', 'blue', 'b', 'green'], ranged: true },
        'metadata.priority': { values: () => [1, 5, -3, 0, 2147483647, -2147483648], ranged: true },
        'metadata.score': { values: () => [1.5, 0.25, -2.5, 0, 2], ranged: true },
        'metadata.breaking': { values: () => [true, false], ranged: false },
        'metadata.publishDate': {
          values: () => ['2024-05-10T00:00:00Z', '2024-05-09T22:00:00-02:00', '2023-01-01T10:00:00.000Z'],
          ranged: true,
        },
        documentId: { values: () => docs.map((doc) => doc.id), ranged: true },
        'statistics.componentCount.paragraph': { values: () => [0, 1, 2, -1], ranged: true },
        lastPublicationDate: {
          values: () => ['2025-01-01T00:00:00Z', '2025-01-02T00:00:00.000Z', '2025-01-02T12:00:00+12:00'],
          ranged: true,
        },
      };
      const leaf = (): Filter => {
        const key = pick(Object.keys(keys));
        const { values, ranged } = keys[key]!;
        const kind = pick(ranged ? ['term', 'terms', 'range', 'exists'] : ['term', 'terms', 'exists']);
        if (kind === 'exists') return { key, exists: random() < 0.5 };
        if (kind === 'term') return { key, term: pick(values()) };
        if (kind === 'terms') return { key, term: [pick(values()), pick(values())] };
        const range: Record<string, unknown> = {};
        if (random() < 0.6) range[pick(['gt', 'gte'])] = pick(values());
        if (random() < 0.6 || Object.keys(range).length === 0) range[pick(['lt', 'lte'])] = pick(values());
        return { key, range };
      };
      const expression = (depth: number): Filter => {
        if (depth === 0 || random() < 0.4) return leaf();
        const operands = () =>
          Array.from({ length: 1 + Math.floor(random() * 3) }, () => expression(depth - 1));
        const combinator = pick(['and', 'or', 'not', 'notArray']);
        if (combinator === 'and') return { and: operands() };
        if (combinator === 'or') return { or: operands() };
        if (combinator === 'not') return { not: expression(depth - 1) };
        return { not: operands() };
      };
      return () => expression(3);
    };

    it('when 150 random filters are applied, then each answers exactly the documents it holds for', async () => {
      const next = generator(7);
      const failures: { filter: Filter; expected: number[]; got: number[] }[] = [];
      for (let n = 0; n < 150; n += 1) {
        const filter = next();
        const response = await api.get(
          `publications/search?sort=documentId&limit=100&filters=${encodeURIComponent(JSON.stringify(filter))}`,
        );
        expect(response.status).toBe(200);
        const expected = docs.filter((doc) => holds(filter, doc)).map((doc) => doc.id);
        const got = documentIds(response.body);
        if (JSON.stringify(got) !== JSON.stringify(expected)) failures.push({ filter, expected, got });
      }
      expect(failures).toEqual([]);
    });
  });
});

describe('publications/search relevance paging while documents are published and unpublished', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let projectId: number;
  const original: number[] = [];

  beforeAll(async () => {
    app = await startTestApp();
    projectId = (await createTestProject(app.ctx)).projectId;
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    // Two kinds of title: scores tie within each kind, as they do among short teasers.
    for (let n = 0; n < 12; n += 1) {
      const title = n % 2 === 0 ? 'Glacier report' : 'Glacier news of the week';
      original.push((await createPublishedDocument(app.ctx, projectId, { metadata: { title } })).documentId);
    }
    await indexNow(app.ctx, projectId, original);
  });

  afterAll(async () => {
    await app.close();
  });

  const page = async (query: string) => {
    const response = await api.get(`publications/search?search=glacier&fields=id&${query}`);
    expect(response.status).toBe(200);
    return {
      ids: (response.body.results as { documentId: number }[]).map((item) => item.documentId),
      cursor: response.body.cursor as string | null,
    };
  };

  it('when documents are published and unpublished between pages (every score moves), then no unchanged document comes twice or is skipped', async () => {
    const first = await page('limit=4');
    expect(first.ids).toHaveLength(4);
    // New matches and one fewer document change every document's score (BM25's collection statistics).
    const added: number[] = [];
    for (let n = 0; n < 5; n += 1) {
      added.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: 'Glacier' } })).documentId,
      );
    }
    const gone = original.find((id) => !first.ids.includes(id))!;
    await unpublish(app.ctx, projectId, gone);
    await indexNow(app.ctx, projectId, [...added, gone]);

    const seen = [...first.ids];
    let cursor = first.cursor;
    while (cursor) {
      const next = await page(`limit=3&after=${cursor}`);
      seen.push(...next.ids);
      cursor = next.cursor;
    }
    const unchanged = seen.filter((id) => original.includes(id));
    expect(unchanged).toHaveLength(new Set(unchanged).size);
    expect([...unchanged].sort((a, b) => a - b)).toEqual(original.filter((id) => id !== gone));
  });
});

describe('publications/search relevance paging while the hits of a page are republished', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp();
  });

  afterAll(async () => {
    await app.close();
  });

  /** A project of `count` teasers that tie on 'glacier' (same title, same publish time), and its client. */
  async function tiedTeasers(count: number) {
    const { projectId } = await createTestProject(app.ctx);
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const now = new Date(Date.UTC(2026, 0, 5, 12));
    const ids: number[] = [];
    for (let n = 0; n < count; n += 1) {
      ids.push(
        (await createPublishedDocument(app.ctx, projectId, { now, metadata: { title: 'Glacier report' } }))
          .documentId,
      );
    }
    await indexNow(app.ctx, projectId, ids);
    const page = async (query: string) => {
      const response = await api.get(`publications/search?search=glacier&fields=id&${query}`);
      expect(response.status).toBe(200);
      return {
        ids: (response.body.results as { documentId: number }[]).map((item) => item.documentId),
        total: response.body.total as number,
        cursor: response.body.cursor as string | null,
      };
    };
    return { projectId, ids, page };
  }

  /** Every page after `cursor`, `limit` at a time, as a client pages with after. */
  async function rest(
    page: (query: string) => Promise<{ ids: number[]; cursor: string | null }>,
    cursor: string | null,
    limit: number,
  ) {
    const seen: number[] = [];
    for (let n = 0; cursor && n < 20; n += 1) {
      const next = await page(`limit=${limit}&after=${cursor}`);
      seen.push(...next.ids);
      cursor = next.cursor;
    }
    return seen;
  }

  it.each([
    ['its last hit is', 'the default sort', 1],
    ['its last two hits are', 'the default sort', 2],
    ['its last three hits are', 'the default sort', 3],
    ['its last hit is', 'sort=relevance', 1],
  ])(
    'when %s republished before the next page (every score moves, the scores tie), under %s, then every document comes exactly once',
    async (_label, sort, republished) => {
      const { projectId, ids, page } = await tiedTeasers(12);
      const sorted = (query: string) => page(sort.startsWith('sort=') ? `${sort}&${query}` : query);
      const first = await sorted('limit=4');
      expect(first.ids).toHaveLength(4);
      const changed = first.ids.slice(-republished);
      for (const id of changed) await republishDocument(app.ctx, projectId, id);
      await indexNow(app.ctx, projectId, changed);

      const seen = [...first.ids, ...(await rest(sorted, first.cursor, 4))];
      expect(seen).toHaveLength(new Set(seen).size);
      expect([...seen].sort((a, b) => a - b)).toEqual(ids);
    },
  );

  it('when a cursor issued before cursors named the earlier hits comes back, then it is taken and paging goes on', async () => {
    const { ids, page } = await tiedTeasers(10);
    const first = await page('limit=4');
    // The same cursor as this server issued it before: the MAC and the JSON {v, s, a, p}, no h.
    const { h, ...before } = JSON.parse(
      Buffer.from(first.cursor!, 'base64url').subarray(16).toString('utf8'),
    ) as Record<string, unknown>;
    expect(h).toHaveLength(3);
    const json = Buffer.from(JSON.stringify(before));
    const mac = createHmac('sha256', app.ctx.config.search.cursorKey).update(json).digest().subarray(0, 16);
    const old = Buffer.concat([mac, json]).toString('base64url');

    const seen = [...first.ids, ...(await rest(page, old, 4))];
    expect(seen).toHaveLength(new Set(seen).size);
    expect([...seen].sort((a, b) => a - b)).toEqual(ids);
  });

  it('when the last hit is republished between every two pages, then every document comes exactly once and total stays the number of matches', async () => {
    const { projectId, ids, page } = await tiedTeasers(13);
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 10; n += 1) {
      const next = await page(`limit=3${cursor ? `&after=${cursor}` : ''}`);
      expect(next.total).toBe(13);
      seen.push(...next.ids);
      cursor = next.cursor;
      if (!cursor) break;
      await republishDocument(app.ctx, projectId, next.ids.at(-1)!);
      await indexNow(app.ctx, projectId, [next.ids.at(-1)!]);
    }
    expect(seen).toHaveLength(new Set(seen).size);
    expect([...seen].sort((a, b) => a - b)).toEqual(ids);
  });
});
