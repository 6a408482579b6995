import { hash } from 'node:crypto';
import type { Response } from 'express';
import type { Items } from '../reads/publications';

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const RESULTS = Buffer.from('{"results":');
const END = Buffer.from('}');

/**
 * Answers with items that are already JSON bytes (search/raw-hits.ts says why) as a bare array, or as
 * `{"results": [...], ...rest}` when an envelope is given, with the Content-Type `res.json` gives. The weak
 * ETag hashes the items' fingerprint and the envelope instead of the whole answer (up to ~170 kB for a page
 * of 100): same guarantees, a fraction of the work; If-None-Match and 304 work as for any other answer.
 */
export function sendJsonItems(res: Response, answer: Items, envelope?: Record<string, unknown>): void {
  const parts: Buffer[] = envelope ? [RESULTS, OPEN] : [OPEN];
  answer.items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(CLOSE);
  let shape = 'bare';
  if (envelope) {
    const rest = JSON.stringify(envelope);
    parts.push(rest === '{}' ? END : Buffer.from(`,${rest.slice(1)}`));
    shape = `results${rest}`;
  }
  const body = Buffer.concat(parts);
  const digest = hash('sha1', `${shape}\n${answer.fingerprint}`, 'base64').slice(0, 27);
  res.setHeader('ETag', `W/"${body.length.toString(16)}-${digest}"`);
  res.type('json').send(body);
}
