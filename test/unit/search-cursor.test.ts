import { AppError } from '../../src/domain/errors';
import { decodeCursor as checkCursor, encodeCursor } from '../../src/domain/search-cursor';
import { valueOrThrow } from '../../src/domain/validation';

/** The cursor's values, or the 400 keyed `after` a read makes of the check's issues. */
const decodeCursor = (raw: string, signature: string) => valueOrThrow(checkCursor(raw, signature), 'after');

const SIGNATURE = '-sortDate,-documentId';

function cursorError(raw: string, signature = SIGNATURE): string {
  try {
    decodeCursor(raw, signature);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { status, details } = error as AppError;
    expect(status).toBe(400);
    expect(Object.keys(details).sort()).toEqual(['after', 'name']);
    return String(details.after);
  }
  throw new Error('expected a validation error');
}

const forge = (payload: unknown) => Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');

describe('encodeCursor / decodeCursor', () => {
  describe('when a cursor is decoded under the sort it was issued for', () => {
    it.each([
      [[1714557600000, 42]],
      [[1.25, 'ärger "quoted"', null, true, false, 7]],
      [[-8_640_000_000_000_000, Number.MAX_SAFE_INTEGER]],
      [['Infinity', '-Infinity', 2147483647]],
    ])('then it gives back the sort values %p', (values) => {
      expect(decodeCursor(encodeCursor(values, SIGNATURE), SIGNATURE)).toEqual(values);
    });

    it('then the cursor is URL-safe base64 without padding', () => {
      expect(encodeCursor(['a/b+c?', 1, null], SIGNATURE)).toMatch(/^[A-Za-z0-9_-]+$/);
    });
  });

  describe('when the cursor was issued for another sort', () => {
    it('then it is a 400 that says so', () => {
      const cursor = encodeCursor([1714557600000, 42], SIGNATURE);
      expect(cursorError(cursor, 'relevance,-sortDate,-documentId')).toBe(
        'invalid cursor: it was issued for a different sort; start again without after',
      );
      expect(cursorError(cursor, 'sortDate,-documentId')).toContain('different sort');
    });
  });

  describe('when the cursor does not decode', () => {
    const invalid = 'invalid cursor: pass the cursor of a previous response';
    const valid = encodeCursor([1, 2], SIGNATURE);
    const validPayload = JSON.parse(Buffer.from(valid, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;

    it.each([
      ['empty', ''],
      ['not base64url', 'abc$def'],
      ['standard base64 with padding', `${Buffer.from('{"v":1}').toString('base64')}==`],
      ['spaces', ` ${valid}`],
      ['not canonical base64url', `${valid}A`],
      ['not JSON', Buffer.from('not json').toString('base64url')],
      ['too long', 'A'.repeat(5000)],
      ['a JSON array', forge([1, 2])],
      ['a JSON string', forge('x')],
      ['JSON null', forge(null)],
      ['another version', forge({ ...validPayload, v: 2 })],
      ['no signature', forge({ v: 1, a: [1] })],
      ['values that are not an array', forge({ ...validPayload, a: 1 })],
      ['no values', forge({ ...validPayload, a: [] })],
      ['too many values', forge({ ...validPayload, a: Array(65).fill(1) })],
      ['an object among the values', forge({ ...validPayload, a: [1, { x: 1 }] })],
      ['an array among the values', forge({ ...validPayload, a: [[1]] })],
    ])('then %s is a 400 keyed after', (_label, raw) => {
      expect(cursorError(raw)).toBe(invalid);
    });
  });
});
