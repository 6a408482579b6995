import { hash } from 'node:crypto';
import type { Response } from 'express';
import type { Items } from '../reads/publications';

const OPEN = Buffer.from('[');
const COMMA = 0x2c;
const CLOSE = Buffer.from(']');
const RESULTS_OPEN = Buffer.from('{"results":[');
const CLOSE_END = Buffer.from(']}');

interface Rendered {
  /** The answer's bytes in order: the envelope's start, the items joined by commas, the envelope's end. */
  chunks: Buffer[];
  length: number;
  etag: string;
  /** The chunks concatenated, made when the same rendering is sent a second time (a kept answer). */
  body?: Buffer;
}

/**
 * Answers rendered already, per answer object and envelope: an answer the search answer cache keeps is sent
 * to every request that asks for it, and is joined and hashed once. Weak: an answer no cache holds any more
 * takes its renderings with it.
 */
const rendered = new WeakMap<Items, Map<string, Rendered>>();
/** Each answer's items joined by commas (the same for every envelope). */
const joinedItems = new WeakMap<Items, Buffer>();

/**
 * Answers with items that are already JSON bytes (search/raw-hits.ts says why) as a bare array, or as
 * `{"results": [...], ...rest}` when an envelope is given, with the Content-Type `res.json` gives. The weak
 * ETag hashes the items' fingerprint and the envelope instead of the whole answer (up to ~170 kB for a page
 * of 100): same guarantees, a fraction of the work; If-None-Match and 304 work as for any other answer.
 *
 * The first time an answer is sent its parts go out as they are, in one write (see joinItems) (no ~170 kB copy of a page
 * that, uncached, is sent once); a rendering sent again is joined into one buffer then, and kept with it.
 */
export function sendJsonItems(res: Response, answer: Items, envelope?: Record<string, unknown>): void {
  const rest = envelope ? JSON.stringify(envelope) : undefined;
  const shape = rest === undefined ? 'bare' : `results${rest}`;
  let renderings = rendered.get(answer);
  let done = renderings?.get(shape);
  let again = true;
  if (!done) {
    again = false;
    done = render(answer, shape, rest);
    if (!renderings) {
      renderings = new Map();
      rendered.set(answer, renderings);
    }
    renderings.set(shape, done);
  }
  res.setHeader('ETag', done.etag);
  res.type('json');
  if (again || res.req.method !== 'GET' || res.req.fresh) {
    // A kept answer, a HEAD or a 304: Express's own send, with the whole body (it strips what a 304 or HEAD
    // must not carry).
    done.body ??= Buffer.concat(done.chunks, done.length);
    res.send(done.body);
    return;
  }
  res.setHeader('Content-Length', done.length);
  res.cork();
  for (const chunk of done.chunks) if (chunk.length > 0) res.write(chunk);
  res.end();
}

function render(answer: Items, shape: string, rest: string | undefined): Rendered {
  const items = joinItems(answer);
  const chunks =
    rest === undefined
      ? [OPEN, items, CLOSE]
      : [RESULTS_OPEN, items, rest === '{}' ? CLOSE_END : Buffer.from(`],${rest.slice(1)}`)];
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const digest = hash('sha1', `${shape}\n${answer.fingerprint}`, 'base64').slice(0, 27);
  return { chunks, length, etag: `W/"${length.toString(16)}-${digest}"` };
}

/**
 * The items joined by commas. When they are slices of one search response, in order with room between them
 * (each hit's body sits among the hit's other keys), they are moved together inside that response's own
 * bytes, which nothing reads any more (the ids, versions, sort values and total were read from it when the
 * answer was made), instead of being copied into a new buffer: for a page of 100 that is ~170 kB less to
 * allocate and collect per request. The items then point at their new place. Anything else is copied.
 */
export function joinItems(answer: Items): Buffer {
  let bytes = joinedItems.get(answer);
  if (!bytes) {
    bytes = compactInPlace(answer) ?? concatItems(answer.items);
    joinedItems.set(answer, bytes);
  }
  return bytes;
}

function concatItems(items: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  items.forEach((item, i) => {
    if (i > 0) parts.push(Buffer.of(COMMA));
    parts.push(item);
  });
  return Buffer.concat(parts);
}

/** See joinItems(): undefined unless every item lies inside `answer.source`, in order, a byte or more apart. */
function compactInPlace(answer: Items): Buffer | undefined {
  const { source, items } = answer;
  if (!source || items.length === 0) return undefined;
  const base = source.byteOffset;
  const starts: number[] = [];
  let previousEnd = -1;
  for (const item of items) {
    if (item.buffer !== source.buffer) return undefined;
    const start = item.byteOffset - base;
    const end = start + item.length;
    if (start < 0 || end > source.length || start <= previousEnd) return undefined;
    starts.push(start);
    previousEnd = end;
  }
  const first = starts[0]!;
  let at = first;
  items.forEach((item, i) => {
    if (i > 0) source[at++] = COMMA;
    const start = starts[i]!;
    // Never forwards past where the item is (at ≤ start), so the items still to move are left intact.
    if (at !== start) source.copy(source, at, start, start + item.length);
    items[i] = source.subarray(at, at + item.length);
    at += item.length;
  });
  return source.subarray(first, at);
}

/**
 * The caching headers of a search answer (documents/latestPublications, publications/search). A shared cache
 * may store it (`public`) but must ask us before every use (`no-cache`): the If-None-Match it sends is
 * answered 304 from this process's search answer cache, so a CDN in front saves the bytes while every answer
 * it serves is as fresh as ours (no max-age could be: an answer changes the moment a publish is searchable).
 * `Vary: Authorization`: stored per token, so a CDN never hands one client's answer to another without our
 * word. `Surrogate-Key` names the project and the answer's documents (`project-<id> document-<id> ...`), for a
 * CDN that purges by key.
 */
export function setSearchCacheHeaders(res: Response, projectId: number, answer: Items): void {
  res.setHeader('Cache-Control', 'public, no-cache');
  res.vary('Authorization');
  let keys = `project-${projectId}`;
  for (const documentId of answer.documentIds) keys += ` document-${documentId}`;
  res.setHeader('Surrogate-Key', keys);
}
