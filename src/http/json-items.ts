import type { Response } from 'express';

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const RESULTS = Buffer.from('{"results":');
const END = Buffer.from('}');

/**
 * Answers with items that are already JSON bytes (search/raw-hits.ts says why): a bare array, or
 * `{"results": [...], ...rest}` when an envelope is given. Content-Type and ETag are those `res.json` gives.
 */
export function sendJsonItems(
  res: Response,
  items: readonly Buffer[],
  envelope?: Record<string, unknown>,
): void {
  const parts: Buffer[] = envelope ? [RESULTS, OPEN] : [OPEN];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(CLOSE);
  if (envelope) {
    const rest = JSON.stringify(envelope);
    parts.push(rest === '{}' ? END : Buffer.from(`,${rest.slice(1)}`));
  }
  res.type('json').send(Buffer.concat(parts));
}
