import { hash } from 'node:crypto';
import type { Response } from 'express';
import type { Items } from '../reads/publications';

const OPEN = Buffer.from('[');
const COMMA = 0x2c;
const CLOSE = Buffer.from(']');
const RESULTS_OPEN = Buffer.from('{"results":[');
const CLOSE_END = Buffer.from(']}');

/** A JSON answer as the pieces of its bytes, in order, and its weak ETag. */
export interface JsonChunks {
  chunks: Buffer[];
  length: number;
  etag: string;
}

interface Rendered extends JsonChunks {
  /** The answer's bytes in order: the envelope's start, the items joined by commas, the envelope's end. */
  chunks: Buffer[];
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
const joinedItems = new WeakMap<Items, Buffer[]>();

/**
 * Answers with items that are already JSON bytes (search/raw-hits.ts says why) as a bare array, or as
 * `{"results": [...], ...rest}` when an envelope is given, with the Content-Type `res.json` gives. The weak
 * ETag hashes the items' fingerprint and the envelope instead of the whole answer (up to ~170 kB for a page
 * of 100): same guarantees, a fraction of the work; If-None-Match and 304 work as for any other answer.
 *
 * The first time an answer is sent its parts go out as they are, in one write (sendJsonChunks, see joinItems) (no
 * ~170 kB copy of a page that, uncached, is sent once); a rendering sent again is joined into one buffer then,
 * and kept with it.
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
  if (again) {
    // A kept answer: Express's own send, with the whole body joined once (it strips what a 304 or HEAD must
    // not carry).
    res.setHeader('ETag', done.etag);
    res.setHeader('Content-Type', JSON_TYPE);
    done.body ??= Buffer.concat(done.chunks, done.length);
    res.send(done.body);
    return;
  }
  sendJsonChunks(res, done);
}

/**
 * Sends a JSON answer given as pieces, as `res.send` would send them joined: its ETag, `304` without a body
 * when If-None-Match matches it, the Content-Length without a body for a HEAD; else the pieces in one write.
 */
export function sendJsonChunks(res: Response, answer: JsonChunks): void {
  res.setHeader('ETag', answer.etag);
  if (res.req.fresh) {
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', answer.length);
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  res.cork();
  for (const chunk of answer.chunks) if (chunk.length > 0) res.write(chunk);
  res.end();
}

/** What `res.type('json')` sets, without its lookup per request. */
const JSON_TYPE = 'application/json; charset=utf-8';

function render(answer: Items, shape: string, rest: string | undefined): Rendered {
  const items = joinItems(answer);
  const chunks =
    rest === undefined
      ? [OPEN, ...items, CLOSE]
      : [RESULTS_OPEN, ...items, rest === '{}' ? CLOSE_END : Buffer.from(`],${rest.slice(1)}`)];
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const digest = hash('sha1', `${shape}\n${answer.fingerprint}`, 'base64').slice(0, 27);
  return { chunks, length, etag: `W/"${length.toString(16)}-${digest}"` };
}

/**
 * The items joined by commas, as the pieces to write in order. Items that are slices of the search response
 * (in the chunks it arrived in) are moved together inside their chunk, in order with room between them (each
 * hit's body sits among the hit's other keys), their commas written into that room: the response's bytes
 * are read by nothing any more (the ids, versions, sort values and total were read from it when the answer
 * was made). So a page of 100 is sent as a few slices of what Elasticsearch sent instead of a new ~170 kB
 * buffer to allocate and collect per request. The items then point at their new place. Any other item (one
 * that component conditions rewrote, one that crossed two chunks and was copied) is a piece of its own.
 */
export function joinItems(answer: Items): Buffer[] {
  let pieces = joinedItems.get(answer);
  if (!pieces) {
    pieces = compactInPlace(answer);
    joinedItems.set(answer, pieces);
  }
  return pieces;
}

const COMMA_PIECE = Buffer.from(',');

/** See joinItems(). */
function compactInPlace(answer: Items): Buffer[] {
  const { items } = answer;
  const chunks = answer.source ?? [];
  const pieces: Buffer[] = [];
  /** The run being compacted: its chunk, where it starts and where its next byte goes. */
  let run: { chunk: Buffer; first: number; at: number } | undefined;
  const closeRun = () => {
    if (run) pieces.push(run.chunk.subarray(run.first, run.at));
    run = undefined;
  };
  let chunkIndex = 0;
  items.forEach((item, i) => {
    // Items are in the response's order, so the chunk holding this one is this or a later one.
    let start = -1;
    for (let c = chunkIndex; c < chunks.length; c++) {
      const chunk = chunks[c]!;
      if (item.buffer !== chunk.buffer) continue;
      const offset = item.byteOffset - chunk.byteOffset;
      if (offset >= 0 && offset + item.length <= chunk.length) {
        chunkIndex = c;
        start = offset;
        break;
      }
    }
    const chunk = start < 0 ? undefined : chunks[chunkIndex]!;
    if (chunk && run && run.chunk === chunk && start > run.at) {
      // Never forwards past where the item is (at < start), so the items still to move are left intact.
      chunk[run.at++] = COMMA;
      chunk.copy(chunk, run.at, start, start + item.length);
      items[i] = chunk.subarray(run.at, run.at + item.length);
      run.at += item.length;
      return;
    }
    closeRun();
    if (i > 0) pieces.push(COMMA_PIECE);
    if (chunk) run = { chunk, first: start, at: start + item.length };
    else pieces.push(item);
  });
  closeRun();
  return pieces;
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
  // Nothing before the route sets Vary: set it outright, without res.vary's parse and merge of the old value.
  if (res.hasHeader('Vary')) res.vary('Authorization');
  else res.setHeader('Vary', 'Authorization');
  let keys = `project-${projectId}`;
  for (const documentId of answer.documentIds) keys += ` document-${documentId}`;
  res.setHeader('Surrogate-Key', keys);
}
