import { z } from 'zod';
import { AppError } from '../../src/domain/errors';
import { parseOrThrow } from '../../src/domain/validation';
import {
  dateTimeParam,
  dateTimeRoundingUpParam,
  documentIdParam,
  idListParam,
  idParam,
  integerParam,
  queryBoolean,
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
