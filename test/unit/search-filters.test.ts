import { AppError } from '../../src/domain/errors';
import {
  compileFilters,
  indexableIsoDate,
  isIsoDate,
  parseFilterJson,
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_DEPTH,
  MAX_TERM_VALUES,
  type IndexedMetadata,
} from '../../src/domain/search-filters';
import { valueOrThrow } from '../../src/domain/validation';

/** The query string's JSON (the edge) then the expression (the read), as the 400 keyed `filters` they make. */
function buildFilterQuery(raw: string, indexedMetadata: IndexedMetadata) {
  const json = valueOrThrow(parseFilterJson(raw), 'filters');
  return valueOrThrow(compileFilters(json, indexedMetadata), 'filters');
}

const METADATA: IndexedMetadata = {
  author: 'keyword',
  teaser: 'text',
  rating: 'integer',
  score: 'float',
  eventDate: 'date',
  featured: 'boolean',
};

const build = (filters: unknown) => buildFilterQuery(JSON.stringify(filters), METADATA);

/** The 400's error_details without its name: one key per offending path. */
function issuesOf(run: () => unknown): Record<string, unknown> {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { status, details } = error as AppError;
    expect(status).toBe(400);
    const { name, ...issues } = details;
    expect(name).toBe('ValidationError');
    return issues;
  }
  throw new Error('expected a validation error');
}

const issues = (filters: unknown) => issuesOf(() => build(filters));

function nestNot(levels: number): unknown {
  let node: unknown = { key: 'documentId', term: 1 };
  for (let i = 0; i < levels; i += 1) node = { not: node };
  return node;
}

