import {
  checkObjectKey,
  clampRange,
  InvalidObjectKeyError,
  objectKeyProblem,
  UnsatisfiableRangeError,
} from '../../src/storage/object-store';

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
