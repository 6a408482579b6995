import {
  applyPreload,
  asDocumentId,
  findIncludeRequests,
  MAX_INCLUDED_DOCUMENTS,
  MAX_PRELOADED_REFERENCES,
  preloadBudgetFilled,
  preloadReferences,
  resolveIncludes,
  type PublishedSummary,
} from '../../src/domain/composition';
import type { Content, Metadata } from '../../src/domain/content';
import { parseOrThrow } from '../../src/domain/validation';
import { compositionBody } from '../../src/http/routes/composition/composition.schema';
import { validationDetails } from '../helpers/errors';
import { loadPublication } from '../helpers/fixtures';

const summary = (documentId: number, title: string): PublishedSummary => ({
  systemdata: { documentId },
  metadata: { title },
});

describe('asDocumentId', () => {
  it('when a stored id is a positive safe integer or its digits, then it is an id; anything else is not', () => {
    expect([5, '5', '0012'].map(asDocumentId)).toEqual([5, 5, 12]);
    for (const bad of [0, -1, 1.5, '1e3', '', 'x', '9007199254740993', 2 ** 53, null, {}]) {
      expect(asDocumentId(bad)).toBeUndefined();
    }
  });
});

describe('metadata.preload', () => {
  const metadata: Metadata = {
    title: 'T',
    related: { $ref: 'document', reference: { id: '12' } },
    stale: {
      $ref: 'document',
      reference: { id: '13' },
      isPreloaded: true,
      value: { metadata: { title: 'old' } },
    },
    authors: { $ref: 'documents', references: [{ id: '20' }, { id: 'x' }, { id: '21' }] },
    several: [{ $ref: 'document', reference: { id: 30 } }, 'text'],
    plain: { nested: { $ref: 'document', reference: { id: '40' } } },
  };
  const preload = {
    related: true,
    stale: true,
    authors: true,
    several: true,
    plain: true,
    title: true,
    absent: true,
  };

  it('when properties are asked for, then their document ids come in metadata order, repeats kept', () => {
    expect(preloadReferences(metadata, preload)).toEqual([12, 13, 20, 21, 30]);
    const repeated = { ...metadata, again: { $ref: 'documents', references: [{ id: '21' }, { id: 12 }] } };
    expect(preloadReferences(repeated, { ...preload, again: true })).toEqual([12, 13, 20, 21, 30, 21, 12]);
    expect(preloadReferences(metadata, { related: false })).toEqual([]);
    expect(preloadReferences(metadata, {})).toEqual([]);
  });

  it('when targets are found or not, then each holder says isPreloaded, with a value only when found', () => {
    const found = new Map([
      [12, summary(12, 'Twelve')],
      [21, summary(21, 'Twenty-one')],
    ]);
    expect(applyPreload(metadata, preload, found)).toEqual({
      title: 'T',
      related: { $ref: 'document', reference: { id: '12' }, isPreloaded: true, value: summary(12, 'Twelve') },
      // A value stored with the metadata never passes for a preload.
      stale: { $ref: 'document', reference: { id: '13' }, isPreloaded: false },
      authors: {
        $ref: 'documents',
        references: [
          { id: '20', isPreloaded: false },
          { id: 'x', isPreloaded: false },
          { id: '21', isPreloaded: true, value: summary(21, 'Twenty-one') },
        ],
      },
      several: [{ $ref: 'document', reference: { id: 30 }, isPreloaded: false }, 'text'],
      plain: metadata.plain,
    });
  });

  it('when a property is not asked for, then it is left exactly as stored, and the input is not changed', () => {
    const before = structuredClone(metadata);
    const result = applyPreload(metadata, { related: true }, new Map([[12, summary(12, 'x')]]));
    expect(result.stale).toBe(metadata.stale);
    expect(metadata).toEqual(before);
  });
});

