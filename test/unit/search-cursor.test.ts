import { createHmac } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import fc from 'fast-check';
import { AppError } from '../../src/domain/errors';
import {
  checkCursorProject,
  checkCursorValues,
  cursorCodec,
  OTHER_SEARCH,
  searchCursorSignature,
  type CursorCodec,
  type SearchSelection,
} from '../../src/domain/search-cursor';
import type { SortValueKind } from '../../src/domain/search-sort';
import { valueOrThrow } from '../../src/domain/validation';

/** The sort a cursor is decoded under: its signature (SortSpec.fields joined) and its value kinds. */
interface CursorSort {
  signature: string;
  kinds: readonly SortValueKind[];
}

const KEY = Buffer.alloc(32, 1);
const codec = cursorCodec(KEY);
const SORT: CursorSort = { signature: '-sortDate,-documentId', kinds: ['integer', 'integer'] };

/**
 * What a request's cursor goes through: the edge opens it under the sort the request names (codec.decode),
 * the read checks its values against the sort in use (checkCursorValues); either's issues make the 400 keyed
 * `after`.
 */
function decode(raw: string, sort: CursorSort, using: CursorCodec = codec): estypes.FieldValue[] {
  const { values } = valueOrThrow(using.decode(raw, sort.signature), 'after');
  return valueOrThrow(checkCursorValues(values, sort.kinds), 'after');
}

function cursorError(raw: string, sort: CursorSort = SORT, using = codec): string {
  try {
    decode(raw, sort, using);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { status, details } = error as AppError;
    expect(status).toBe(400);
    expect(Object.keys(details).sort()).toEqual(['after', 'name']);
    return String(details.after);
  }
  throw new Error('expected a validation error');
}

const INVALID = 'invalid cursor: pass the cursor of a previous response';
const UNFIT = 'invalid cursor: its values do not fit the sort; start again without after';

/** A cursor laid out as ours are (MAC, then JSON), signed with `key`, whatever its payload. */
function sign(payload: unknown, key: Buffer = KEY): string {
  const json = Buffer.from(JSON.stringify(payload), 'utf8');
  const mac = createHmac('sha256', key).update(json).digest().subarray(0, 16);
  return Buffer.concat([mac, json]).toString('base64url');
}

const payloadOf = (cursor: string) =>
  JSON.parse(Buffer.from(cursor, 'base64url').subarray(16).toString('utf8')) as Record<string, unknown>;

