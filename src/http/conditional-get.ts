import type { WritePreconditions } from '../domain/write-preconditions';

/**
 * The conditional and partial GET of stored bytes (RFC 9110 §13, §14): pure functions over the request's
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

/** The entity tags of an If-Match, If-None-Match or If-Range value; `*` is its own entry. */
function entityTags(header: string): string[] {
  return header.match(/\*|(?:W\/)?"[^"]*"/g) ?? [];
}

const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/**
 * If-None-Match (weak comparison, §13.1.2): true when the client's copy is current, so 304. `*` holds for any
 * answer there is; without an etag nothing else does.
 */
export function noneMatchHolds(ifNoneMatch: string | undefined, etag: string | undefined): boolean {
  if (ifNoneMatch === undefined) return false;
  return entityTags(ifNoneMatch).some(
    (tag) => tag === '*' || (etag !== undefined && opaque(tag) === opaque(etag)),
  );
}

/**
 * If-Match (strong comparison, §13.1.1): true when it names the current etag or is `*` (the object exists when
 * this is asked). A weak tag never matches, nor does a value with no entity tag in it.
 */
export function matchHolds(ifMatch: string, etag: string): boolean {
  if (etag.startsWith('W/')) return untaggedMatchHolds(ifMatch);
  return entityTags(ifMatch).some((tag) => tag === '*' || tag === etag);
}

/**
 * If-Match on an existing resource that has no strong entity tag (§13.1.1): only `*` holds; a list of tags
 * cannot name its current representation.
 */
export function untaggedMatchHolds(ifMatch: string): boolean {
  return entityTags(ifMatch).includes('*');
}

/**
 * If-Match on a GET or HEAD that would be answered 2xx (RFC 9110 §13.1.1; §13.2.1 has any other answer ignore
 * it): why it does not hold on the answer's ETag, for the 412, or undefined when it holds. A JSON answer's tag
 * is weak, and so only `*` holds: If-Match compares strongly, so that a client never changes or reads as current
 * a representation that is only equivalent to its copy.
 */
