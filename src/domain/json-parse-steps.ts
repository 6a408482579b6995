import type { Pause, Steps } from './steps';

/**
 * A value whose text is at most this many characters is parsed by one JSON.parse (some 30 µs); so are runs of
 * consecutive small members of an array or object, up to about this many characters. Not more: the text of a
 * run is a new string (a slice between brackets, flattened by JSON.parse), and one of 128 KB or more (64 K
 * characters of a text with any character beyond Latin-1) is a large object to V8, which made the parse of
 * such runs some ten times slower than one JSON.parse of the whole text.
 */
export const LEAF_CHARS = 16 * 1024;
/** Characters scanned for the end of a member between two asks of the pause. */
const SCAN_CHARS = 16 * 1024;

export interface JsonParseSizes {
  /** See LEAF_CHARS (tests make it tiny, to walk small texts member by member). */
  leafChars?: number;
  /** See SCAN_CHARS (tests make it tiny, to stop a scan anywhere). */
  scanChars?: number;
}

const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const BACKSLASH = 0x5c;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

function isSpace(code: number): boolean {
  return code === SPACE || code === NEWLINE || code === RETURN || code === TAB;
}

function syntaxError(what: string, at: number): SyntaxError {
  return new SyntaxError(`${what} in JSON at position ${at}`);
}

/**
 * `JSON.parse(text)` made in steps (see Steps): the same value for any JSON text, and the same SyntaxError
 * class for a text that is not JSON. A text of LEAF_CHARS or less is one JSON.parse; a longer array or object
 * is walked member by member, a scan finding where each member ends (strings skipped by indexOf, brackets
 * counted), consecutive small members parsed together by one JSON.parse of about LEAF_CHARS, a large member
 * walked the same way; a long string or number is one JSON.parse (native, a few ms for megabytes). Asks
 * `pause` after each parse and every SCAN_CHARS scanned, with the work done in KB (as jsonSteps does).
 *
 * Made for the stored JSON of a document of tens of megabytes, whose one JSON.parse held the event loop for
 * hundreds of milliseconds; such text is one JSON.parse and one scan of the structure, the scan a few percent
 * of the parse.
 */