describe('cursorCodec', () => {
  describe('when a cursor is decoded under the sort it was issued for', () => {
    it.each<[estypes.FieldValue[], SortValueKind[]]>([
      [
        [1714557600000, 42],
        ['integer', 'integer'],
      ],
      [
        [1.25, 'ärger "quoted"', null, 1, 0, 7],
        ['score', 'keyword', 'keyword', 'integer', 'integer', 'integer'],
      ],
      [
        [-8_640_000_000_000_000, Number.MAX_SAFE_INTEGER],
        ['integer', 'integer'],
      ],
      [
        ['Infinity', '-Infinity', 2147483647],
        ['float', 'float', 'integer'],
      ],
      [
        [0.5, -3],
        ['float', 'integer'],
      ],
    ])('then it gives back the sort values %p', (values, kinds) => {
      const sort = { signature: 'some,sort', kinds };
      expect(decode(codec.encode(values, sort.signature), sort)).toEqual(values);
    });

    it('then the cursor is URL-safe base64 without padding', () => {
      expect(codec.encode(['a/b+c?', 1, null], SORT.signature)).toMatch(/^[A-Za-z0-9_-]+$/);
    });

    it('then any values of the right kinds round-trip', () => {
      const kinds: SortValueKind[] = ['score', 'integer', 'float', 'keyword'];
      const valueOf: Record<SortValueKind, fc.Arbitrary<estypes.FieldValue>> = {
        // JSON has no -0: Elasticsearch never answers one, and it would come back as 0.
        score: fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x + 0),
        integer: fc.maxSafeInteger(),
        float: fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x + 0),
          fc.constantFrom('Infinity', '-Infinity'),
        ),
        keyword: fc.option(fc.string({ unit: 'grapheme' }), { nil: null }),
      };
      fc.assert(
        fc.property(
          fc
            .array(fc.constantFrom(...kinds), { minLength: 1, maxLength: 6 })
            .chain((sortKinds) =>
              fc.tuple(fc.constant(sortKinds), fc.tuple(...sortKinds.map((kind) => valueOf[kind]))),
            ),
          ([sortKinds, values]) => {
            const sort = { signature: sortKinds.join(','), kinds: sortKinds };
            expect(decode(codec.encode(values, sort.signature), sort)).toEqual(values);
          },
        ),
        { seed: 6, numRuns: 500 },
      );
    });
  });

  describe('when the cursor was issued for another sort', () => {
    it('then it is a 400 that says so', () => {
      const cursor = codec.encode([1714557600000, 42], SORT.signature);
      expect(cursorError(cursor, { signature: 'relevance,-sortDate,-documentId', kinds: SORT.kinds })).toBe(
        'invalid cursor: it was issued for a different sort; start again without after',
      );
    });
  });

  describe('when the cursor was not issued by this server', () => {
    const ours = codec.encode([1, 2], SORT.signature);

    it('then a well-formed cursor signed with another key is refused', () => {
      expect(cursorError(cursorCodec(Buffer.alloc(32, 2)).encode([1, 2], SORT.signature))).toBe(INVALID);
      expect(cursorError(sign(payloadOf(ours), Buffer.alloc(32, 3)))).toBe(INVALID);
    });

    it('then changing any one byte of our cursor makes it invalid', () => {
      const bytes = Buffer.from(ours, 'base64url');
      for (let at = 0; at < bytes.length; at += 1) {
        const tampered = Buffer.from(bytes);
        tampered[at] = tampered[at]! ^ 0x01;
        expect(cursorError(tampered.toString('base64url'))).toBe(INVALID);
      }
    });

    it('then the unsigned cursors of before (base64url of the JSON alone) are refused', () => {
      const forge = (payload: unknown) => Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
      expect(cursorError(forge({ v: 1, s: payloadOf(ours).s, a: [1, 2] }))).toBe(INVALID);
    });

    it.each([
      ['empty', ''],
      ['not base64url', 'abc$def'],
      ['standard base64 with padding', `${Buffer.from('{"v":2}').toString('base64')}==`],
      ['spaces', ` ${ours}`],
      ['not canonical base64url', `${ours}A`],
      ['only a MAC', Buffer.alloc(16).toString('base64url')],
      ['too long', 'A'.repeat(5000)],
    ])('then %s is a 400 keyed after', (_label, raw) => {
      expect(cursorError(raw)).toBe(INVALID);
    });
  });

  describe('when a signed cursor does not have our payload shape', () => {
    it.each([
      ['not JSON', 'not json'],
      ['a JSON array', [1, 2]],
      ['JSON null', null],
      ['another version', { v: 1, s: 'x', a: [1, 2] }],
      ['no signature', { v: 2, a: [1, 2] }],
      ['values that are not an array', { v: 2, s: 'x', a: 1 }],
    ])('then %s is a 400 keyed after', (_label, payload) => {
      const raw =
        typeof payload === 'string'
          ? (() => {
              const json = Buffer.from(payload);
              const mac = createHmac('sha256', KEY).update(json).digest().subarray(0, 16);
              return Buffer.concat([mac, json]).toString('base64url');
            })()
          : sign(payload);
      expect(cursorError(raw)).toBe(INVALID);
    });
  });

  describe('when a signed cursor under this sort has values that do not fit it', () => {
    const s = payloadOf(codec.encode([1, 2], SORT.signature)).s;
    const kinds: SortValueKind[] = ['score', 'integer', 'float', 'keyword'];
    const sort = { signature: SORT.signature, kinds };

    it.each([
      ['too few values', [1.5, 2, 3]],
      ['too many values', [1.5, 2, 3, 'k', 5]],
      ['no values', []],
      ['a string score', ['1.5', 2, 3, 'k']],
      ['a fractional integer', [1.5, 2.5, 3, 'k']],
      ['an integer beyond 2^53', [1.5, 2 ** 60, 3, 'k']],
      ['a string integer', [1.5, '2', 3, 'k']],
      ['a float as another string', [1.5, 2, 'NaN', 'k']],
      ['a number as a keyword', [1.5, 2, 3, 4]],
      ['a boolean', [1.5, true, 3, 'k']],
      ['an object', [1.5, 2, 3, { k: 1 }]],
      ['null where a number goes', [null, 2, 3, 'k']],
    ])('then %s is a 400 keyed after', (_label, values) => {
      expect(cursorError(sign({ v: 2, s, a: values }), sort)).toBe(UNFIT);
    });
  });
});

