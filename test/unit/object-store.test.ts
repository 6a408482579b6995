import {
  checkObjectKey,
  clampRange,
  InvalidObjectKeyError,
  isStoreUnavailable,
  ObjectSizeMismatchError,
  objectKeyProblem,
  StoreUnavailableError,
  storeUnavailableOr,
  UnsatisfiableRangeError,
} from '../../src/storage/object-store';
import { S3ReadTimeoutError } from '../../src/storage/s3-store';

describe('objectKeyProblem', () => {
  it('when a key is project/media/random/file style, then it is accepted', () => {
    expect(objectKeyProblem('7/img-1/3f2a9c/teaser image.png')).toBeUndefined();
    expect(objectKeyProblem('a')).toBeUndefined();
    expect(objectKeyProblem('1/ü/日本.jpg')).toBeUndefined();
    expect(objectKeyProblem('1/..hidden/file..png')).toBeUndefined();
  });

  it.each([
    ['', 'must be a non-empty string'],
    ['../etc/passwd', 'must not contain . or .. segments'],
    ['1/../2/x.png', 'must not contain . or .. segments'],
    ['1/./x.png', 'must not contain . or .. segments'],
    ['1/..', 'must not contain . or .. segments'],
    ['/1/x.png', 'must not start with a slash'],
    ['1/x/', 'must not end with a slash'],
    ['1//x.png', 'must not contain empty segments (//)'],
    ['1\\..\\x.png', 'must not contain backslashes'],
    ['1/x\u0000.png', 'must not contain control characters'],
    ['1/x\n.png', 'must not contain control characters'],
    ['1/x\u007f.png', 'must not contain control characters'],
    [`1/${'a'.repeat(256)}`, 'must not have a segment longer than 255 bytes'],
    [Array.from({ length: 6 }, () => 'a'.repeat(200)).join('/'), 'must be at most 1024 bytes'],
  ])('when the key is %j, then it is refused: %s', (key, problem) => {
    expect(objectKeyProblem(key)).toBe(problem);
    expect(() => checkObjectKey(key)).toThrow(InvalidObjectKeyError);
  });

  it('when the key is not a string, then it is refused', () => {
    expect(objectKeyProblem(undefined)).toBe('must be a non-empty string');
    expect(objectKeyProblem(12)).toBe('must be a non-empty string');
  });
});

describe('clampRange', () => {
  it('when the end is beyond the object, then it is clamped to the last byte', () => {
    expect(clampRange({ start: 0, end: 99 }, 10)).toEqual({ start: 0, end: 9 });
    expect(clampRange({ start: 9, end: 9 }, 10)).toEqual({ start: 9, end: 9 });
  });

  it('when the start is at or beyond the end of the object, then it is unsatisfiable', () => {
    expect(() => clampRange({ start: 10, end: 20 }, 10)).toThrow(UnsatisfiableRangeError);
    expect(() => clampRange({ start: 0, end: 0 }, 0)).toThrow(UnsatisfiableRangeError);
  });

  it('when the bounds are reversed, negative or not integers, then it is a RangeError', () => {
    expect(() => clampRange({ start: 5, end: 4 }, 10)).toThrow(RangeError);
    expect(() => clampRange({ start: -1, end: 4 }, 10)).toThrow(RangeError);
    expect(() => clampRange({ start: 0.5, end: 4 }, 10)).toThrow(RangeError);
  });
});

describe('isStoreUnavailable', () => {
  const networkError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:9090`), { code });

  it('when the store cannot be reached, times out or answers 5xx, then it is unavailable', () => {
    expect(isStoreUnavailable(networkError('ECONNREFUSED'))).toBe(true);
    expect(isStoreUnavailable(networkError('ENOTFOUND'))).toBe(true);
    expect(isStoreUnavailable(networkError('ECONNRESET'))).toBe(true);
    expect(isStoreUnavailable(new AggregateError([networkError('ETIMEDOUT')]))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('x'), { name: 'TimeoutError' }))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('x'), { $metadata: { httpStatusCode: 503 } }))).toBe(
      true,
    );
    // The SDK's wrapper of an error from another realm: the errno only in its message.
    expect(
      isStoreUnavailable(new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 1.2.3.4:1')),
    ).toBe(true);
    expect(isStoreUnavailable(new StoreUnavailableError(networkError('EPIPE')))).toBe(true);
    expect(isStoreUnavailable(new S3ReadTimeoutError(500, '1/a.png'))).toBe(true);
  });

  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ECONNABORTED',
    'EPIPE',
    'ETIMEDOUT',
    'EHOSTUNREACH',
    'EHOSTDOWN',
    'ENETUNREACH',
    'ENETDOWN',
    'ENOTFOUND',
    'EAI_AGAIN',
    'UND_ERR_SOCKET',
  ])('when a connection fails with %s, then the store is unavailable', (code) => {
    expect(isStoreUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
  });

  it('when the store answered a 4xx or the bytes were wrong, then it is not (a bug or bad input)', () => {
    expect(isStoreUnavailable(Object.assign(new Error('x'), { $metadata: { httpStatusCode: 403 } }))).toBe(
      false,
    );
    expect(isStoreUnavailable(new ObjectSizeMismatchError(3, 2))).toBe(false);
    expect(isStoreUnavailable(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe(false);
    expect(isStoreUnavailable(new Error('DECONNREFUSEDX'))).toBe(false);
    expect(isStoreUnavailable('ECONNREFUSED')).toBe(false);
  });
});

describe('storeUnavailableOr', () => {
  it("when a store's body fails with a lost connection, then it is StoreUnavailableError (503), its cause kept", () => {
    // What node:http gives a body whose connection closed before its end.
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    const translated = storeUnavailableOr(aborted);
    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect((translated as Error).cause).toBe(aborted);
    expect(storeUnavailableOr(new S3ReadTimeoutError(500, '1/a.png'))).toBeInstanceOf(StoreUnavailableError);
  });

  it('when it is already StoreUnavailableError, or says nothing of the store being away, then it is as it was', () => {
    const unavailable = new StoreUnavailableError(new Error('x'));
    expect(storeUnavailableOr(unavailable)).toBe(unavailable);
    const notFound = Object.assign(new Error('no such file'), { code: 'ENOENT' });
    expect(storeUnavailableOr(notFound)).toBe(notFound);
    expect(storeUnavailableOr('text')).toBe('text');
  });
});