describe('findIncludeRequests', () => {
  it('when a param lists 150,000 references, then the request keeps the first 1000 distinct ids, not a RangeError', () => {
    const references = Array.from({ length: 150_000 }, (_, index) => ({ id: String(index + 1) }));
    const [request] = findIncludeRequests([
      {
        id: 'm',
        component: 'embed',
        content: { t: { service: 's', params: { docs: { $ref: 'documents', references } } } },
      },
    ] as Content);
    expect(request?.documentIds).toHaveLength(1000);
    expect(request?.documentIds[999]).toBe(1000);
  });

  it("when article 324's teasers are read, then each include names its document, layout and component", () => {
    const requests = findIncludeRequests(loadPublication('articles/324.json').content);
    expect(requests).toHaveLength(10);
    expect(requests[0]).toEqual({
      componentId: 'doc-3613c80qkl',
      directiveName: 'embed',
      service: 'teaser',
      layout: 'author-embed',
      documentIds: [314],
    });
    expect(
      requests.filter((request) => request.componentId === '0.footer.0').map((r) => r.directiveName),
    ).toEqual(['teaser1-left', 'teaser1-right', 'teaser2-left', 'teaser2-right']);
  });

  it('when the homepage hero references its document with $ref, then that is its target', () => {
    const home = loadPublication('pages/home.json');
    const hero = findIncludeRequests(home.content).find((request) => request.documentIds.includes(321));
    expect(hero).toBeDefined();
  });

  it('when params name lists, ids, several documents or nothing usable, then only resolvable includes come', () => {
    const embed = (id: string, params: Record<string, unknown>) => ({
      id,
      component: 'embed',
      content: { teaser: { service: 'list-teaser', params } },
    });
    const content = [
      embed('list', { list: { $ref: 'list', reference: { id: '7' } }, limit: 3 }),
      embed('legacy-list', { listId: 8, limit: 500 }),
      embed('bad-limit', { listId: '9', limit: 'lots' }),
      embed('counted', { listId: 10, count: 2 }),
      embed('limit-and-count', { listId: 11, limit: 4, count: 2 }),
      embed('docs', {
        a: { $ref: 'documents', references: [{ id: '1' }, { id: '2' }] },
        b: { $ref: 'document', reference: { id: 1 } },
      }),
      embed('nothing', { size: 'large', url: 'https://x.example' }),
      embed('bad-ids', { mediaId: 'abc', doc: { $ref: 'document', reference: { id: '-4' } } }),
      { id: 'text', component: 'p', content: { text: 'no includes', teaser: { service: 'x' } } },
    ] as Content;
    expect(findIncludeRequests(content)).toEqual([
      {
        componentId: 'list',
        directiveName: 'teaser',
        service: 'list-teaser',
        documentIds: [],
        list: { id: 7, limit: 3 },
      },
      {
        componentId: 'legacy-list',
        directiveName: 'teaser',
        service: 'list-teaser',
        documentIds: [],
        list: { id: 8, limit: 100 },
      },
      {
        componentId: 'bad-limit',
        directiveName: 'teaser',
        service: 'list-teaser',
        documentIds: [],
        list: { id: 9, limit: 10 },
      },
      {
        componentId: 'counted',
        directiveName: 'teaser',
        service: 'list-teaser',
        documentIds: [],
        list: { id: 10, limit: 2 },
      },
      {
        componentId: 'limit-and-count',
        directiveName: 'teaser',
        service: 'list-teaser',
        documentIds: [],
        list: { id: 11, limit: 4 },
      },
      { componentId: 'docs', directiveName: 'teaser', service: 'list-teaser', documentIds: [1, 2] },
    ]);
  });
});

describe('the preload budget', () => {
  it('when a reference is repeated past the budget, then only the first ones get a value', () => {
    // 512 KB of metadata holds some 40000 of these, each a copy of the target's systemdata and metadata.
    const references = Array.from({ length: 40_000 }, () => ({ id: '12' }));
    const metadata: Metadata = {
      one: { $ref: 'document', reference: { id: '12' } },
      many: { $ref: 'documents', references },
    };
    const result = applyPreload(metadata, { one: true, many: true }, new Map([[12, summary(12, 'x')]]));
    expect(result.one).toMatchObject({ isPreloaded: true, value: summary(12, 'x') });
    const items = (result.many as { references: { isPreloaded: boolean }[] }).references;
    expect(items.filter((item) => item.isPreloaded)).toHaveLength(MAX_PRELOADED_REFERENCES - 1);
    expect(items[MAX_PRELOADED_REFERENCES - 2]).toMatchObject({ isPreloaded: true });
    expect(items[MAX_PRELOADED_REFERENCES - 1]).toEqual({ id: '12', isPreloaded: false });
  });
});

describe('reading preload targets until the budget is used up', () => {
  const found = (ids: readonly number[]) => new Map(ids.map((id) => [id, summary(id, `#${id}`)]));
  const budget = MAX_PRELOADED_REFERENCES;

  it('when the references before the first unread target give the budget values, then it is filled', () => {
    const references = [...Array.from({ length: budget }, (_, index) => index + 1), 5000];
    expect(preloadBudgetFilled(references, 5000, found(references.slice(0, budget)))).toBe(true);
  });

  it('when some of them found nothing, then it is not, and the unread target is still needed', () => {
    const references = [...Array.from({ length: budget }, (_, index) => index + 1), 5000];
    expect(preloadBudgetFilled(references, 5000, found(references.slice(1, budget)))).toBe(false);
  });

  it('when a target read already is referred to again before the unread one, then each reference counts', () => {
    const references = [...Array.from({ length: budget - 2 }, () => 7), 8, 9, 7, 5000];
    expect(preloadBudgetFilled(references, 5000, found([7]))).toBe(false);
    expect(preloadBudgetFilled(references, 5000, found([7, 8]))).toBe(true);
  });

  it('when references to read targets come only after the unread one, then they do not count', () => {
    // applyPreload may give the unread target a value before those: it must be read.
    const references = [1, 5000, ...Array.from({ length: budget }, () => 1)];
    expect(preloadBudgetFilled(references, 5000, found([1]))).toBe(false);
  });
});

