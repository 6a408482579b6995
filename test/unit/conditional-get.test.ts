import {
  clientCopyCurrent,
  decideRange,
  evaluatePreconditions,
  ifMatchFailureOnRead,
  ifRangeAllows,
  matchHolds,
  untaggedMatchHolds,
  noneMatchHolds,
  parseHttpDate,
} from '../../src/http/conditional-get';

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

describe('matchHolds', () => {
  it('when If-Match names the etag (in a list or not) or is *, then it holds', () => {
    expect(matchHolds('"abc"', '"abc"')).toBe(true);
    expect(matchHolds('"x", "abc"', '"abc"')).toBe(true);
    expect(matchHolds('*', '"abc"')).toBe(true);
  });

  it('when it names the etag weakly (strong comparison), other tags or no tag, then it does not', () => {
    expect(matchHolds('W/"abc"', '"abc"')).toBe(false);
    expect(matchHolds('"abcd"', '"abc"')).toBe(false);
    expect(matchHolds('abc', '"abc"')).toBe(false);
    expect(matchHolds('"abc"', 'W/"abc"')).toBe(false);
  });
});

describe('untaggedMatchHolds', () => {
  it('when If-Match is * (alone or in a list), then it holds; any tag, a weak one or none, then it does not', () => {
    expect(untaggedMatchHolds('*')).toBe(true);
    expect(untaggedMatchHolds('"a", *')).toBe(true);
    expect(untaggedMatchHolds('"abc"')).toBe(false);
    expect(untaggedMatchHolds('W/"abc"')).toBe(false);
    expect(untaggedMatchHolds('')).toBe(false);
  });
});

describe('parseHttpDate', () => {
  const at = Date.UTC(1994, 10, 6, 8, 49, 37);

  it('when the date is in any of the three HTTP-date forms, then its time', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(at);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(at);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(at);
  });

  it('when an RFC 850 year would be more than 50 years ahead, then it is the past one', () => {
    const now = new Date(Date.UTC(2026, 0, 1));
    expect(parseHttpDate('Thursday, 01-Jan-76 00:00:00 GMT', now)).toBe(Date.UTC(2076, 0, 1));
    expect(parseHttpDate('Friday, 01-Jan-77 00:00:00 GMT', now)).toBe(Date.UTC(1977, 0, 1));
  });

  it('when it is not an HTTP-date (another format, a list, an impossible day), then undefined', () => {
    for (const value of [
      '1',
      '2026-03-14T10:00:00Z',
      'garbage',
      'Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT',
      'Sun, 31 Feb 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 25:49:37 GMT',
      'sun, 06 nov 1994 08:49:37 gmt',
    ]) {
      expect({ value, parsed: parseHttpDate(value) }).toEqual({ value, parsed: undefined });
    }
  });
});

describe('clientCopyCurrent (what req.fresh and serve-image answer 304 by)', () => {
  const shown = 'Sat, 14 Mar 2026 10:00:00 GMT';

  it('when the answer has no Last-Modified, then If-Modified-Since never holds', () => {
    expect(clientCopyCurrent({ ifModifiedSince: shown }, { etag: 'W/"1-a"' })).toBe(false);
  });

  it('when the answer has no ETag, then only If-None-Match: * holds', () => {
    expect(clientCopyCurrent({ ifNoneMatch: '*' }, {})).toBe(true);
    expect(clientCopyCurrent({ ifNoneMatch: '"a"' }, {})).toBe(false);
  });

  it('when If-None-Match names a weak ETag strongly (or the reverse), then it holds (weak comparison)', () => {
    expect(clientCopyCurrent({ ifNoneMatch: '"1-a"' }, { etag: 'W/"1-a"' })).toBe(true);
    expect(clientCopyCurrent({ ifNoneMatch: 'W/"1-a"' }, { etag: '"1-a"' })).toBe(true);
  });

  it('when neither header is sent, then the copy is not current', () => {
    expect(clientCopyCurrent({}, { etag: 'W/"1-a"', lastModified: new Date() })).toBe(false);
  });
});

