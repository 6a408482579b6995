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

import type { Pause, Steps } from '../domain/steps';
import { finishSteps } from '../domain/steps';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Whole numbers of up to 15 digits are below 2^53: exact as doubles. */
const MAX_SAFE_DIGITS = 15;

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
  /** The hit's `sort` values (a JSON array), when the search sorted. */
  sort: Span | undefined;
  /** Whether the body has, at any depth, the key asked for with `readRawHits(bytes, key)`. */
  bodyHasKey: boolean;
}

export interface RawHits {
  /** The response's bytes, as they arrived (the spans are positions in them). */
  bytes: JsonBytes;
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

/** Key strings kept by the hash of their bytes (see JsonSkimmer#keyText): the envelope's keys and a few more. */
const keptKeys = new Map<number, string>();
const MAX_KEPT_KEYS = 256;
const MAX_KEPT_KEY = 32;

/** How far a string is scanned byte by byte before indexOf takes over (see shortStringClose). */
const SHORT_STRING = 32;

/**
 * The closing quote of the string whose opening quote is at `local`, when it lies within SHORT_STRING bytes
 * in `chunk`; -1 otherwise (a longer string, or one that runs on into the next chunk). Most strings of a
 * document are keys and short values: a loop finds their end for less than a call to indexOf each (those
 * calls were ~45% of the skim of a page of 100), which pays only for the long texts.
 */
function shortStringClose(chunk: Buffer, local: number): number {
  const limit = Math.min(chunk.length, local + 1 + SHORT_STRING);
  for (let i = local + 1; i < limit; i++) {
    const byte = chunk[i]!;
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH) i++;
  }
  return -1;
}

/**
 * JSON bytes as they arrived: one buffer, or the chunks a socket delivered them in, read as one run of
 * bytes without joining them (joining a page of 100, ~250 kB, was a copy per request for the collector to
 * free). Positions are over the whole run; a span that crosses chunks is copied when it is taken out.
 */
export class JsonBytes {
  readonly chunks: readonly Buffer[];
  /** Where each chunk starts in the whole run. */
  readonly starts: readonly number[];
  readonly length: number;

  constructor(bytes: Buffer | readonly Buffer[]) {
    this.chunks = Buffer.isBuffer(bytes) ? [bytes] : bytes.filter((chunk) => chunk.length > 0);
    const starts: number[] = [];
    let length = 0;
    for (const chunk of this.chunks) {
      starts.push(length);
      length += chunk.length;
    }
    this.starts = starts;
    this.length = length;
  }

  /** The index of the chunk holding `position` (the last chunk for the end). */
  chunkAt(position: number, hint = 0): number {
    const { starts } = this;
    // The skimmer moves forward, so the chunk is mostly the hint's or the next one.
    if (hint < starts.length && starts[hint]! <= position) {
      let index = hint;
      while (index + 1 < starts.length && starts[index + 1]! <= position) {
        index++;
        if (index > hint + 2) break;
      }
      if (index + 1 >= starts.length || starts[index + 1]! > position) return index;
    }
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return Math.max(0, low);
  }

  /** The bytes of [start, end): a view of its chunk when it lies in one, else a copy. */
  subarray(start: number, end: number): Buffer {
    const first = this.chunkAt(start);
    const chunk = this.chunks[first];
    if (!chunk) return Buffer.alloc(0);
    const offset = this.starts[first]!;
    if (end - offset <= chunk.length) return chunk.subarray(start - offset, end - offset);
    const parts: Buffer[] = [];
    for (let index = first; index < this.chunks.length && this.starts[index]! < end; index++) {
      const at = this.starts[index]!;
      parts.push(
        this.chunks[index]!.subarray(Math.max(0, start - at), Math.min(end - at, this.chunks[index]!.length)),
      );
    }
    return Buffer.concat(parts, end - start);
  }

  toString(encoding: 'utf8' | 'latin1', start: number, end: number): string {
    const index = this.chunkAt(start);
    const chunk = this.chunks[index];
    const offset = this.starts[index] ?? 0;
    if (chunk && end - offset <= chunk.length) return chunk.toString(encoding, start - offset, end - offset);
    return this.subarray(start, end).toString(encoding);
  }
}

/**
 * A cursor over JSON bytes that can step into objects and arrays and skip any value. The bytes may be in
 * chunks (JsonBytes); the scanning loops run over one chunk at a time and step to the next at its end.
 */
export class JsonSkimmer {
  position = 0;
  readonly bytes: JsonBytes;
  /** The chunk the last byte read was in: most reads are at or just after it. */
  private chunkIndex = 0;
  private chunk: Buffer;
  private chunkStart = 0;

