import { createHash, timingSafeEqual } from 'node:crypto';

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
