import type { Logger } from '../logger';
import { limitedAddress } from '../domain/client-address';
import {
  CLEANUP_EVERY_MS,
  KEEP_WINDOWS_MS,
  secondsToReset,
  windowStartMs,
  type RateLimit,
} from '../domain/rate-limits';
import { authFailureWindowQueries, type FailureWindow } from './queries/auth-failure-windows';
import type { Queryable } from './pool';

export interface AuthFailureLimits {
  /** Failures per client address (AUTH_FAILURE_LIMIT); undefined: none. */
  perAddress: RateLimit | undefined;
  /** Failures per API client id named by the attempts (AUTH_FAILURE_LIMIT_PER_CLIENT); undefined: none. */
  perClient: RateLimit | undefined;
}

/** What an attempt was refused for: the address, the client, or both. */
export type FailureScope = 'address' | 'client';

/** Why attempts are refused, and for how long. */
export interface Refusal {
  /** Whole seconds until the latest of the refusing windows ends. */
  retryAfterSeconds: number;
  refusedBy: { scope: FailureScope; limit: RateLimit }[];
}

export type Attempt =
  | {
      allowed: true;
      /** Says how the secret check ended: a failure stays counted, anything else is taken back. */
      settle(failed: boolean): Promise<void>;
    }
  | ({ allowed: false } & Refusal);

interface Keyed extends FailureWindow {
  scope: FailureScope;
  limit: RateLimit;
}

/**
 * Failed secret checks per client address and per API client id, counted in fixed windows shared by every API
 * process through Postgres (auth_failure_windows), so brute force is refused before its secret is even checked.
 *
 * An attempt adds itself to its keys' counts before the check, in one statement that adds nothing when a key
 * is already at its limit (then the attempt is refused), and takes itself back when the secret was right: a
 * burst of attempts in flight at once, on any number of processes, cannot get more than the limit checked,
 * and successful logins are not counted. Every attempt costs a query; the login it guards costs more.
 */
export class AuthFailureLimiter {
  private lastCleanup = Date.now();
  private readonly now: () => number;
  private readonly keyPrefix: string;

  /**
   * `keyPrefix` keeps the counts of another secret apart (the metrics token's: `metrics-`), so failures with
   * one secret never use up the other's allowance.
   */
  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    private readonly limits: AuthFailureLimits,
    options: { now?: () => number; keyPrefix?: string } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.keyPrefix = options.keyPrefix ?? '';
  }

  private keysOf(nowMs: number, address: string | undefined, clientId: string | undefined): Keyed[] {
    const keys: Keyed[] = [];
    const add = (scope: FailureScope, key: string, limit: RateLimit | undefined) => {
      if (!limit) return;
      keys.push({
        scope,
        key: this.keyPrefix + key,
        limit,
        periodSeconds: limit.periodSeconds,
        windowStartMs: windowStartMs(nowMs, limit.periodSeconds),
      });
    };
    add('address', `address:${limitedAddress(address)}`, this.limits.perAddress);
    if (clientId !== undefined) add('client', `client:${clientId.toLowerCase()}`, this.limits.perClient);
    return keys;
  }

  /**
   * Whether attempts from `address` are refused now, counting nothing: for a secret compared before it is
   * counted (the metrics token), whose right value must still be refused from an address at its limit, or
   * the limit would not bound guessing at all. One read of one row.
   */
  async refusal(address: string | undefined): Promise<Refusal | undefined> {
    const nowMs = this.now();
    const keys = this.keysOf(nowMs, address, undefined);
    if (keys.length === 0) return undefined;
    const seen = await authFailureWindowQueries(this.db).failures(keys);
    const over = keys.filter((k) => (seen.get(k.key) ?? 0) >= k.limit.requests);
    if (over.length === 0) return undefined;
    return {
      retryAfterSeconds: Math.max(...over.map((k) => secondsToReset(nowMs, k.limit))),
      refusedBy: over.map(({ scope, limit }) => ({ scope, limit })),
    };
  }

  /** Whether an attempt from `address` (req.ip), naming `clientId` when it does, may have its secret checked. */
  async attempt(address: string | undefined, clientId: string | undefined): Promise<Attempt> {
    const nowMs = this.now();
    const keys = this.keysOf(nowMs, address, clientId);
    if (keys.length === 0) return { allowed: true, settle: () => Promise.resolve() };

    const queries = authFailureWindowQueries(this.db);
    const rows = await queries.reserve(keys.map((k) => ({ ...k, maxFailures: k.limit.requests })));
    const byKey = new Map(rows.map((row) => [row.key, row]));
    const added = keys.filter((k) => byKey.get(k.key)?.reserved != null);
    const over = keys.filter((k) => {
      const row = byKey.get(k.key);
      if (!row) return false;
      return row.reserved === null ? row.seen >= k.limit.requests : row.reserved > k.limit.requests;
    });
    if (over.length > 0) {
      // Added by a statement that raced another attempt past the limit: taken back, and refused like the rest.
      await this.releaseAll(added);
      return {
        allowed: false,
        retryAfterSeconds: Math.max(...over.map((k) => secondsToReset(nowMs, k.limit))),
        refusedBy: over.map(({ scope, limit }) => ({ scope, limit })),
      };
    }
    return {
      allowed: true,
      settle: async (failed) => {
        if (failed) {
          this.cleanUp(nowMs);
          return;
        }
        await this.releaseAll(added);
      },
    };
  }

  /** One key at a time: each statement then holds one row's lock, so releases never wait on each other in a circle. */
  private async releaseAll(keys: readonly Keyed[]): Promise<void> {
    const queries = authFailureWindowQueries(this.db);
    for (const key of keys) {
      await queries.release(key).catch((error: unknown) => {
        // A count left too high by one only makes the limit stricter until the window ends.
        this.logger.warn({ err: error, key: key.key }, 'auth failure limit: could not take an attempt back');
      });
    }
  }

  private cleanUp(nowMs: number): void {
    if (nowMs - this.lastCleanup < CLEANUP_EVERY_MS) return;
    this.lastCleanup = nowMs;
    void authFailureWindowQueries(this.db)
      .deleteOlderThan(new Date(nowMs - KEEP_WINDOWS_MS))
      .catch(() => 0);
  }
}