  constructor(bytes: Buffer | readonly Buffer[] | JsonBytes) {
    this.bytes = bytes instanceof JsonBytes ? bytes : new JsonBytes(bytes);
    this.chunk = this.bytes.chunks[0] ?? Buffer.alloc(0);
  }

  /** Makes the chunk holding `position` the current one; false past the end. */
  private enter(position: number): boolean {
    if (position >= this.chunkStart && position < this.chunkStart + this.chunk.length) return true;
    if (position < 0 || position >= this.bytes.length) return false;
    this.chunkIndex = this.bytes.chunkAt(position, position >= this.chunkStart ? this.chunkIndex : 0);
    this.chunk = this.bytes.chunks[this.chunkIndex]!;
    this.chunkStart = this.bytes.starts[this.chunkIndex]!;
    return true;
  }

  /** The byte at `position`, undefined past the end. */
  private byteAt(position: number): number | undefined {
    const local = position - this.chunkStart;
    if (local >= 0 && local < this.chunk.length) return this.chunk[local];
    return this.enter(position) ? this.chunk[position - this.chunkStart] : undefined;
  }

  /** Moves past whitespace; returns the new position. */
  skipWhitespace(): number {
    while (isWhitespace(this.byteAt(this.position))) this.position++;
    return this.position;
  }

  private expect(byte: number, what: string): void {
    this.skipWhitespace();
    if (this.byteAt(this.position) !== byte) throw new MalformedJsonError(`expected ${what}`, this.position);
    this.position++;
  }

  /** The position just after the string whose opening quote is at `start`. */
  private stringEnd(start: number): number {
    let from = start + 1;
    for (;;) {
      if (!this.enter(from)) throw new MalformedJsonError('unterminated string', start);
      const chunk = this.chunk;
      const local = chunk.indexOf(QUOTE, from - this.chunkStart);
      if (local < 0) {
        from = this.chunkStart + chunk.length;
        continue;
      }
      const quote = this.chunkStart + local;
      // Mostly no backslash before the quote, in this chunk: no need to look further back.
      if (local > 0 && chunk[local - 1] !== BACKSLASH) return quote + 1;
      let backslashes = 0;
      while (this.byteAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) return quote + 1;
      from = quote + 1;
    }
  }

  /** Whether the bytes of [start, end) are `key`'s. */
  private equals(key: Buffer, start: number, end: number): boolean {
    if (end - start !== key.length) return false;
    this.enter(start);
    const local = start - this.chunkStart;
    // Byte by byte: the strings of this length mostly differ in their first letters (`"documentId"`), and a
    // call to Buffer#compare per such string cost more than the loop.
    if (local + key.length <= this.chunk.length) {
      const chunk = this.chunk;
      for (let i = 0; i < key.length; i++) if (chunk[local + i] !== key[i]) return false;
      return true;
    }
    for (let i = 0; i < key.length; i++) if (this.byteAt(start + i) !== key[i]) return false;
    return true;
  }