export function* parseJsonSteps(text: string, pause: Pause, sizes: JsonParseSizes = {}): Steps<unknown> {
  const leafChars = sizes.leafChars ?? LEAF_CHARS;
  const scanChars = Math.max(1, sizes.scanChars ?? SCAN_CHARS);
  if (text.length <= leafChars) return JSON.parse(text) as unknown;

  const skipSpace = (at: number): number => {
    while (at < text.length && isSpace(text.charCodeAt(at))) at += 1;
    return at;
  };
  /** The end of `[start, end)` without its trailing white space. */
  const trimEnd = (start: number, end: number): number => {
    while (end > start && isSpace(text.charCodeAt(end - 1))) end -= 1;
    return end;
  };
  /** Just past the string whose opening quote is at `at`. */
  const stringEnd = (at: number): number => {
    let quote = at;
    for (;;) {
      quote = text.indexOf('"', quote + 1);
      if (quote < 0) throw syntaxError('Unterminated string', at);
      let backslashes = 0;
      while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) return quote + 1;
    }
  };
  const work = (chars: number): number => 1 + (chars >> 10);

  // Where the scan for the end of a member is: position and bracket depth (0: the member's container).
  let scanAt = 0;
  let depth = 0;
  /**
   * Scans from scanAt up to `limit` for the first comma or closing bracket outside any string at depth 0:
   * its position, or -1 when `limit` (or the text's end) was reached first.
   */
  const scan = (limit: number): number => {
    const end = Math.min(limit, text.length);
    let at = scanAt;
    while (at < end) {
      const code = text.charCodeAt(at);
      if (code === QUOTE) {
        at = stringEnd(at);
        continue;
      }
      if (code === OPEN_ARRAY || code === OPEN_OBJECT) depth += 1;
      else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
        if (depth === 0) return at;
        depth -= 1;
      } else if (code === COMMA && depth === 0) return at;
      at += 1;
    }
    scanAt = at;
    return -1;
  };
  /** The comma or closing bracket that ends the member starting at `start`. */
  function* memberDelimiter(start: number): Steps<number> {
    scanAt = start;
    depth = 0;
    for (;;) {
      const found = scan(scanAt + scanChars);
      if (found >= 0) return found;
      if (scanAt >= text.length) throw syntaxError('Unexpected end', text.length);
      if (pause(work(scanChars))) yield;
    }
  }

  /** The value of `[start, end)`, one JSON value without white space around it. */
  function* parseValue(start: number, end: number): Steps<unknown> {
    const open = text.charCodeAt(start);
    if (end - start > leafChars && open === OPEN_ARRAY) return yield* parseContainer(start, end, []);
    if (end - start > leafChars && open === OPEN_OBJECT) return yield* parseContainer(start, end, {});
    const value = JSON.parse(text.slice(start, end)) as unknown;
    if (pause(work(end - start))) yield;
    return value;
  }

  /**
   * The array or object of `[start, end)` (its brackets included) into `into`: runs of small members parsed
   * by one JSON.parse each, large members walked.
   */
  function* parseContainer(
    start: number,
    end: number,
    into: unknown[] | Record<string, unknown>,
  ): Steps<unknown> {
    const array = Array.isArray(into) ? into : undefined;
    const close = array ? CLOSE_ARRAY : CLOSE_OBJECT;
    let runStart = 0;
    let runEnd = -1;
    const addRun = () => {
      const run = text.slice(runStart, runEnd);
      if (array) {
        for (const item of JSON.parse(`[${run}]`) as unknown[]) array.push(item);
      } else {
        const part = JSON.parse(`{${run}}`) as Record<string, unknown>;
        for (const key of Object.keys(part)) setMember(into as Record<string, unknown>, key, part[key]);
      }
    };

    let at = skipSpace(start + 1);
    if (text.charCodeAt(at) === close) {
      if (at !== end - 1) throw syntaxError('Unexpected token', at + 1);
      return into;
    }
    for (;;) {
      const delimiter = yield* memberDelimiter(at);
      const memberEnd = trimEnd(at, delimiter);
      if (memberEnd === at) throw syntaxError('Unexpected token', delimiter);
      if (memberEnd - at > leafChars) {
        if (runEnd >= 0) {
          addRun();
          if (pause(work(runEnd - runStart))) yield;
          runEnd = -1;
        }
        if (array) array.push(yield* parseValue(at, memberEnd));
        else {
          if (text.charCodeAt(at) !== QUOTE) throw syntaxError('Expected a property name', at);
          const keyEnd = stringEnd(at);
          const key = JSON.parse(text.slice(at, keyEnd)) as string;
          const colon = skipSpace(keyEnd);
          if (text.charCodeAt(colon) !== COLON) throw syntaxError("Expected ':'", colon);
          setMember(into as Record<string, unknown>, key, yield* parseValue(skipSpace(colon + 1), memberEnd));
        }
      } else {
        if (runEnd < 0) runStart = at;
        runEnd = memberEnd;
        if (runEnd - runStart >= leafChars) {
          addRun();
          if (pause(work(runEnd - runStart))) yield;
          runEnd = -1;
        }
      }
      const code = text.charCodeAt(delimiter);
      if (code === close) {
        if (delimiter !== end - 1) throw syntaxError('Unexpected token', delimiter + 1);
        break;
      }
      if (code !== COMMA) throw syntaxError('Unexpected token', delimiter);
      at = skipSpace(delimiter + 1);
    }
    if (runEnd >= 0) {
      addRun();
      if (pause(work(runEnd - runStart))) yield;
    }
    return into;
  }

  const start = skipSpace(0);
  const end = trimEnd(start, text.length);
  if (start === end) throw syntaxError('Unexpected end', text.length);
  return yield* parseValue(start, end);
}

/** `object[key] = value` as JSON.parse sets it: `__proto__` too is an own property, not the prototype. */
function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else object[key] = value;
}