describe('buildFilterQuery', () => {
  describe('when a key is filtered with term', () => {
    it.each([
      ['documentId', 12, { term: { documentId: 12 } }],
      ['contentType', 'article', { term: { contentType: 'article' } }],
      ['firstPublicationDate', '2024-05-01', { term: { firstPublicationDate: '2024-05-01' } }],
      [
        'lastPublicationDate',
        '2024-05-01T10:00:00Z',
        { term: { lastPublicationDate: '2024-05-01T10:00:00Z' } },
      ],
      ['significantPublicationDate', '2024-05-01', { term: { significantPublicationDate: '2024-05-01' } }],
      ['visiblePublicationDate', '2024-05-01', { term: { visiblePublicationDate: '2024-05-01' } }],
      ['statistics.characterCount', 1200, { term: { 'statistics.characterCount': 1200 } }],
      ['statistics.componentCount.image', 3, { term: { 'statistics.componentCount.image': 3 } }],
      ['statistics.componentCount.head-1_x', 2, { term: { 'statistics.componentCount.head-1_x': 2 } }],
      ['metadata.author', 'ada', { term: { 'meta_keyword.author': 'ada' } }],
      ['metadata.rating', 4, { term: { 'meta_integer.rating': 4 } }],
      ['metadata.score', 1.5, { term: { 'meta_float.score': 1.5 } }],
      ['metadata.eventDate', '2024-05-01', { term: { 'meta_date.eventDate': '2024-05-01' } }],
      ['metadata.featured', true, { term: { 'meta_boolean.featured': true } }],
      ['publishControl.embargo.enforced', false, { term: { 'publishControl.embargo.enforced': false } }],
      [
        'publishControl.embargo.until',
        '2024-05-01',
        { term: { 'publishControl.embargo.until': '2024-05-01' } },
      ],
    ])('then %s becomes a term query on its document field', (key, term, expected) => {
      expect(build({ key, term })).toEqual(expected);
    });

    it('then a text metadata term is a match query that needs all its words', () => {
      expect(build({ key: 'metadata.teaser', term: 'red fox' })).toEqual({
        match: { 'meta_text.teaser': { query: 'red fox', operator: 'and' } },
      });
    });

    it('then a text metadata term asks for its words with every apostrophe straight, as they are indexed', () => {
      expect(build({ key: 'metadata.teaser', term: 'the harbour\u2019s fox' })).toEqual({
        match: { 'meta_text.teaser': { query: "the harbour's fox", operator: 'and' } },
      });
    });

    it('then an array term is a terms query (any of the values)', () => {
      expect(build({ key: 'contentType', term: ['article', 'gallery'] })).toEqual({
        terms: { contentType: ['article', 'gallery'] },
      });
      expect(build({ key: 'documentId', term: [1, 2] })).toEqual({ terms: { documentId: [1, 2] } });
      expect(build({ key: 'metadata.featured', term: [true] })).toEqual({
        terms: { 'meta_boolean.featured': [true] },
      });
    });

    it('then an array term on text is any of the match queries', () => {
      expect(build({ key: 'metadata.teaser', term: ['fox', 'hound'] })).toEqual({
        bool: {
          should: [
            { match: { 'meta_text.teaser': { query: 'fox', operator: 'and' } } },
            { match: { 'meta_text.teaser': { query: 'hound', operator: 'and' } } },
          ],
          minimum_should_match: 1,
        },
      });
    });
  });

  describe('when a key is filtered with range', () => {
    it('then all four bounds pass through to a range query', () => {
      expect(build({ key: 'documentId', range: { gt: 1, lt: 9 } })).toEqual({
        range: { documentId: { gt: 1, lt: 9 } },
      });
      expect(build({ key: 'statistics.characterCount', range: { gte: 100, lte: 200 } })).toEqual({
        range: { 'statistics.characterCount': { gte: 100, lte: 200 } },
      });
    });

    it.each([
      ['firstPublicationDate', 'firstPublicationDate'],
      ['lastPublicationDate', 'lastPublicationDate'],
      ['significantPublicationDate', 'significantPublicationDate'],
      ['visiblePublicationDate', 'visiblePublicationDate'],
      ['publishControl.embargo.until', 'publishControl.embargo.until'],
      ['metadata.eventDate', 'meta_date.eventDate'],
    ])('then the date key %s takes ISO bounds', (key, field) => {
      expect(build({ key, range: { gte: '2024-01-01', lt: '2024-02-01T00:00:00.000+01:00' } })).toEqual({
        range: { [field]: { gte: '2024-01-01', lt: '2024-02-01T00:00:00.000+01:00' } },
      });
    });

    it('then numbers, component counts and keywords take a range too', () => {
      expect(build({ key: 'metadata.score', range: { gt: -0.5 } })).toEqual({
        range: { 'meta_float.score': { gt: -0.5 } },
      });
      expect(build({ key: 'metadata.rating', range: { lte: 3 } })).toEqual({
        range: { 'meta_integer.rating': { lte: 3 } },
      });
      expect(build({ key: 'statistics.componentCount.image', range: { gte: 1 } })).toEqual({
        range: { 'statistics.componentCount.image': { gte: 1 } },
      });
      expect(build({ key: 'contentType', range: { gte: 'a', lt: 'm' } })).toEqual({
        range: { contentType: { gte: 'a', lt: 'm' } },
      });
      expect(build({ key: 'metadata.author', range: { gt: 'k' } })).toEqual({
        range: { 'meta_keyword.author': { gt: 'k' } },
      });
    });
  });

  describe('when a component count is filtered so that 0 matches', () => {
    // A document has a count field only for the components it holds: without it, it has 0 of them.
    const orAbsent = (query: object, field: string) => ({
      bool: { should: [query, { bool: { must_not: [{ exists: { field } }] } }], minimum_should_match: 1 },
    });
    const field = 'statistics.componentCount.image';

    it.each<[string, object, boolean]>([
      ['term 0', { term: 0 }, true],
      ['term [0, 3]', { term: [0, 3] }, true],
      ['term 3', { term: 3 }, false],
      ['range lt 2', { range: { lt: 2 } }, true],
      ['range lte 0', { range: { lte: 0 } }, true],
      ['range gte 0', { range: { gte: 0 } }, true],
      ['range gt -1 and lt 1', { range: { gt: -1, lt: 1 } }, true],
      ['range gte 1', { range: { gte: 1 } }, false],
      ['range gt 0', { range: { gt: 0 } }, false],
      ['range lt 0', { range: { lt: 0 } }, false],
    ])(
      'then %s takes documents without the field too exactly when 0 satisfies it',
      (_label, operator, zero) => {
        const query = build({ key: field, ...operator });
        const plain =
          'term' in operator
            ? Array.isArray(operator.term)
              ? { terms: { [field]: operator.term } }
              : { term: { [field]: operator.term } }
            : { range: { [field]: (operator as { range: object }).range } };
        expect(query).toEqual(zero ? orAbsent(plain, field) : plain);
      },
    );

    it('then other integers are left as they are: a missing value is missing, not 0', () => {
      expect(build({ key: 'metadata.rating', term: 0 })).toEqual({ term: { 'meta_integer.rating': 0 } });
      expect(build({ key: 'statistics.characterCount', range: { lt: 5 } })).toEqual({
        range: { 'statistics.characterCount': { lt: 5 } },
      });
    });
  });

  describe('when a key is filtered with exists', () => {
    it('then true is an exists query and false its negation', () => {
      expect(build({ key: 'metadata.teaser', exists: true })).toEqual({
        exists: { field: 'meta_text.teaser' },
      });
      expect(build({ key: 'publishControl.embargo.enforced', exists: false })).toEqual({
        bool: { must_not: [{ exists: { field: 'publishControl.embargo.enforced' } }] },
      });
      expect(build({ key: 'statistics.componentCount.video', exists: true })).toEqual({
        exists: { field: 'statistics.componentCount.video' },
      });
    });
  });

  describe('when conditions are combined', () => {
    const a = { key: 'contentType', term: 'article' };
    const b = { key: 'documentId', term: 7 };
    const qa = { term: { contentType: 'article' } };
    const qb = { term: { documentId: 7 } };

    it('then a top-level array is AND in the filter context', () => {
      expect(build([a, b])).toEqual({ bool: { filter: [qa, qb] } });
    });

    it('then an empty top-level array restricts nothing', () => {
      expect(build([])).toEqual({ match_all: {} });
    });

    it('then and, or and not map to bool filter, should and must_not', () => {
      expect(build({ and: [a, b] })).toEqual({ bool: { filter: [qa, qb] } });
      expect(build({ or: [a, b] })).toEqual({ bool: { should: [qa, qb], minimum_should_match: 1 } });
      expect(build({ not: a })).toEqual({ bool: { must_not: [qa] } });
    });

    it('then not over an array negates their AND', () => {
      expect(build({ not: [a, b] })).toEqual({ bool: { must_not: [{ bool: { filter: [qa, qb] } }] } });
    });

    it('then combinators nest freely inside each other and inside arrays', () => {
      expect(build([{ or: [{ and: [a, { not: b }] }, { not: [{ or: [a] }] }] }, b])).toEqual({
        bool: {
          filter: [
            {
              bool: {
                should: [
                  { bool: { filter: [qa, { bool: { must_not: [qb] } }] } },
                  {
                    bool: {
                      must_not: [{ bool: { filter: [{ bool: { should: [qa], minimum_should_match: 1 } }] } }],
                    },
                  },
                ],
                minimum_should_match: 1,
              },
            },
            qb,
          ],
        },
      });
    });

    it(`then ${MAX_FILTER_DEPTH} levels of nesting are allowed and one more is a 400 at its path`, () => {
      expect(() => build(nestNot(MAX_FILTER_DEPTH))).not.toThrow();
      expect(() => build([nestNot(MAX_FILTER_DEPTH - 1)])).not.toThrow();
      const path = ['filters', ...Array<string>(MAX_FILTER_DEPTH).fill('not')].join('.');
      expect(issues(nestNot(MAX_FILTER_DEPTH + 1))).toEqual({
        [path]: expect.stringContaining('at most 10 levels'),
      });
      expect(issues([nestNot(MAX_FILTER_DEPTH)])).toEqual({
        [['filters', '0', ...Array<string>(MAX_FILTER_DEPTH - 1).fill('not')].join('.')]: expect.any(String),
      });
    });

    it('then JSON nested thousands of levels deep is a 400, not a stack overflow when it is shown or keyed', () => {
      // A query string of 16 KB holds 8,000 levels of brackets; the 400's message quotes the value, and the
      // read's cache keys serialise the parsed filters: either would overflow the stack on the raw JSON.
      for (const raw of [
        '['.repeat(8000) + ']'.repeat(8000),
        `${'{"and":['.repeat(5000)}${']}'.repeat(5000)}`,
      ]) {
        const parsed = parseFilterJson(raw);
        expect(parsed).toEqual({
          ok: false,
          issues: [{ path: [], message: expect.stringContaining(`at most ${MAX_FILTER_DEPTH} levels deep`) }],
        });
      }
    });

    it('then the deepest JSON a valid filter can have still parses', () => {
      let node: unknown = { key: 'metadata.rating', term: [1] };
      for (let level = 1; level <= MAX_FILTER_DEPTH; level += 1) node = { or: [node] };
      expect(() => build(node)).not.toThrow();
    });

    it(`then ${MAX_FILTER_CONDITIONS} conditions are allowed and one more is a 400`, () => {
      expect(() => build(Array(MAX_FILTER_CONDITIONS).fill(a))).not.toThrow();
      expect(issues({ or: Array(MAX_FILTER_CONDITIONS + 1).fill(a) })).toEqual({
        filters: `at most ${MAX_FILTER_CONDITIONS} conditions are allowed`,
      });
    });
  });

  describe('when the filters are malformed, then the 400 names the path', () => {
    it('bad JSON is keyed filters', () => {
      expect(issuesOf(() => buildFilterQuery('{"key":', METADATA))).toEqual({
        filters: expect.stringContaining('valid JSON'),
      });
      expect(issuesOf(() => buildFilterQuery('', METADATA))).toEqual({ filters: expect.any(String) });
    });

    it.each([['"contentType"'], ['42'], ['null'], ['true']])('a top-level %s is keyed filters', (raw) => {
      expect(issuesOf(() => buildFilterQuery(raw, METADATA))).toEqual({
        filters: expect.stringContaining('must be a condition {key, term|range|exists} or a combinator'),
      });
    });

    it('an object that is neither condition nor combinator is keyed by its own path', () => {
      expect(issues({})).toEqual({ filters: expect.stringContaining('must be a condition') });
      expect(issues([{ key: 'documentId', term: 1 }, { foo: 1 }])).toEqual({
        'filters.1': expect.stringContaining('got {"foo":1}'),
      });
      expect(issues({ and: [{ key: 'documentId', term: 1 }, 'x'] })).toEqual({
        'filters.and.1': expect.stringContaining('got "x"'),
      });
    });

    it('an unknown key lists the filterable keys', () => {
      const found = issues({ key: 'foo', term: 1 });
      expect(found).toEqual({ 'filters.key': expect.any(String) });
      expect(found['filters.key']).toBe(
        "unknown filter key 'foo'; filterable keys are documentId, contentType, firstPublicationDate, " +
          'lastPublicationDate, significantPublicationDate, visiblePublicationDate, statistics.characterCount, ' +
          'publishControl.embargo.enforced, publishControl.embargo.until, statistics.componentCount.<component name>, ' +
          'metadata.author, metadata.teaser, metadata.rating, metadata.score, metadata.eventDate, metadata.featured',
      );
    });

    it('an unknown key says so when no metadata is indexed', () => {
      expect(issuesOf(() => buildFilterQuery('{"key":"metadata.author","exists":true}', {}))).toEqual({
        'filters.key': expect.stringContaining('no metadata of this project is indexed'),
      });
    });

    it.each([
      ['metadata.notIndexed'],
      ['metadata.'],
      ['metadata.constructor'],
      ['metadata.__proto__'],
      ['statistics.componentCount.'],
      ['statistics.componentCount.a.b'],
      ['statistics.componentCount.*'],
      ['statistics'],
      ['meta_keyword.author'],
      ['DocumentId'],
      [''],
    ])('the key %p is unknown', (key) => {
      expect(issues([{ key, exists: true }])).toEqual({
        'filters.0.key': expect.stringContaining(`unknown filter key '${key}'`),
      });
    });

    it('a key that is not a string is keyed .key', () => {
      expect(issues({ key: 5, term: 1 })).toEqual({
        'filters.key': expect.stringContaining('must be a string'),
      });
      expect(issues({ key: null, exists: true })).toEqual({ 'filters.key': expect.any(String) });
    });

    it('an operator without key is keyed .key', () => {
      expect(issues({ or: [{ term: 'article' }] })).toEqual({
        'filters.or.0.key': 'is required next to term, range or exists',
      });
    });

    it('an unknown operator or extra property is keyed by its name', () => {
      expect(issues({ key: 'contentType', match: 'article' })).toEqual({
        'filters.match': "unknown operator 'match'; a condition has key and one of term, range, exists",
      });
      expect(issues([{ key: 'contentType', term: 'a', boost: 2 }])).toEqual({
        'filters.0.boost': expect.stringContaining("unknown operator 'boost'"),
      });
      expect(issues({ key: 'contentType', term: 'a', __proto__x: 1 })).toEqual({
        'filters.__proto__x': expect.any(String),
      });
    });

    it('a JSON __proto__ property is an unknown operator, not a prototype', () => {
      expect(
        issuesOf(() => buildFilterQuery('{"key":"documentId","term":1,"__proto__":{"x":1}}', METADATA)),
      ).toEqual({
        'filters.__proto__': expect.stringContaining("unknown operator '__proto__'"),
      });
    });

    it('a combinator next to key is keyed by the combinator', () => {
      expect(issues({ key: 'contentType', term: 'a', and: [] })).toEqual({
        'filters.and': expect.stringContaining("unexpected property 'and' next to key"),
      });
    });

    it('a condition without operator is keyed by the condition', () => {
      expect(issues({ and: [{ key: 'contentType' }] })).toEqual({
        'filters.and.0': 'a condition needs one of term, range or exists',
      });
    });

    it('a second operator is keyed by the second one', () => {
      expect(issues([{ key: 'documentId', term: 1, range: { gt: 1 } }])).toEqual({
        'filters.0.range': "only one of term, range, exists per condition; 'term' is already given",
      });
    });

    it('a second combinator or an extra property on a combinator is keyed by its name', () => {
      const a = { key: 'documentId', term: 1 };
      expect(issues({ and: [a], or: [a] })).toEqual({
        'filters.or': expect.stringContaining('exactly one of'),
      });
      expect(issues({ not: a, foo: 1 })).toEqual({
        'filters.foo': expect.stringContaining("unexpected property 'foo'"),
      });
    });

    it('and/or need a non-empty array, not a condition or array', () => {
      expect(issues({ and: { key: 'documentId', term: 1 } })).toEqual({
        'filters.and': expect.stringContaining('must be an array of conditions'),
      });
      expect(issues({ or: [] })).toEqual({ 'filters.or': 'must not be an empty array' });
      expect(issues({ and: [] })).toEqual({ 'filters.and': 'must not be an empty array' });
      expect(issues({ not: [] })).toEqual({ 'filters.not': 'must not be an empty array' });
      expect(issues({ not: 'x' })).toEqual({
        'filters.not': expect.stringContaining('must be a condition or an array of conditions'),
      });
      expect(issues({ or: null })).toEqual({ 'filters.or': expect.any(String) });
    });

    it('range on boolean and text keys is refused', () => {
      expect(issues({ key: 'publishControl.embargo.enforced', range: { gt: false } })).toEqual({
        'filters.range':
          "range is not allowed on boolean key 'publishControl.embargo.enforced'; use term or exists",
      });
      expect(issues([{ key: 'metadata.featured', range: { gte: true } }])).toEqual({
        'filters.0.range': expect.stringContaining('range is not allowed on boolean'),
      });
      expect(issues([{ key: 'metadata.teaser', range: { gte: 'a' } }])).toEqual({
        'filters.0.range': expect.stringContaining("range is not allowed on text key 'metadata.teaser'"),
      });
    });

    it('a range must be an object with known, single-sided bounds', () => {
      expect(
        issues([
          { key: 'documentId', term: 1 },
          { key: 'documentId', range: 5 },
        ]),
      ).toEqual({
        'filters.1.range': expect.stringContaining('must be an object with at least one of gt, gte, lt, lte'),
      });
      expect(issues({ key: 'documentId', range: {} })).toEqual({
        'filters.range': 'must have at least one of gt, gte, lt, lte',
      });
      expect(issues({ key: 'documentId', range: { from: 1, gt: 0 } })).toEqual({
        'filters.range.from': "unknown range bound 'from'; use gt, gte, lt, lte",
      });
      expect(issues({ key: 'documentId', range: { gt: 1, gte: 1 } })).toEqual({
        'filters.range': 'use gt or gte, not both',
      });
      expect(issues({ key: 'documentId', range: { lt: 1, lte: 1 } })).toEqual({
        'filters.range': 'use lt or lte, not both',
      });
    });

    it('a number past what a double holds (1e309, read as Infinity) is shown as such, not as null', () => {
      expect(
        issuesOf(() => buildFilterQuery('{"key":"documentId","range":{"gte":1e309,"lt":-1e309}}', METADATA)),
      ).toEqual({
        'filters.range.gte': `must be an integer between -9007199254740991 and 9007199254740991 for 'documentId', got a number too large for a double (Infinity)`,
        'filters.range.lt': `must be an integer between -9007199254740991 and 9007199254740991 for 'documentId', got a number too large for a double (-Infinity)`,
      });
      expect(issuesOf(() => buildFilterQuery('1e309', METADATA))).toEqual({
        filters: expect.stringMatching(/got a number too large for a double \(Infinity\)$/) as unknown,
      });
    });

    it('a number past what a double holds inside a value shown whole is shown as Infinity, not as null', () => {
      // JSON.stringify writes Infinity as null: the 400 said `got {"documentId":null}`, which the client never sent.
      expect(issuesOf(() => buildFilterQuery('{"documentId":1e309}', METADATA))).toEqual({
        filters:
          'must be a condition {key, term|range|exists} or a combinator {and|or|not}, got {"documentId":Infinity} ' +
          '(Infinity: a number too large for a double)',
      });
      expect(issuesOf(() => buildFilterQuery('{"key":"documentId","range":[1,-1e309]}', METADATA))).toEqual({
        'filters.range':
          'must be an object with at least one of gt, gte, lt, lte, got [1,-Infinity] ' +
          '(-Infinity: a number too large for a double)',
      });
    });

    it('a date bound whose offset lost its + to the query string says to send it as %2B', () => {
      // `+02:00` written unencoded in a URL arrives as ` 02:00`: the date the client sees in what it sent is fine.
      expect(issues({ key: 'lastPublicationDate', range: { gte: '2024-05-01T12:00:00 02:00' } })).toEqual({
        'filters.range.gte':
          "must be an ISO 8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z for 'lastPublicationDate', " +
          "got \"2024-05-01T12:00:00 02:00\"; its offset's '+' arrived as a space (a '+' in a query string is one): " +
          'send it as %2B, e.g. 2024-05-01T12:00:00%2B02:00',
      });
      expect(issues({ key: 'metadata.eventDate', term: '2024-05-01T12:00 02:00' })).toEqual({
        'filters.term': expect.stringContaining('send it as %2B, e.g. 2024-05-01T12:00%2B02:00'),
      });
      // Not a date with a + put back either: the plain wording.
      expect(issues({ key: 'lastPublicationDate', range: { gte: '2024-13-01T12:00:00 02:00' } })).toEqual({
        'filters.range.gte': expect.not.stringContaining('%2B'),
      });
    });

    it('a long key or value is shown cut, with its length, not whole', () => {
      const long = 'k'.repeat(10_000);
      expect(issues({ key: long, term: 1 })['filters.key']).toMatch(
        new RegExp(`^unknown filter key '${'k'.repeat(100)}…' \\(10000 characters\\); filterable keys are `),
      );
      expect(issues({ key: 'documentId', term: [long] })).toEqual({
        'filters.term.0': `must be an integer between -9007199254740991 and 9007199254740991 for 'documentId', got "${'k'.repeat(99)}… (10002 characters)`,
      });
      expect(issues({ key: 'documentId', [long]: 1 })).toEqual({
        // The key of error_details, the client's own key, is cut the same way.
        [`filters.${'k'.repeat(100)}… (10000 characters)`]: `unknown operator '${'k'.repeat(100)}…' (10000 characters); a condition has key and one of term, range, exists`,
      });
    });

    it('a bound of the wrong type is keyed by the bound', () => {
      expect(issues({ key: 'documentId', range: { gte: '5' } })).toEqual({
        'filters.range.gte': `must be an integer between -9007199254740991 and 9007199254740991 for 'documentId', got "5"`,
      });
      expect(
        issues({ key: 'visiblePublicationDate', range: { lt: 'yesterday', gt: 1714557600000 } }),
      ).toEqual({
        'filters.range.lt': expect.stringContaining('must be an ISO 8601 date'),
        'filters.range.gt': expect.stringContaining('got 1714557600000'),
      });
      expect(issues({ key: 'contentType', range: { lt: 3 } })).toEqual({
        'filters.range.lt': "must be a string for 'contentType', got 3",
      });
    });

    it.each([
      ['documentId', '12', 'must be an integer'],
      ['documentId', 1.5, 'must be an integer'],
      ['documentId', 2 ** 53, 'must be an integer'],
      ['statistics.characterCount', 2 ** 31, 'must be an integer between -2147483648 and 2147483647'],
      ['statistics.componentCount.image', '1', 'must be an integer between'],
      ['metadata.rating', 4.5, 'must be an integer between'],
      ['metadata.score', '1.5', 'must be a number'],
      ['contentType', 5, 'must be a string'],
      ['metadata.author', false, 'must be a string'],
      ['metadata.teaser', 1, 'must be a string'],
      ['firstPublicationDate', '2024-02-30', 'must be an ISO 8601 date'],
      ['metadata.eventDate', 1714557600000, 'must be an ISO 8601 date'],
      ['publishControl.embargo.until', 'now', 'must be an ISO 8601 date'],
      ['publishControl.embargo.enforced', 'true', 'must be true or false'],
      ['metadata.featured', 1, 'must be true or false'],
      ['contentType', null, 'got null'],
      ['contentType', { value: 'a' }, 'must be a string'],
    ])('a term on %s of %p is keyed .term', (key, term, message) => {
      expect(issues({ and: [{ key, term }] })).toEqual({
        'filters.and.0.term': expect.stringContaining(message),
      });
    });

    it('a float too large for JSON numbers is refused', () => {
      expect(issuesOf(() => buildFilterQuery('{"key":"metadata.score","term":1e400}', METADATA))).toEqual({
        'filters.term': expect.stringContaining('must be a number'),
      });
    });

    it('a term array must be non-empty, bounded, and each value is keyed by its index', () => {
      expect(issues({ key: 'contentType', term: [] })).toEqual({
        'filters.term': 'must not be an empty array; give at least one value',
      });
      expect(issues({ key: 'contentType', term: Array(MAX_TERM_VALUES + 1).fill('a') })).toEqual({
        'filters.term': `must have at most ${MAX_TERM_VALUES} values`,
      });
      expect(issues({ key: 'documentId', term: [1, 'b', 3, 4.5] })).toEqual({
        'filters.term.1': expect.stringContaining('must be an integer'),
        'filters.term.3': expect.stringContaining('must be an integer'),
      });
      expect(issues({ key: 'contentType', term: [['a']] })).toEqual({
        'filters.term.0': expect.stringContaining('must be a string'),
      });
    });

    it('exists must be a boolean', () => {
      expect(issues({ key: 'contentType', exists: 'yes' })).toEqual({
        'filters.exists': 'must be true or false, got "yes"',
      });
    });

    it('deep paths are named segment by segment', () => {
      expect(
        issues({
          and: [{ or: [{ key: 'documentId', term: 1 }, { not: { key: 'documentId', range: { gt: 'x' } } }] }],
        }),
      ).toEqual({ 'filters.and.0.or.1.not.range.gt': expect.stringContaining('must be an integer') });
      expect(
        issues([
          {
            not: [
              { key: 'documentId', term: 1 },
              { key: 'x', exists: true },
            ],
          },
        ]),
      ).toEqual({
        'filters.0.not.1.key': expect.stringContaining("unknown filter key 'x'"),
      });
    });

    it('problems in sibling conditions are reported together', () => {
      expect(
        issues([
          { key: 'foo', term: 1 },
          { key: 'documentId', term: 'x' },
          {
            or: [
              { key: 'contentType', exists: 1 },
              { key: 'metadata.featured', range: { gt: true } },
            ],
          },
        ]),
      ).toEqual({
        'filters.0.key': expect.stringContaining("unknown filter key 'foo'"),
        'filters.1.term': expect.stringContaining('must be an integer'),
        'filters.2.or.0.exists': expect.stringContaining('must be true or false'),
        'filters.2.or.1.range': expect.stringContaining('range is not allowed on boolean'),
      });
    });

    it('an invalid key still reports a malformed operator next to it', () => {
      expect(issues({ key: 'foo', term: 1, match: 2 })).toEqual({
        'filters.match': expect.stringContaining("unknown operator 'match'"),
        'filters.key': expect.stringContaining("unknown filter key 'foo'"),
      });
    });
  });
});