  /**
   * Skips the value at the cursor and returns where it was. With `key` (its bytes, quotes included), also
   * tells whether an object anywhere inside has that key, at no extra pass over the bytes.
   */
  skipValue(key?: Buffer): Span & { hasKey: boolean } {
    this.skipWhitespace();
    const start = this.position;
    const first = this.byteAt(start);
    if (first === undefined) throw new MalformedJsonError('expected a value', start);
    if (first === QUOTE) {
      this.position = this.stringEnd(start);
      return { start, end: this.position, hasKey: false };
    }
    if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
      let depth = 0;
      let hasKey = false;
      // The scan runs over the current chunk's bytes (`local`) and steps to the next chunk at its end.
      let chunk = this.chunk;
      let chunkStart = this.chunkStart;
      let local = start - chunkStart;
      for (;;) {
        if (local >= chunk.length) {
          const at = chunkStart + local;
          if (!this.enter(at)) throw new MalformedJsonError('unterminated object or array', start);
          chunk = this.chunk;
          chunkStart = this.chunkStart;
          local = at - chunkStart;
        }
        const byte = chunk[local]!;
        if (byte === QUOTE) {
          const at = chunkStart + local;
          const close = shortStringClose(chunk, local);
          let end: number;
          if (close >= 0) end = chunkStart + close + 1;
          else {
            // A long string: most end in their chunk with no backslash before the quote, found here with one call.
            const quote = chunk.indexOf(QUOTE, local + 1);
            end = quote > 0 && chunk[quote - 1] !== BACKSLASH ? chunkStart + quote + 1 : this.stringEnd(at);
          }
          if (key && !hasKey && this.equals(key, at, end)) {
            // The same bytes as a value are possible too ("conditions"); only a colon after it makes it a key.
            let next = end;
            while (isWhitespace(this.byteAt(next))) next++;
            hasKey = this.byteAt(next) === COLON;
          }
          if (end - chunkStart > chunk.length) {
            // The string ran on into a later chunk.
            this.enter(end - 1);
            chunk = this.chunk;
            chunkStart = this.chunkStart;
          }
          local = end - chunkStart;
          continue;
        }
        if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
        else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
          depth--;
          if (depth === 0) {
            this.position = chunkStart + local + 1;
            return { start, end: this.position, hasKey };
          }
        }
        local++;
      }
    }
    // A number, true, false or null: runs until a delimiter.
    let at = start;
    for (;;) {
      const byte = this.byteAt(at);
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
    if (this.byteAt(this.position) === CLOSE_OBJECT) {
      this.position++;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.byteAt(this.position) !== QUOTE) throw new MalformedJsonError('expected a key', this.position);
      const keyStart = this.position;
      this.position = this.stringEnd(keyStart);
      const key = this.keyText(keyStart + 1, this.position - 1);
      this.expect(COLON, 'a colon');
      const before = this.position;
      onKey(key);
      if (this.position === before) throw new Error(`the value of ${key} was not consumed`);
      this.skipWhitespace();
      const next = this.byteAt(this.position);
      this.position++;
      if (next === CLOSE_OBJECT) return;
      if (next !== COMMA) throw new MalformedJsonError('expected a comma or }', this.position - 1);
    }
  }

  /**
   * forEachEntry as steps: yields each key with the cursor on its value, which the caller must consume before
   * asking for the next (so a caller that is itself steps can stop between two values). Written beside
   * forEachEntry, not under it: the answers under the slicing threshold (nearly all) keep the callback path
   * the search bench measured, with no generator per object.
   */
  *entries(): Generator<string, void, void> {
    this.expect(OPEN_OBJECT, 'an object');
    this.skipWhitespace();
    if (this.byteAt(this.position) === CLOSE_OBJECT) {
      this.position++;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.byteAt(this.position) !== QUOTE) throw new MalformedJsonError('expected a key', this.position);
      const keyStart = this.position;
      this.position = this.stringEnd(keyStart);
      const key = this.keyText(keyStart + 1, this.position - 1);
      this.expect(COLON, 'a colon');
      const before = this.position;
      yield key;
      if (this.position === before) throw new Error(`the value of ${key} was not consumed`);
      this.skipWhitespace();
      const next = this.byteAt(this.position);
      this.position++;
      if (next === CLOSE_OBJECT) return;
      if (next !== COMMA) throw new MalformedJsonError('expected a comma or }', this.position - 1);
    }
  }

  /** forEachElement as steps: yields with the cursor on each element, which the caller must consume. */
  *elements(): Generator<void, void, void> {
    this.expect(OPEN_ARRAY, 'an array');
    this.skipWhitespace();
    if (this.byteAt(this.position) === CLOSE_ARRAY) {
      this.position++;
      return;
    }
    for (;;) {
      const before = this.position;
      yield;
      if (this.position === before) throw new Error('an array element was not consumed');
      this.skipWhitespace();
      const next = this.byteAt(this.position);
      this.position++;
      if (next === CLOSE_ARRAY) return;
      if (next !== COMMA) throw new MalformedJsonError('expected a comma or ]', this.position - 1);
    }
  }

  /** Steps through the array at the cursor; `onElement` is called with the cursor on each element. */
  forEachElement(onElement: () => void): void {
    this.expect(OPEN_ARRAY, 'an array');
    this.skipWhitespace();
    if (this.byteAt(this.position) === CLOSE_ARRAY) {
      this.position++;
      return;
    }
    for (;;) {
      const before = this.position;
      onElement();
      if (this.position === before) throw new Error('an array element was not consumed');
      this.skipWhitespace();
      const next = this.byteAt(this.position);
      this.position++;
      if (next === CLOSE_ARRAY) return;
      if (next !== COMMA) throw new MalformedJsonError('expected a comma or ]', this.position - 1);
    }
  }

  /**
   * A key's text (latin1, as `text` reads it): the envelope has a handful of keys, met on every hit, so their
   * strings are kept by a hash of their bytes instead of being decoded again each time (decoding was ~15% of
   * the skim of a page of 100).
   */
  private keyText(start: number, end: number): string {
    this.enter(start);
    const local = start - this.chunkStart;
    const chunk = this.chunk;
    const length = end - start;
    if (local + length > chunk.length || length > MAX_KEPT_KEY) return this.text('latin1', start, end);
    let hash = length;
    for (let i = local; i < local + length; i++) hash = (Math.imul(hash, 31) + chunk[i]!) | 0;
    const kept = keptKeys.get(hash);
    if (kept !== undefined && kept.length === length) {
      let same = true;
      for (let i = 0; i < length && same; i++) same = kept.charCodeAt(i) === chunk[local + i];
      if (same) return kept;
    }
    const key = chunk.toString('latin1', local, local + length);
    if (keptKeys.size < MAX_KEPT_KEYS) keptKeys.set(hash, key);
    return key;
  }

  /** The text of [start, end), read from the current chunk when it lies there (keys mostly do). */
  private text(encoding: 'utf8' | 'latin1', start: number, end: number): string {
    this.enter(start);
    const local = start - this.chunkStart;
    if (end - this.chunkStart <= this.chunk.length)
      return this.chunk.toString(encoding, local, end - this.chunkStart);
    return this.bytes.toString(encoding, start, end);
  }

  /** Parses the (small) value at the cursor. */
  parseValue(): unknown {
    const span = this.skipValue();
    return (
      this.digits(span.start, span.end) ?? (JSON.parse(this.text('utf8', span.start, span.end)) as unknown)
    );
  }

  /**
   * The value of [start, end) when it is a plain whole number that fits a double exactly (every hit's
   * `_version`), read without making a string for JSON.parse; undefined for anything else.
   */
  private digits(start: number, end: number): number | undefined {
    if (end - start > MAX_SAFE_DIGITS) return undefined;
    let value = 0;
    for (let at = start; at < end; at++) {
      const byte = this.byteAt(at)!;
      if (byte < DIGIT_0 || byte > DIGIT_9) return undefined;
      value = value * 10 + (byte - DIGIT_0);
    }
    return value;
  }

  /** Whether the cursor is on `null`. */
  atNull(): boolean {
    this.skipWhitespace();
    return this.byteAt(this.position) === 0x6e;
  }
}