describe('evaluatePreconditions (RFC 9110 §13.2.2)', () => {
  const current = { etag: '"abc"', lastModified: new Date(Date.UTC(2026, 2, 14, 10, 0, 0, 750)) };
  const shown = 'Sat, 14 Mar 2026 10:00:00 GMT';
  const before = 'Sat, 14 Mar 2026 09:59:59 GMT';

  it('when there are no preconditions, then the request proceeds', () => {
    expect(evaluatePreconditions({}, current)).toBe('proceed');
  });

  it('when If-Match fails, then 412, whatever If-None-Match says; when it holds, If-Unmodified-Since is ignored', () => {
    expect(evaluatePreconditions({ ifMatch: '"other"' }, current)).toBe('failed');
    expect(evaluatePreconditions({ ifMatch: 'W/"abc"' }, current)).toBe('failed');
    expect(evaluatePreconditions({ ifMatch: '"other"', ifNoneMatch: '"abc"' }, current)).toBe('failed');
    expect(evaluatePreconditions({ ifMatch: '"abc"' }, current)).toBe('proceed');
    expect(evaluatePreconditions({ ifMatch: '*', ifUnmodifiedSince: before }, current)).toBe('proceed');
  });

  it('when If-Unmodified-Since is before the last change, then 412; at it (to the second) or invalid, then not', () => {
    expect(evaluatePreconditions({ ifUnmodifiedSince: before }, current)).toBe('failed');
    expect(evaluatePreconditions({ ifUnmodifiedSince: shown }, current)).toBe('proceed');
    expect(evaluatePreconditions({ ifUnmodifiedSince: 'yesterday' }, current)).toBe('proceed');
  });

  it('when If-Modified-Since is at or after the last change, then 304; before it or invalid, then not', () => {
    expect(evaluatePreconditions({ ifModifiedSince: shown }, current)).toBe('not-modified');
    expect(evaluatePreconditions({ ifModifiedSince: 'Sun, 15 Mar 2026 00:00:00 GMT' }, current)).toBe(
      'not-modified',
    );
    expect(evaluatePreconditions({ ifModifiedSince: before }, current)).toBe('proceed');
    expect(evaluatePreconditions({ ifModifiedSince: '1' }, current)).toBe('proceed');
  });

  it('when If-None-Match is sent, then it decides and If-Modified-Since is ignored', () => {
    expect(evaluatePreconditions({ ifNoneMatch: '"other"', ifModifiedSince: shown }, current)).toBe(
      'proceed',
    );
    expect(evaluatePreconditions({ ifNoneMatch: '"abc"', ifModifiedSince: before }, current)).toBe(
      'not-modified',
    );
  });
});

describe('ifMatchFailureOnRead (If-Match on a GET or HEAD answered 2xx)', () => {
  const weak = 'W/"1c-abc"';
  it('when If-Match is `*` (alone or listed), then it holds on any answer, with an entity tag or without', () => {
    for (const etag of [weak, '"strong"', undefined]) {
      expect(ifMatchFailureOnRead('*', etag)).toBeUndefined();
      expect(ifMatchFailureOnRead('"x", *', etag)).toBeUndefined();
    }
  });
  it("when it names tags and the answer's is weak, then it fails (strong comparison), its own tag included", () => {
    for (const ifMatch of [weak, '"1c-abc"', '"x"', `"x", ${weak}`, 'garbage']) {
      expect(ifMatchFailureOnRead(ifMatch, weak)).toMatch(
        /^If-Match cannot hold: the API's answers carry weak/,
      );
    }
  });
  it('when the answer has no entity tag, then a tag list fails; a strong tag holds only when named', () => {
    expect(ifMatchFailureOnRead('"x"', undefined)).toBe('If-Match cannot hold: the answer has no entity tag');
    expect(ifMatchFailureOnRead('"a", "strong"', '"strong"')).toBeUndefined();
    expect(ifMatchFailureOnRead('"other"', '"strong"')).toBe(
      'If-Match does not name the answer\'s entity tag "strong": it is not the version the client has',
    );
  });
});