describe('isIsoDate', () => {
  it.each([
    '2024-05-01',
    '2024-02-29',
    '2000-02-29',
    '2024-05-01T12:00',
    '2024-05-01T12:00Z',
    '2024-05-01T12:00:59',
    '2024-05-01T12:00:00Z',
    '2024-05-01T23:59:59.999Z',
    '2024-05-01T12:00:00.123456789+02:00',
    '2024-05-01T12:00:00-05:30',
    '2024-05-01T12:00:00+18:00',
    '2024-05-01T12:00:00-18:00',
  ])('accepts %s', (value) => {
    expect(isIsoDate(value)).toBe(true);
  });

  it.each([
    '',
    'now',
    '2024',
    '2024-5-1',
    '2023-02-29',
    '1900-02-29',
    '2024-04-31',
    '2024-00-10',
    '2024-13-01',
    '2024-05-00',
    '2024-05-01T24:00:00Z',
    '2024-05-01T12:60:00Z',
    '2024-05-01T12:00:60Z',
    '2024-05-01T12',
    '2024-05-01 12:00:00',
    '2024-05-01T12:00:00+19:00',
    // Elasticsearch (java.time's ZoneOffset) reads offsets up to ±18:00 only: past it, a 500 for a filter and
    // a refused document for a metadata date.
    '2024-05-01T12:00:00+18:01',
    '2024-05-01T12:00:00-18:30',
    '9999-12-31T23:59:59.999999999+18:59',
    '2024-05-01T12:00:00.Z',
    '1714557600000',
  ])('refuses %p', (value) => {
    expect(isIsoDate(value)).toBe(false);
  });
});

