import { z } from 'zod';
import { AppError } from '../../src/domain/errors';
import { parseOrThrow } from '../../src/domain/validation';
import {
  commaList,
  dateTimeParam,
  dateTimeRoundingUpParam,
  documentIdParam,
  idListParam,
  idParam,
  integerParam,
  parseQueryOrThrow,
  parseQueryString,
  queryBoolean,
  queryListItems,
  viewFields,
  withConditions,
} from '../../src/http/query-params';

const detailsOf = (schema: z.ZodType, input: unknown): Record<string, unknown> => {
  try {
    parseOrThrow(z.object({ id: schema }), { id: input });
  } catch (error) {
    if (error instanceof AppError) return error.details;
  }
  throw new Error('expected the input to be refused');
};

const LARGEST = '9007199254740991';
const TOO_BIG = `must be at most ${LARGEST}, the largest id this API can read exactly`;

describe('id parameters', () => {
  it('when an id is at most Number.MAX_SAFE_INTEGER, then it is read exactly', () => {
    expect(parseOrThrow(idParam, LARGEST)).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseOrThrow(idParam, '0')).toBe(0);
    expect(parseOrThrow(documentIdParam, '9007199254740990')).toBe(9007199254740990);
    expect(parseOrThrow(idListParam(10), `1,${LARGEST}`)).toEqual([1, Number.MAX_SAFE_INTEGER]);
  });

  it('when an id is beyond it, then 400 saying the largest exact id, whatever its length', () => {
    for (const value of ['9007199254740992', '9999999999999999', '10000000000000000', '9'.repeat(400)]) {
      expect(detailsOf(idParam, value)).toEqual({ name: 'ValidationError', id: TOO_BIG });
      expect(detailsOf(documentIdParam, value)).toEqual({ name: 'ValidationError', id: TOO_BIG });
    }
    expect(detailsOf(idListParam(10), '1,9007199254740992')).toEqual({
      name: 'ValidationError',
      id: `each id ${TOO_BIG}`,
    });
  });

  it('when an id is not a plain integer, then the message says what an id is', () => {
    for (const value of ['abc', '-1', '1.5', '1e3', '']) {
      expect(detailsOf(idParam, value)).toEqual({
        name: 'ValidationError',
        id: 'must be a non-negative integer id',
      });
    }
    for (const value of ['0', '01', 'x']) {
      expect(detailsOf(documentIdParam, value)).toEqual({
        name: 'ValidationError',
        id: 'must be a positive integer',
      });
    }
    expect(detailsOf(idListParam(10), '1,a')).toEqual({
      name: 'ValidationError',
      id: 'must be a document id or a comma separated list of document ids',
    });
    expect(detailsOf(idListParam(2), '1,2,3')).toEqual({
      name: 'ValidationError',
      id: 'must list at most 2 ids',
    });
  });
});

describe('integer parameters (limit, offset)', () => {
  it('when a value is beyond the bounds, then 400 names the bound, however many digits it has', () => {
    // offset=11111111111111111111 said 'must be <= 9007199254740991' (offsets end at 10000), and
    // limit=999…9 (400 digits) 'must be a number'.
    const offset = integerParam(0, 10_000);
    for (const value of ['10001', '11111111111111111111', '9'.repeat(400)]) {
      expect(detailsOf(offset, value)).toEqual({ name: 'ValidationError', id: 'must be <= 10000' });
    }
    for (const value of ['-1', '-11111111111111111111', `-${'9'.repeat(400)}`]) {
      expect(detailsOf(offset, value)).toEqual({ name: 'ValidationError', id: 'must be >= 0' });
    }
    expect(parseOrThrow(offset, '10000')).toBe(10_000);
    expect(detailsOf(offset, '1.5')).toEqual({ name: 'ValidationError', id: 'must be an integer' });
  });
});

describe('date-time range bounds (instants held to the millisecond)', () => {
  const at = (roundUp: boolean, value: string) =>
    parseOrThrow(roundUp ? dateTimeRoundingUpParam : dateTimeParam, value).toISOString();

  it('when a bound has no digits past the millisecond, then it is that instant either way', () => {
    for (const roundUp of [false, true]) {
      expect(at(roundUp, '2025-02-01T00:05:00Z')).toBe('2025-02-01T00:05:00.000Z');
      expect(at(roundUp, '2025-02-01T00:05:00.120000Z')).toBe('2025-02-01T00:05:00.120Z');
      expect(at(roundUp, '2025-02-01')).toBe('2025-02-01T00:00:00.000Z');
    }
  });

  it('when a bound lies between two milliseconds, then gt and lte take the one it falls in, gte and lt the next', () => {
    expect(at(false, '2025-02-01T00:05:00.1209Z')).toBe('2025-02-01T00:05:00.120Z');
    expect(at(true, '2025-02-01T00:05:00.1209Z')).toBe('2025-02-01T00:05:00.121Z');
    expect(at(true, '2025-02-01T00:05:00.000000001+02:00')).toBe('2025-01-31T22:05:00.001Z');
    expect(at(true, '2025-12-31T23:59:59.9999Z')).toBe('2026-01-01T00:00:00.000Z');
  });

  it('when the offset’s + came as a space (a + in a query string is one), then the 400 says to send it as %2B', () => {
    for (const schema of [dateTimeParam, dateTimeRoundingUpParam]) {
      expect(detailsOf(schema, '2025-02-01T00:05:00 01:00')).toEqual({
        name: 'ValidationError',
        id: "must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z; its offset's '+' arrived as a space (a '+' in a query string is one): send it as %2B, e.g. 2025-02-01T00:05:00%2B01:00",
      });
    }
    expect(detailsOf(dateTimeParam, 'yesterday')).toEqual({
      name: 'ValidationError',
      id: 'must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z',
    });
  });
});

