import type jwksRsa from 'jwks-rsa';
import { lazyModule } from '../../lazy-module';

/** jwks-rsa and its dependencies: loaded only by a process configured with a JWKS_URL. */
const loadJwksRsa = lazyModule<typeof jwksRsa>('jwks-rsa');

/** How long a fetched key set answers for its kids before it is fetched again (jwks-rsa's default). */
const KEY_SET_MAX_AGE_MS = 10 * 60_000;
/** At most this many fetches of the JWKS in any minute, whatever tokens name (README, JWKS_URL). */
const FETCHES_PER_MINUTE = 10;

/** The JWKS could not be fetched (it failed, hung past the timeout, or served no signing keys). */
export class KeySetUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The JWKS cannot be fetched', { cause });
    this.name = 'KeySetUnavailableError';
  }
}

/**
 * The public keys of JWKS_URL, by kid. Every fetch keeps the whole key set, so a kid the identity provider
 * serves is answered from the last fetch; a kid missing from it makes a new fetch, at most
 * FETCHES_PER_MINUTE a minute (tokens naming made-up kids cannot flood the endpoint), concurrent ones shared.
 *
 * jwks-rsa's own cache kept one kid per fetch and its rate limit counted every kid it had not kept: anyone
 * sending ten tokens a minute naming made-up kids used up the fetches, and a token of a key the JWKS does
 * serve but this process had not fetched yet (after a restart, or once the key had left the cache) was 401.
 */
export class JwksKeys {
  private readonly client: jwksRsa.JwksClient;
  private keys: ReadonlyMap<string | undefined, string> | undefined;
  /** How many signing keys the last fetch gave (kid-less ones may share a map entry). */
  private count = 0;
  private fetchedAt = 0;
  private readonly fetchStarts: number[] = [];
  private fetching: Promise<void> | undefined;

  constructor(jwksUri: string, timeoutMs: number) {
    this.client = loadJwksRsa()({ jwksUri, cache: false, rateLimit: false, timeout: timeoutMs });
  }

  /**
   * The PEM public key a token's `kid` names; undefined when the JWKS does not serve it (or this minute's
   * fetches are used up). A token without a kid gets the one key of a set of one, as jwks-rsa gives it.
   * Throws KeySetUnavailableError.
   */
  async keyFor(kid: unknown): Promise<string | undefined> {
    if (kid !== undefined && kid !== null && typeof kid !== 'string') return undefined;
    const wanted = typeof kid === 'string' ? kid : undefined;
    if (this.fresh()) {
      const known = this.lookUp(wanted);
      if (known !== undefined) return known;
    }
    if (this.fetching === undefined) {
      if (!this.mayFetch()) return undefined;
      this.fetching = this.fetch().finally(() => {
        this.fetching = undefined;
      });
    }
    await this.fetching;
    return this.lookUp(wanted);
  }

  private fresh(): boolean {
    return this.keys !== undefined && Date.now() - this.fetchedAt < KEY_SET_MAX_AGE_MS;
  }

  private lookUp(kid: string | undefined): string | undefined {
    const keys = this.keys;
    if (keys === undefined) return undefined;
    if (kid === undefined)
      return this.count === 1 ? (keys.get(undefined) ?? [...keys.values()][0]) : undefined;
    return keys.get(kid);
  }

  /** Whether a fetch may start now: fewer than FETCHES_PER_MINUTE started in the last minute. */
  private mayFetch(): boolean {
    const now = Date.now();
    while (this.fetchStarts.length > 0 && now - this.fetchStarts[0]! >= 60_000) this.fetchStarts.shift();
    if (this.fetchStarts.length >= FETCHES_PER_MINUTE) return false;
    this.fetchStarts.push(now);
    return true;
  }

  private async fetch(): Promise<void> {
    let signingKeys: jwksRsa.SigningKey[];
    try {
      signingKeys = await this.client.getSigningKeys();
    } catch (error) {
      throw new KeySetUnavailableError(error);
    }
    const keys = new Map<string | undefined, string>();
    for (const key of signingKeys) keys.set(key.kid ?? undefined, key.getPublicKey());
    this.keys = keys;
    this.count = signingKeys.length;
    this.fetchedAt = Date.now();
  }
}