describe('searchCursorSignature', () => {
  const sortFields = ['-metadata.priority', 'documentId'];

  it('when a search selects by sort alone, then the signature is the sort (what cursors were tied to before)', () => {
    expect(searchCursorSignature({ sortFields })).toBe('-metadata.priority,documentId');
    expect(searchCursorSignature({ sortFields, search: '  ' })).toBe('-metadata.priority,documentId');
  });

  it.each<[string, Partial<SearchSelection>]>([
    ['a search term', { search: 'glacier' }],
    ['another search term', { search: 'glacier tourism' }],
    ['a phrase', { search: '"glacier tourism"' }],
    ['filters', { filters: { key: 'metadata.flag', term: 'red' } }],
    ['other filters', { filters: { key: 'metadata.flag', term: 'blue' } }],
    ['content types', { contentTypes: ['page'] }],
    ['categories', { categories: ['page'] }],
    ['languages', { languages: ['page'] }],
    ['a language group', { languageGroupId: 'page' }],
  ])('when a search adds %s, then its cursors are not those of any other', (_label, selection) => {
    const all = [
      { search: 'glacier' },
      { search: 'glacier tourism' },
      { search: '"glacier tourism"' },
      { filters: { key: 'metadata.flag', term: 'red' } },
      { filters: { key: 'metadata.flag', term: 'blue' } },
      { contentTypes: ['page'] },
      { categories: ['page'] },
      { languages: ['page'] },
      { languageGroupId: 'page' },
      {},
    ].map((other) => searchCursorSignature({ sortFields, ...other }));
    const signature = searchCursorSignature({ sortFields, ...selection });
    expect(all.filter((other) => other === signature)).toHaveLength(1);
  });

  it('when the same search is written another way, then the signature is the same', () => {
    expect(
      searchCursorSignature({ sortFields, search: ' glacier   "ice  age" ', contentTypes: ['b', 'a', 'b'] }),
    ).toBe(searchCursorSignature({ sortFields, search: 'glacier "ice age"', contentTypes: ['a', 'b'] }));
    expect(
      searchCursorSignature({ sortFields, filters: { or: [{ term: 'red', key: 'metadata.flag' }] } }),
    ).toBe(searchCursorSignature({ sortFields, filters: { or: [{ key: 'metadata.flag', term: 'red' }] } }));
  });

  it('when a cursor is decoded under another selection with the search wording, then the 400 says what must stay the same', () => {
    const cursor = codec.encode([1, 2], searchCursorSignature({ sortFields, search: 'a' }));
    const opened = codec.decode(cursor, searchCursorSignature({ sortFields, search: 'b' }), OTHER_SEARCH);
    expect(opened).toEqual({
      ok: false,
      issues: [
        {
          path: [],
          message: `invalid cursor: it was issued for ${OTHER_SEARCH}; start again without after`,
        },
      ],
    });
  });
});

describe('the project a search cursor was issued in', () => {
  it('when a cursor is encoded with a project, then decoding it gives its values and that project', () => {
    const opened = codec.decode(codec.encode([1714557600000, 42], SORT.signature, 7), SORT.signature);
    expect(opened).toEqual({ ok: true, value: { values: [1714557600000, 42], projectId: 7 } });
  });

  it('when a cursor names no project (issued before cursors named one), then it is taken in any project', () => {
    const opened = valueOrThrow(codec.decode(codec.encode([1, 2], SORT.signature), SORT.signature));
    expect(opened.projectId).toBeUndefined();
    expect(checkCursorProject(opened.projectId, 3).ok).toBe(true);
  });

  it('when a signed payload names a project that is no integer, then the cursor is refused as not ours', () => {
    expect(
      cursorError(sign({ v: 2, s: payloadOf(codec.encode([1, 2], SORT.signature)).s, a: [1, 2], p: '7' })),
    ).toBe(INVALID);
  });

  it('when a cursor of one project comes to another, then the 400 says so; in its own project it is fine', () => {
    expect(checkCursorProject(7, 7).ok).toBe(true);
    expect(checkCursorProject(7, 8)).toEqual({
      ok: false,
      issues: [
        { path: [], message: 'invalid cursor: it was issued for another project; start again without after' },
      ],
    });
  });
});

describe("a relevance cursor's earlier hits", () => {
  const RELEVANCE = 'relevance,-sortDate,-documentId';
  const s = payloadOf(codec.encode([1, 2], RELEVANCE)).s;

  it('when a cursor is encoded with earlier hits, then decoding gives them back in order with the values and project', () => {
    const earlierHits = [
      [15, 1],
      [14, 9],
    ] as const;
    const opened = codec.decode(
      codec.encode([1.25, 1714557600000, 12, 3], RELEVANCE, 7, earlierHits),
      RELEVANCE,
    );
    expect(opened).toEqual({
      ok: true,
      value: {
        values: [1.25, 1714557600000, 12, 3],
        projectId: 7,
        earlierHits: [
          [15, 1],
          [14, 9],
        ],
      },
    });
  });

  it('when there are none (a page of one, or a cursor issued before they were added), then the cursor names none', () => {
    const empty = codec.encode([1.25, 1714557600000, 12, 3], RELEVANCE, 7, []);
    expect(payloadOf(empty)).not.toHaveProperty('h');
    const before = sign({ v: 2, s, a: [1.25, 1714557600000, 12, 3], p: 7 });
    expect(valueOrThrow(codec.decode(before, RELEVANCE))).toEqual({
      values: [1.25, 1714557600000, 12, 3],
      projectId: 7,
    });
  });

  it.each([
    ['not an array', { h: 'x' }],
    ['a hit that is no pair', { h: [[1, 2, 3]] }],
    ['a fractional id', { h: [[1.5, 2]] }],
    ['a version beyond 2^53', { h: [[1, 2 ** 60]] }],
    ['a string id', { h: [['1', 2]] }],
    ['more hits than any page gives', { h: Array.from({ length: 17 }, (_, i) => [i, 1]) }],
  ])('when a signed payload has %s as its hits, then the cursor is refused as not ours', (_label, extra) => {
    expect(
      cursorError(sign({ v: 2, s, a: [1.5, 2, 3, 4], ...extra }), { signature: RELEVANCE, kinds: [] }),
    ).toBe(INVALID);
  });
});