describe('component conditions (componentConditions, ignoreComponentConditions)', () => {
  const conditionsOf = (componentConditions: string) => withConditions({ componentConditions });
  const HINT =
    "its offset's '+' arrived as a space (a '+' in a query string is one): send it as %2B, e.g. 2025-02-01T00:05:00%2B01:00";

  it('when the dateTime’s offset + came as a space, then the 400 on componentConditions says to send it as %2B', () => {
    expect(conditionsOf('{"dateTime":"2025-02-01T00:05:00 01:00","brand":"de"}')).toEqual({
      ok: false,
      issues: [
        {
          path: ['componentConditions'],
          message: `dateTime must be an ISO 8601 date-time string, e.g. "2025-01-31T12:00:00Z"; ${HINT}`,
        },
      ],
    });
  });

  it('when the problem is another, then it is worded as before, the hint left out', () => {
    for (const raw of ['{"dateTime":"yesterday"}', '{"dateTime":"2025-02-01T00:05:00 25:00"}', '{nope']) {
      const checked = conditionsOf(raw);
      expect(checked.ok).toBe(false);
      expect(JSON.stringify(checked)).not.toContain('%2B');
    }
    // An unknown key is what is wrong, whatever the dateTime beside it.
    expect(conditionsOf('{"dateTime":"2025-02-01T00:05:00 01:00","when":1}')).toEqual({
      ok: false,
      issues: [
        { path: ['componentConditions'], message: "unknown key 'when'; allowed keys are dateTime and brand" },
      ],
    });
    expect(conditionsOf('{"dateTime":"2025-02-01T00:05:00+01:00"}')).toEqual({
      ok: true,
      value: { conditions: { dateTime: new Date('2025-01-31T23:05:00Z') } },
    });
  });
});

describe('yes/no parameters', () => {
  it('when sent as true or false, 1 or 0, or as the name alone (read as an empty value), then a boolean', () => {
    for (const value of ['true', '1', '']) expect(parseOrThrow(queryBoolean, value)).toBe(true);
    for (const value of ['false', '0']) expect(parseOrThrow(queryBoolean, value)).toBe(false);
  });

  it('when sent as anything else, then 400 saying what it takes', () => {
    for (const value of ['yes', 'TRUE', 'on', '2', ' true']) {
      expect(detailsOf(queryBoolean, value)).toEqual({
        name: 'ValidationError',
        id: "must be 'true' or 'false' ('1' or '0'; the name alone means true)",
      });
    }
  });
});