describe('the include budget', () => {
  it('when includes ask for more documents than an answer may hold, then those past the budget ask for nothing', () => {
    // 2 MB of content holds some 20000 of these: at 100 documents each, an answer of gigabytes.
    const content: Content = Array.from({ length: 20_000 }, (_, index) => ({
      id: `c${index}`,
      component: 'embed',
      content: { teaser: { service: 'list', params: { listId: 7, limit: 100 } } },
    }));
    content.unshift({
      id: 'refs',
      component: 'embed',
      content: {
        teaser: {
          service: 'teaser',
          params: { more: { $ref: 'documents', references: [{ id: 1 }, { id: 2 }] } },
        },
      },
    });
    const requests = findIncludeRequests(content);
    expect(requests).toHaveLength(20_001);
    const asked = requests.reduce((sum, r) => sum + r.documentIds.length + (r.list?.limit ?? 0), 0);
    expect(asked).toBe(MAX_INCLUDED_DOCUMENTS);
    expect(requests[0]!.documentIds).toEqual([1, 2]);
    expect(requests[1]!.list).toEqual({ id: 7, limit: 100 });
    // 2 + 9 × 100 = 902: the eleventh list include gets the 98 left, the next ones nothing.
    expect(requests[10]!.list).toEqual({ id: 7, limit: 98 });
    expect(requests[11]).toEqual({
      componentId: 'c10',
      directiveName: 'teaser',
      service: 'list',
      documentIds: [],
    });
  });
});

describe('resolveIncludes', () => {
  it('when documents and lists are found, then each include gets its published documents, a list cut to its limit', () => {
    const found = new Map([1, 2, 3, 5].map((id) => [id, summary(id, `Doc ${id}`)]));
    const resolved = resolveIncludes(
      [
        { componentId: 'a', directiveName: 'd', service: 'teaser', layout: 'card', documentIds: [1, 4] },
        {
          componentId: 'b',
          directiveName: 'd',
          service: 'teaser',
          documentIds: [2],
          list: { id: 9, limit: 2 },
        },
      ],
      new Map([[9, [3, 2, 5]]]),
      found,
    );
    expect(resolved).toEqual([
      {
        componentId: 'a',
        directiveName: 'd',
        resolvedValue: {
          content: [
            {
              id: 'include-1',
              component: 'teaser',
              content: { documentId: 1, layout: 'card', ...summary(1, 'Doc 1') },
            },
          ],
        },
      },
      {
        componentId: 'b',
        directiveName: 'd',
        resolvedValue: {
          content: [
            { id: 'include-2', component: 'teaser', content: { documentId: 2, ...summary(2, 'Doc 2') } },
            { id: 'include-3', component: 'teaser', content: { documentId: 3, ...summary(3, 'Doc 3') } },
          ],
        },
      },
    ]);
  });
});

describe('the composition body', () => {
  const parse = (body: unknown) => parseOrThrow(compositionBody, body);

  it('when the body is absent or empty, then the defaults: every field (the vendor default), includes resolved', () => {
    expect(parse(undefined)).toEqual({
      fields: ['systemdata', 'metadata', 'content', 'html', 'includes', 'design'],
      preload: {},
      renderDirectiveInfo: false,
      resolveIncludes: true,
      conditions: {},
    });
    expect(parse({}).fields).toEqual(parse(undefined).fields);
    expect(parse({ resolveIncludes: false })).toMatchObject({
      fields: ['systemdata', 'metadata', 'content', 'html', 'includes', 'design'],
      resolveIncludes: false,
    });
    expect(parse({ fields: ['html', 'html'], resolveIncludes: false })).toMatchObject({
      fields: ['html'],
      resolveIncludes: false,
    });
  });

  it('when componentConditions is an object or its JSON, then it is read; ignored, it is still checked (supplement §6)', () => {
    expect(parse({ componentConditions: { brand: 'de' } }).conditions).toEqual({ brand: 'de' });
    expect(parse({ componentConditions: '{"dateTime":"2025-01-01"}' }).conditions).toEqual({
      dateTime: new Date('2025-01-01T00:00:00Z'),
    });
    expect(
      parse({ ignoreComponentConditions: true, componentConditions: { brand: 'de' } }).conditions,
    ).toBeNull();
    expect(
      validationDetails(() => parse({ ignoreComponentConditions: true, componentConditions: 7 })),
    ).toEqual({
      name: 'ValidationError',
      componentConditions: expect.any(String) as unknown,
    });
    expect(validationDetails(() => parse({ componentConditions: '[' }))).toEqual({
      name: 'ValidationError',
      componentConditions: expect.stringContaining('must be valid JSON') as unknown,
    });
  });

  it('when preload names too many properties, then 400 at metadata.preload', () => {
    const preload = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`p${i}`, true]));
    expect(validationDetails(() => parse({ metadata: { preload } }))).toEqual({
      name: 'ValidationError',
      'metadata.preload': 'must name at most 100 metadata properties',
    });
  });

  it('when preload names 100,000 properties that are no booleans, then one 400 at metadata.preload, at once', () => {
    // Each entry was checked first (an issue each) and the count only after: seconds of work per request.
    const preload = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`p${i}`, 'yes']));
    const started = Date.now();
    expect(validationDetails(() => parse({ metadata: { preload } }))).toEqual({
      name: 'ValidationError',
      'metadata.preload': 'must name at most 100 metadata properties',
    });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
