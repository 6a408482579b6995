import { decideRange, ifRangeAllows, noneMatchHolds } from '../../src/http/conditional-get';

describe('decideRange', () => {
  it('when there is no Range header, another unit or an unparsable one, then the whole object', () => {
    expect(decideRange(undefined, 10)).toEqual({ kind: 'whole' });
    expect(decideRange('items=0-1', 10)).toEqual({ kind: 'whole' });
    expect(decideRange('bytes=abc', 10)).toEqual({ kind: 'whole' });
    expect(decideRange('bytes=-', 10)).toEqual({ kind: 'whole' });
    expect(decideRange('bytes=5-2', 10)).toEqual({ kind: 'whole' });
  });

  it('when several ranges are asked, then the whole object (no multipart answers)', () => {
    expect(decideRange('bytes=0-1,4-5', 10)).toEqual({ kind: 'whole' });
  });

  it('when one range is asked, then its bytes, the end clamped to the last byte', () => {
    expect(decideRange('bytes=2-5', 10)).toEqual({ kind: 'partial', start: 2, end: 5 });
    expect(decideRange('bytes=2-', 10)).toEqual({ kind: 'partial', start: 2, end: 9 });
    expect(decideRange('bytes=0-1000', 10)).toEqual({ kind: 'partial', start: 0, end: 9 });
    expect(decideRange('Bytes= 9-9', 10)).toEqual({ kind: 'partial', start: 9, end: 9 });
  });

  it('when a suffix is asked, then the last bytes (all of them when it is longer than the object)', () => {
    expect(decideRange('bytes=-3', 10)).toEqual({ kind: 'partial', start: 7, end: 9 });
    expect(decideRange('bytes=-30', 10)).toEqual({ kind: 'partial', start: 0, end: 9 });
  });

  it('when the range starts at or beyond the end, or is an empty suffix, then it is unsatisfiable', () => {
    expect(decideRange('bytes=10-12', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(decideRange('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(decideRange('bytes=-0', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(decideRange('bytes=0-0', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(decideRange(`bytes=${'9'.repeat(30)}-`, 10)).toEqual({ kind: 'unsatisfiable' });
  });
});

describe('noneMatchHolds', () => {
  const etag = '"abc"';

  it('when If-None-Match names the etag (weakly or in a list) or is *, then it holds', () => {
    expect(noneMatchHolds('"abc"', etag)).toBe(true);
    expect(noneMatchHolds('W/"abc"', etag)).toBe(true);
    expect(noneMatchHolds('"x", "abc"', etag)).toBe(true);
    expect(noneMatchHolds('*', etag)).toBe(true);
  });

  it('when it is absent or names other tags, then it does not', () => {
    expect(noneMatchHolds(undefined, etag)).toBe(false);
    expect(noneMatchHolds('"abcd"', etag)).toBe(false);
    expect(noneMatchHolds('abc', etag)).toBe(false);
  });
});

describe('ifRangeAllows', () => {
  it('when If-Range is absent or our strong etag, then the range applies; a date or another tag, not', () => {
    expect(ifRangeAllows(undefined, '"abc"')).toBe(true);
    expect(ifRangeAllows('"abc"', '"abc"')).toBe(true);
    expect(ifRangeAllows('W/"abc"', '"abc"')).toBe(false);
    expect(ifRangeAllows('"old"', '"abc"')).toBe(false);
    expect(ifRangeAllows('Wed, 21 Oct 2015 07:28:00 GMT', '"abc"')).toBe(false);
  });
});