describe('list parameters (contentTypes, fields, id, ids, ...)', () => {
  const SHAPE =
    'must be a comma separated list, or one item per repeat: x=a&x=b, x[]=a&x[]=b or x[0]=a&x[1]=b';
  const EMPTY = 'must be a comma separated list without empty items';

  it('when sent as a comma list, repeated, with [] or with indices (as the query parser reads each), then the same items', () => {
    // `x=a,b`; `x=a&x=b`, `x[]=a&x[]=b` and `x[0]=a&x[1]=b` are all ['a', 'b'] to qs.
    expect(queryListItems('a,b')).toEqual({ ok: true, value: ['a', 'b'] });
    expect(queryListItems(['a', 'b'])).toEqual({ ok: true, value: ['a', 'b'] });
    // Past 20 items qs gives an object keyed by index: ordered by index, not by key text.
    const keyed = Object.fromEntries(
      Array.from({ length: 25 }, (_, index) => [String(24 - index), `t${24 - index}`]),
    );
    expect(queryListItems(keyed)).toEqual({
      ok: true,
      value: Array.from({ length: 25 }, (_, index) => `t${index}`),
    });
  });

  it('when a value of the array form holds commas or spaces, or items repeat, then as the comma form reads them', () => {
    expect(queryListItems(['a, b', ' c'])).toEqual({ ok: true, value: ['a', 'b', 'c'] });
    expect(queryListItems(['a', 'a'])).toEqual(queryListItems('a,a'));
    expect(parseOrThrow(viewFields, ['content', 'metadata,content'])).toEqual(['content', 'metadata']);
  });

  it('when an item is empty in any form, then 400 saying so', () => {
    for (const value of ['', 'a,,b', ['a', ''], ['a,'], { '0': 'a', '21': '' }, []]) {
      expect(detailsOf(commaList, value)).toEqual({ name: 'ValidationError', id: EMPTY });
    }
    expect(queryListItems('a,', 'media ids')).toEqual({
      ok: false,
      issues: [{ path: [], message: 'must be a comma separated list of media ids without empty items' }],
    });
  });

  it('when it is not a list of texts (x[a]=1, x[0][a]=1, x=a&x[b]=1, an index sent twice), then 400 naming the forms', () => {
    for (const value of [
      { a: 'x' },
      { a: { b: 'x' } },
      [{ a: 'x' }],
      ['x', { b: 'y' }],
      [['x', 'y']],
      { '0': 'x', b: 'y' },
      1,
      null,
    ]) {
      expect(detailsOf(commaList, value)).toEqual({ name: 'ValidationError', id: SHAPE });
    }
  });

  it('when a list has more items than its limit in the array form, then the same 400 as the comma form', () => {
    const ids = Array.from({ length: 11 }, (_, index) => String(index));
    expect(detailsOf(idListParam(10), ids)).toEqual(detailsOf(idListParam(10), ids.join(',')));
    expect(detailsOf(idListParam(10), ids)).toEqual({
      name: 'ValidationError',
      id: 'must list at most 10 ids',
    });
    expect(parseOrThrow(idListParam(10), ids.slice(1))).toEqual(ids.slice(1).map(Number));
  });
});

describe('the query string parser', () => {
  const refusal = (text: string): unknown => {
    try {
      parseQueryString(text);
    } catch (error) {
      if (error instanceof AppError) return { status: error.status, details: error.details };
      throw error;
    }
    throw new Error(`expected ${text} to be refused`);
  };
  const problem = (shown: string) =>
    `must be percent-encoded UTF-8: '${shown}' does not decode (send a % itself as %25)`;

  it('when names and values decode, then they are read as qs reads them: escapes, + as a space, brackets', () => {
    expect(parseQueryString('search=%22a%22+caf%C3%A9&x%5B%5D=1&x[]=2&f[0][key]=%2B&flag')).toEqual({
      search: '"a" café',
      x: ['1', '2'],
      f: [{ key: '+' }],
      flag: '',
    });
  });

  it.each([
    ['a byte that is not UTF-8', 'search=caf%C3%A9%E9', 'search', 'caf%C3%A9%E9'],
    ['an overlong form', 'limit=1&contentTypes=a,%C0%AF', 'contentTypes', 'a,%C0%AF'],
    ['an encoded surrogate', 'ids=%ED%A0%80', 'ids', '%ED%A0%80'],
    ['a % without two hex digits', 'name=100%', 'name', '100%'],
    ['%zz', 'filters[0]=%zz', 'filters', '%zz'],
    ['a bad escape in a name', 'li%FFmit=1', 'li%FFmit', 'li%FFmit'],
    ['a bad escape in a bracketed name', 'f%FF[0]=1', 'f%FF', 'f%FF[0]'],
  ])('when a parameter holds %s, then a 400 naming it', (_label, text, parameter, shown) => {
    expect(refusal(text)).toEqual({
      status: 400,
      details:
        parameter === 'name'
          ? { name: 'ValidationError', message: `name: ${problem(shown)}` }
          : { name: 'ValidationError', [parameter]: problem(shown) },
    });
  });

  it('when the text that does not decode is long, then the message shows its first 100 characters and its length', () => {
    const long = `${'a'.repeat(150)}%`;
    expect(refusal(`search=${long}`)).toEqual({
      status: 400,
      details: {
        name: 'ValidationError',
        search: `must be percent-encoded UTF-8: '${'a'.repeat(100)}…' (151 characters) does not decode (send a % itself as %25)`,
      },
    });
  });
});

describe('a one-value parameter sent in another form', () => {
  const schema = z.strictObject({ limit: integerParam(0, 100).optional() });
  const said = (text: string): unknown => {
    try {
      parseQueryOrThrow(schema, parseQueryString(text));
    } catch (error) {
      if (error instanceof AppError) return error.details.limit;
      throw error;
    }
    return undefined;
  };

  it.each([
    ['limit=1&limit=2', 'must be given once'],
    ['limit[]=1&limit[]=2', 'must be given once'],
    ['limit[]=1', 'must be a single value (limit=…), not limit[…]'],
    ['limit[0]=1', 'must be a single value (limit=…), not limit[…]'],
    ['limit[a]=1', 'must be a single value (limit=…), not limit[…]'],
  ])('when the query is %s, then the 400 says %s', (text, message) => {
    expect(said(text)).toBe(message);
  });
});