const NO_PAUSE: Pause = () => false;

/**
 * Reads `{hits: {total?, hits: [{_source: {body?, ...}, sort?}, ...]}}`, in one buffer or in the chunks it
 * arrived in; any other key is skipped. With
 * `bodyKey`, each hit also tells whether its body has that key anywhere (see RawHit.bodyHasKey).
 */
export function readRawHits(response: Buffer | readonly Buffer[], bodyKey?: string): RawHits {
  return finishSteps(rawHitsSteps(response, bodyKey, NO_PAUSE));
}

/**
 * readRawHits in steps, `pause` asked after each hit with the kilobytes it spanned as its work: skimming a
 * response of 100 hits of 1 MB is seconds, which a caller can let other requests have a turn in
 * (runInSlices).
 */
export function* rawHitsSteps(
  response: Buffer | readonly Buffer[],
  bodyKey: string | undefined,
  pause: Pause,
): Steps<RawHits> {
  const flag = bodyKey === undefined ? undefined : Buffer.from(JSON.stringify(bodyKey));
  const reader = new JsonSkimmer(response);
  const bytes = reader.bytes;
  const hits: RawHit[] = [];
  let lastSortSpan: Span | undefined;
  let total: number | undefined;
  for (const key of reader.entries()) {
    if (key !== 'hits') {
      reader.skipValue();
      continue;
    }
    for (const hitsKey of reader.entries()) {
      if (hitsKey === 'total') {
        const value = reader.parseValue() as number | { value: number } | null;
        total = typeof value === 'number' ? value : value?.value;
      } else if (hitsKey === 'hits') {
        for (const _ of reader.elements()) {
          const hitStart = reader.position;
          const hit: RawHit = {
            index: undefined,
            id: undefined,
            version: undefined,
            source: undefined,
            body: undefined,
            sort: undefined,
            bodyHasKey: false,
          };
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
              hit.sort = reader.skipValue();
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
          lastSortSpan = hit.sort;
          if (pause(1 + ((reader.position - hitStart) >> 10))) yield;
        }
      } else {
        reader.skipValue();
      }
    }
  }
  const lastSort =
    lastSortSpan && (JSON.parse(bytes.toString('utf8', lastSortSpan.start, lastSortSpan.end)) as unknown[]);
  return { bytes, hits, lastSort, total };
}
