/**
 * Reads an Elasticsearch search response as bytes: where each hit's `_source` and `_source.body` are, the
 * last hit's sort values and the total, without turning the documents into objects.
 *
 * Why: the stored `body` already is the JSON the API answers with. Parsing ~170 kB of hits into objects only to
 * stringify them again, plus decoding and re-encoding the UTF-8, was about 40% of the API's CPU time per page
 * of documents/latestPublications (measured with `npm run bench -- --only=export` and a CPU profile). Copying
 * the bytes of each body into the answer does the same work for the cost of one scan.
 *
 * The reader skims: it follows the structure (objects, arrays, strings with escapes) and skips values it does
 * not need without building them. UTF-8 is safe to scan byte by byte here because every byte of a multi-byte
 * character is 0x80 or above, never a quote, backslash or bracket.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** A value's bytes: `bytes.subarray(start, end)`. */
export interface Span {
  start: number;
  end: number;
}

export interface RawHit {
  /** The hit's `_index` and `_id` (JSON strings, quotes included) and `_version` when the search asked for it. */
  index: Span | undefined;
  id: Span | undefined;
  version: number | undefined;
  source: Span | undefined;
  body: Span | undefined;
  /** Whether the body has, at any depth, the key asked for with `readRawHits(bytes, key)`. */
  bodyHasKey: boolean;
}

export interface RawHits {
  bytes: Buffer;
  hits: RawHit[];
  /** The last hit's `sort` values, parsed (they become the cursor). */
  lastSort: unknown[] | undefined;
  total: number | undefined;
}

export class MalformedJsonError extends Error {
  constructor(message: string, position: number) {
    super(`Malformed search response at byte ${position}: ${message}`);
    this.name = 'MalformedJsonError';
  }
}

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** A cursor over JSON bytes that can step into objects and arrays and skip any value. */
export class JsonSkimmer {
  position = 0;

  constructor(readonly bytes: Buffer) {}

  /** Moves past whitespace; returns the new position. */
  skipWhitespace(): number {
    while (isWhitespace(this.bytes[this.position])) this.position++;
    return this.position;
  }

  private expect(byte: number, what: string): void {
    this.skipWhitespace();
    if (this.bytes[this.position] !== byte) throw new MalformedJsonError(`expected ${what}`, this.position);
    this.position++;
  }

  /** The position just after the string whose opening quote is at `start`. */
  private stringEnd(start: number): number {
    let from = start + 1;
    for (;;) {
      const quote = this.bytes.indexOf(QUOTE, from);
      if (quote < 0) throw new MalformedJsonError('unterminated string', start);
      let backslashes = 0;
      while (this.bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) return quote + 1;
      from = quote + 1;
    }
  }

