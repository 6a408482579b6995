import { createHash, timingSafeEqual } from 'node:crypto';

const API_CLIENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `text` can be an API client's id: a uuid (the jti of its tokens). Anything else names no client and
 * is not sent to Postgres, whose uuid column would refuse it with an error of its own.
 */
export function isApiClientId(text: string): boolean {
  return API_CLIENT_ID.test(text);
}

/**
 * API client secrets (client credentials of integrations, POST planner-integration/oauth/token). A secret is
 * 32 random bytes made by the server, so a plain SHA-256 is enough to keep it unreadable at rest: slow
 * password hashes guard guessable secrets, and a 256-bit one is not guessable.
 */
export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Whether `secret` is the one whose hash is stored, compared in constant time. */
export function clientSecretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashClientSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
