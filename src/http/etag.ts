import { hash } from 'node:crypto';

/**
 * Express's default weak ETag, `W/"<length in hex>-<first 27 base64 characters of its SHA-1>"`, computed
 * with the one-shot `crypto.hash`: creating a Hash object per response was ~3% of the API's CPU on small
 * searches. Same value as before for the same body, so clients' cached ETags stay valid.
 */
export function weakEtag(body: string | Buffer): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (bytes.length === 0) return 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  return weakEtagOf(bytes.length, hash('sha1', bytes, 'base64'));
}

/** weakEtag of a body of `length` bytes whose SHA-1 (base64) is `sha1`, hashed piece by piece elsewhere. */
export function weakEtagOf(length: number, sha1: string): string {
  return `W/"${length.toString(16)}-${sha1.slice(0, 27)}"`;
}