  /**
   * Skips the value at the cursor and returns where it was. With `key` (its bytes, quotes included), also
   * tells whether an object anywhere inside has that key, at no extra pass over the bytes.
   */
  skipValue(key?: Buffer): Span & { hasKey: boolean } {
    this.skipWhitespace();
    const bytes = this.bytes;
    const start = this.position;
    const first = bytes[start];
    if (first === undefined) throw new MalformedJsonError('expected a value', start);
    if (first === QUOTE) {
      this.position = this.stringEnd(start);
      return { start, end: this.position, hasKey: false };
    }
    if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
      let depth = 0;
      let at = start;
      let hasKey = false;
      for (;;) {
        const byte = bytes[at];
        if (byte === undefined) throw new MalformedJsonError('unterminated object or array', start);
        if (byte === QUOTE) {
          const end = this.stringEnd(at);
          if (key && !hasKey && end - at === key.length && bytes.compare(key, 0, key.length, at, end) === 0) {
            // The same bytes as a value are possible too ("conditions"); only a colon after it makes it a key.
            let next = end;
            while (isWhitespace(bytes[next])) next++;
            hasKey = bytes[next] === COLON;
          }
          at = end;
          continue;
        }
        if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
        else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
          depth--;
          if (depth === 0) {
            this.position = at + 1;
            return { start, end: this.position, hasKey };
          }
        }
        at++;
      }
    }
    // A number, true, false or null: runs until a delimiter.
    let at = start;
    for (;;) {
      const byte = bytes[at];
      if (
        byte === undefined ||
        byte === COMMA ||
        byte === CLOSE_OBJECT ||
        byte === CLOSE_ARRAY ||
        isWhitespace(byte)
      ) {
        break;
      }
      at++;
    }
    if (at === start) throw new MalformedJsonError('expected a value', start);
    this.position = at;
    return { start, end: at, hasKey: false };
  }

  /**
   * Steps through the object at the cursor; `onKey` is called with each key (ASCII keys only are compared,
   * which is all an Elasticsearch envelope has) with the cursor on its value, and must consume that value.
   */
  forEachEntry(onKey: (key: string) => void): void {
    this.expect(OPEN_OBJECT, 'an object');
    this.skipWhitespace();
    if (this.bytes[this.position] === CLOSE_OBJECT) {
      this.position++;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.bytes[this.position] !== QUOTE) throw new MalformedJsonError('expected a key', this.position);
      const keyStart = this.position;
      this.position = this.stringEnd(keyStart);
      const key = this.bytes.toString('latin1', keyStart + 1, this.position - 1);
      this.expect(COLON, 'a colon');
      const before = this.position;
      onKey(key);
      if (this.position === before) throw new Error(`the value of ${key} was not consumed`);
      this.skipWhitespace();
      const next = this.bytes[this.position];
      this.position++;
      if (next === CLOSE_OBJECT) return;
      if (next !== COMMA) throw new MalformedJsonError('expected a comma or }', this.position - 1);
    }
  }

  /** Steps through the array at the cursor; `onElement` is called with the cursor on each element. */
  forEachElement(onElement: () => void): void {
    this.expect(OPEN_ARRAY, 'an array');
    this.skipWhitespace();
    if (this.bytes[this.position] === CLOSE_ARRAY) {
      this.position++;
      return;
    }
    for (;;) {
      const before = this.position;
      onElement();
      if (this.position === before) throw new Error('an array element was not consumed');
      this.skipWhitespace();
      const next = this.bytes[this.position];
      this.position++;
      if (next === CLOSE_ARRAY) return;
      if (next !== COMMA) throw new MalformedJsonError('expected a comma or ]', this.position - 1);
    }
  }

  /** Parses the (small) value at the cursor. */
  parseValue(): unknown {
    const span = this.skipValue();
    return JSON.parse(this.bytes.toString('utf8', span.start, span.end)) as unknown;
  }

  /** Whether the cursor is on `null`. */
  atNull(): boolean {
    this.skipWhitespace();
    return this.bytes[this.position] === 0x6e;
  }
}

/**
 * Reads `{hits: {total?, hits: [{_source: {body?, ...}, sort?}, ...]}}`; any other key is skipped. With
 * `bodyKey`, each hit also tells whether its body has that key anywhere (see RawHit.bodyHasKey).
 */
export function readRawHits(bytes: Buffer, bodyKey?: string): RawHits {
  const flag = bodyKey === undefined ? undefined : Buffer.from(JSON.stringify(bodyKey));
  const reader = new JsonSkimmer(bytes);
  const hits: RawHit[] = [];
  let lastSortSpan: Span | undefined;
  let total: number | undefined;
  reader.forEachEntry((key) => {
    if (key !== 'hits') {
      reader.skipValue();
      return;
    }
    reader.forEachEntry((hitsKey) => {
      if (hitsKey === 'total') {
        const value = reader.parseValue() as number | { value: number } | null;
        total = typeof value === 'number' ? value : value?.value;
      } else if (hitsKey === 'hits') {
        reader.forEachElement(() => {
          const hit: RawHit = {
            index: undefined,
            id: undefined,
            version: undefined,
            source: undefined,
            body: undefined,
            bodyHasKey: false,
          };
          let sort: Span | undefined;
          reader.forEachEntry((hitKey) => {
            if (hitKey === '_source') {
              const start = reader.skipWhitespace();
              reader.forEachEntry((sourceKey) => {
                if (sourceKey === 'body' && !reader.atNull()) {
                  const { start: bodyStart, end, hasKey } = reader.skipValue(flag);
                  hit.body = { start: bodyStart, end };
                  hit.bodyHasKey = hasKey;
                } else {
                  reader.skipValue();
                }
              });
              hit.source = { start, end: reader.position };
            } else if (hitKey === 'sort') {
              sort = reader.skipValue();
            } else if (hitKey === '_index') {
              hit.index = reader.skipValue();
            } else if (hitKey === '_id') {
              hit.id = reader.skipValue();
            } else if (hitKey === '_version') {
              const value = reader.parseValue();
              hit.version = typeof value === 'number' ? value : undefined;
            } else {
              reader.skipValue();
            }
          });
          hits.push(hit);
          lastSortSpan = sort;
        });
      } else {
        reader.skipValue();
      }
    });
  });
  const lastSort =
    lastSortSpan && (JSON.parse(bytes.toString('utf8', lastSortSpan.start, lastSortSpan.end)) as unknown[]);
  return { bytes, hits, lastSort, total };
}