export function ifMatchFailureOnRead(ifMatch: string, etag: string | undefined): string | undefined {
  if (etag === undefined) {
    return untaggedMatchHolds(ifMatch) ? undefined : 'If-Match cannot hold: the answer has no entity tag';
  }
  if (matchHolds(ifMatch, etag)) return undefined;
  if (etag.startsWith('W/')) {
    return (
      "If-Match cannot hold: the API's answers carry weak entity tags, which If-Match's strong comparison " +
      'never matches (RFC 9110 §13.1.1). To revalidate a copy, send its ETag in If-None-Match'
    );
  }
  return `If-Match does not name the answer's entity tag ${etag}: it is not the version the client has`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(?<month>${MONTHS.join('|')})`;
const TIME = '(?<hour>\\d{2}):(?<minute>\\d{2}):(?<second>\\d{2})';
const DAY_NAME = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
/** §5.6.7: the preferred IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept too. */
const HTTP_DATES = [
  new RegExp(`^${DAY_NAME}, (?<day>\\d{2}) ${MONTH} (?<year>\\d{4}) ${TIME} GMT$`),
  new RegExp(
    `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (?<day>\\d{2})-${MONTH}-(?<year>\\d{2}) ${TIME} GMT$`,
  ),
  new RegExp(`^${DAY_NAME} ${MONTH} (?<day>[ \\d]\\d) ${TIME} (?<year>\\d{4})$`),
];

/**
 * An HTTP-date (RFC 9110 §5.6.7) as milliseconds since the epoch, or undefined for anything else: a list of
 * dates, another format, or an impossible date (31 Feb). Stricter than Date.parse, which takes "1" for 2001.
 */
export function parseHttpDate(value: string, now = new Date()): number | undefined {
  const text = value.trim();
  const groups = HTTP_DATES.map((format) => format.exec(text)?.groups).find((found) => found !== undefined);
  if (groups === undefined) return undefined;
  const field = (name: string) => Number(groups[name]!.trim());
  let year = field('year');
  if (groups.year!.length === 2) {
    // RFC 850's two-digit year: more than 50 years ahead means the most recent past year with those digits.
    const thisYear = now.getUTCFullYear();
    year += Math.floor(thisYear / 100) * 100;
    if (year > thisYear + 50) year -= 100;
  }
  const wanted: [number, number, number, number, number, number] = [
    year,
    MONTHS.indexOf(groups.month!),
    field('day'),
    field('hour'),
    field('minute'),
    field('second'),
  ];
  const time = Date.UTC(...wanted);
  const back = new Date(time);
  // Date.UTC rolls 31 Feb over into March and 25:00 into the next day: such a date is not one.
  const got = [
    back.getUTCFullYear(),
    back.getUTCMonth(),
    back.getUTCDate(),
    back.getUTCHours(),
    back.getUTCMinutes(),
    back.getUTCSeconds(),
  ];
  return got.every((part, index) => part === wanted[index]) ? time : undefined;
}

/** What a GET or HEAD's preconditions decide: go on (200 or 206), 304 Not Modified, or 412 Precondition Failed. */
export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed';

/** The request's precondition headers (absent ones undefined). */
export interface Preconditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
  ifUnmodifiedSince?: string | undefined;
}

/** A time as Last-Modified shows it: HTTP-dates have no fraction of a second. */
const toShownSecond = (time: Date) => Math.floor(time.getTime() / 1000) * 1000;

/**
 * If-None-Match, else If-Modified-Since (RFC 9110 §13.2.2, steps 3 and 4): true when the client's copy is
 * current, so a GET or HEAD answers 304. An If-Modified-Since that is not a valid HTTP-date, or an answer
 * without Last-Modified, never holds; dates compare at the second Last-Modified shows. A request's
 * `Cache-Control` plays no part: its `no-cache` tells caches to ask the origin, and the origin is what answers
 * here (RFC 9111 §5.2.1.4).
 */
export function clientCopyCurrent(
  request: Pick<Preconditions, 'ifNoneMatch' | 'ifModifiedSince'>,
  current: { etag?: string | undefined; lastModified?: Date | undefined },
): boolean {
  if (request.ifNoneMatch !== undefined) return noneMatchHolds(request.ifNoneMatch, current.etag);
  if (request.ifModifiedSince === undefined || current.lastModified === undefined) return false;
  const since = parseHttpDate(request.ifModifiedSince);
  return since !== undefined && toShownSecond(current.lastModified) <= since;
}

/**
 * The preconditions of a GET or HEAD of an existing object, in RFC 9110 §13.2.2's order: If-Match (else
 * If-Unmodified-Since) failing is 412; then If-None-Match (else If-Modified-Since) holding is 304. A date that
 * is not a valid HTTP-date is ignored (§13.1.3, §13.1.4). Dates compare at the second Last-Modified shows.
 */
export function evaluatePreconditions(
  request: Preconditions,
  current: { etag: string; lastModified: Date },
): PreconditionOutcome {
  if (request.ifMatch !== undefined) {
    if (!matchHolds(request.ifMatch, current.etag)) return 'failed';
  } else if (request.ifUnmodifiedSince !== undefined) {
    const since = parseHttpDate(request.ifUnmodifiedSince);
    if (since !== undefined && toShownSecond(current.lastModified) > since) return 'failed';
  }
  return clientCopyCurrent(request, current) ? 'not-modified' : 'proceed';
}

/**
 * The preconditions of a write (PATCH, PUT, DELETE) to something with no strong entity tag (a document, a media
 * library entry, a followed publication), for the write to judge on its locked row
 * (src/domain/write-preconditions.ts): an If-Match naming tags, or `*` (which holds while the target exists), an
 * If-None-Match with `*`, and an If-Unmodified-Since that is an HTTP-date, read only without an
 * If-Match (RFC 9110 §13.1.4: ignored then, and when it is no HTTP-date).
 */
export function writePreconditionsOf(
  request: Pick<Preconditions, 'ifMatch' | 'ifNoneMatch' | 'ifUnmodifiedSince'>,
): WritePreconditions {
  const since =
    request.ifMatch === undefined && request.ifUnmodifiedSince !== undefined
      ? parseHttpDate(request.ifUnmodifiedSince)
      : undefined;
  return {
    ifMatchTagged: request.ifMatch !== undefined && !untaggedMatchHolds(request.ifMatch),
    ...(request.ifMatch !== undefined && untaggedMatchHolds(request.ifMatch) && { ifMatchAny: true }),
    ifNoneMatchAny: noneMatchHolds(request.ifNoneMatch, undefined),
    ...(since !== undefined && { ifUnmodifiedSince: since }),
  };
}

/** The precondition headers of a request, as writePreconditionsOf reads them. */
export const preconditionHeaders = (req: { get(name: string): string | undefined }): Preconditions => ({
  ifMatch: req.get('if-match'),
  ifNoneMatch: req.get('if-none-match'),
  ifUnmodifiedSince: req.get('if-unmodified-since'),
});

/**
 * If-Range (§13.1.5): the range applies only if the client's validator is our strong etag; a date or a weak
 * tag means "send it whole" (we do not compare dates: a strong etag is always there).
 */
export function ifRangeAllows(ifRange: string | undefined, etag: string): boolean {
  if (ifRange === undefined) return true;
  return ifRange.trim() === etag && !etag.startsWith('W/');
}
