/**
 * The conditional and partial GET of stored bytes (RFC 9110 §13.1.2, §14): pure functions over the request's
 * headers and what the store says of the object, so serve-image's handler only streams.
 */

/** The range a request asks for, over an object of `size` bytes. */
export type RangeDecision =
  /** No usable Range header (absent, another unit, unparsable, several ranges, or If-Range not matching): 200. */
  | { kind: 'whole' }
  /** One satisfiable range, end inclusive and clamped to the last byte: 206. */
  | { kind: 'partial'; start: number; end: number }
  /** A well-formed range that starts at or beyond the end (or a zero suffix): 416. */
  | { kind: 'unsatisfiable' };

const SINGLE_RANGE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i;

/**
 * Reads `Range: bytes=a-b | a- | -n`. Several ranges are answered whole (allowed by RFC 9110 §14.2: a
 * multipart/byteranges body is not worth it for images), as is anything unparsable or in another unit.
 */
export function decideRange(rangeHeader: string | undefined, size: number): RangeDecision {
  if (rangeHeader === undefined) return { kind: 'whole' };
  const match = SINGLE_RANGE.exec(rangeHeader);
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  // Digits beyond what a number holds exactly: no object is that large, so the range cannot be satisfied.
  const start = first === '' ? undefined : Number(first);
  const end = last === '' ? undefined : Number(last);
  if (start === undefined) {
    // A suffix: the last `end` bytes.
    if (end === undefined || end === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - end), end: size - 1 };
  }
  if (end !== undefined && end < start) return { kind: 'whole' }; // invalid, so ignored (§14.1.1)
  if (!Number.isSafeInteger(start) || start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end ?? size - 1, size - 1) };
}

/** The entity tags of an If-None-Match or If-Range value; `*` is its own entry. */
function entityTags(header: string): string[] {
  return header.match(/\*|(?:W\/)?"[^"]*"/g) ?? [];
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** If-None-Match (weak comparison, §13.1.2): true when the client's copy is current, so 304. */
export function noneMatchHolds(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return entityTags(ifNoneMatch).some((tag) => tag === '*' || opaque(tag) === opaque(etag));
}

/**
 * If-Range (§13.1.5): the range applies only if the client's validator is our strong etag; a date or a weak
 * tag means "send it whole" (we do not compare dates: a strong etag is always there).
 */
export function ifRangeAllows(ifRange: string | undefined, etag: string): boolean {
  if (ifRange === undefined) return true;
  return ifRange.trim() === etag && !etag.startsWith('W/');
}