describe('indexableIsoDate', () => {
  it.each(['2024-05-01', '2024-05-01T12:00:00.123456789+02:00', '2024-02-29T23:59:59.999Z'])(
    'keeps %s as it is',
    (value) => {
      expect(indexableIsoDate(value)).toBe(value);
    },
  );

  it.each([
    ['2018-03-07T24:00:00.000Z', '2018-03-08T00:00:00Z'],
    ['2018-03-07T24:00', '2018-03-08T00:00:00'],
    ['2018-03-31T24:00:00+02:00', '2018-04-01T00:00:00+02:00'],
    ['2024-02-28T24:00:00Z', '2024-02-29T00:00:00Z'],
    ['2023-12-31T24:00:00.000000000-05:30', '2024-01-01T00:00:00-05:30'],
  ])('reads the end of the day %s as the midnight %s', (value, midnight) => {
    expect(indexableIsoDate(value)).toBe(midnight);
  });

  it.each([
    '2018-03-07T24:01:00Z',
    '2018-03-07T24:00:01Z',
    '2018-03-07T24:00:00.001Z',
    '2023-02-29T24:00:00Z',
    '2018-03-07T24:00:00+19:00',
    '9999-12-31T24:00:00Z',
    '2018-03-07T25:00:00Z',
    'now',
  ])('leaves %p out', (value) => {
    expect(indexableIsoDate(value)).toBeUndefined();
  });
});
