import { hash } from 'node:crypto';
import type { Response } from 'express';
import type { Items } from '../reads/publications';

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const RESULTS = Buffer.from('{"results":');
const END = Buffer.from('}');

interface Rendered {
  body: Buffer;
  etag: string;
}

/**
 * Answers rendered already, per answer object and envelope: an answer the search answer cache keeps is sent
 * to every request that asks for it, and is concatenated and hashed once. Weak: an answer no cache holds any
 * more takes its renderings with it.
 */
const rendered = new WeakMap<Items, Map<string, Rendered>>();

/**
 * Answers with items that are already JSON bytes (search/raw-hits.ts says why) as a bare array, or as
 * `{"results": [...], ...rest}` when an envelope is given, with the Content-Type `res.json` gives. The weak
 * ETag hashes the items' fingerprint and the envelope instead of the whole answer (up to ~170 kB for a page
 * of 100): same guarantees, a fraction of the work; If-None-Match and 304 work as for any other answer.
 */
export function sendJsonItems(res: Response, answer: Items, envelope?: Record<string, unknown>): void {
  const rest = envelope ? JSON.stringify(envelope) : undefined;
  const shape = rest === undefined ? 'bare' : `results${rest}`;
  let renderings = rendered.get(answer);
  let done = renderings?.get(shape);
  if (!done) {
    done = render(answer, shape, rest);
    if (!renderings) {
      renderings = new Map();
      rendered.set(answer, renderings);
    }
    renderings.set(shape, done);
  }
  res.setHeader('ETag', done.etag);
  res.type('json').send(done.body);
}

function render(answer: Items, shape: string, rest: string | undefined): Rendered {
  const parts: Buffer[] = rest !== undefined ? [RESULTS, OPEN] : [OPEN];
  answer.items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(CLOSE);
  if (rest !== undefined) parts.push(rest === '{}' ? END : Buffer.from(`,${rest.slice(1)}`));
  const body = Buffer.concat(parts);
  const digest = hash('sha1', `${shape}\n${answer.fingerprint}`, 'base64').slice(0, 27);
  return { body, etag: `W/"${body.length.toString(16)}-${digest}"` };
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
