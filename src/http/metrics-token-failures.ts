import { AuthFailureLimiter, type Refusal } from '../db/auth-failure-limiter';
import type { Queryable } from '../db/pool';
import { limitedAddress } from '../domain/client-address';
import { secondsToReset, windowStartMs, type RateLimit } from '../domain/rate-limits';
import type { Logger } from '../logger';
import { PROBE_TIMEOUT_MS, withTimeout } from '../metrics/metrics';

/**
 * How long a scrape waits for the shared count before it goes by this process's own: as long as a scrape's
 * own reads from Postgres wait, since /metrics must keep answering while Postgres is down.
 */
const SHARED_COUNT_TIMEOUT_MS = PROBE_TIMEOUT_MS;

/** Most addresses the process-local count holds; past it, the oldest are forgotten first. */
const LOCAL_ADDRESSES = 10_000;

/**
 * Wrong METRICS_TOKEN guesses, limited per client address as failed logins are (AUTH_FAILURE_LIMIT, the same
 * windows in auth_failure_windows shared by every process, under keys of their own: `metrics-address:...`).
 *
 * The token is compared first, in memory: a right token from an address under its limit costs one read of
 * one row and is never counted; a wrong one is counted by the limiter's one statement (which counts nothing
 * once the window is full). From an address at its limit every token is refused, the right one included,
 * with the same 429: otherwise a guesser would keep guessing past the limit and learn the token by its 200.
 *
 * The process also counts the failures it sees itself: an address already at its limit here is refused
 * without a query, and when Postgres does not answer within SHARED_COUNT_TIMEOUT_MS the process's own count
 * decides, so /metrics keeps answering through a Postgres outage (broadsheet_postgres_up 0) and guessing
 * stays limited meanwhile, per process.
 */
export class MetricsTokenFailures {
  private readonly shared: AuthFailureLimiter | undefined;
  private readonly local = new Map<string, { windowStartMs: number; failures: number }>();

  constructor(
    db: Queryable,
    private readonly logger: Logger,
    private readonly limit: RateLimit | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.shared = limit
      ? new AuthFailureLimiter(
          db,
          logger,
          { perAddress: limit, perClient: undefined },
          { now, keyPrefix: 'metrics-' },
        )
      : undefined;
  }

  /** Before a right token is answered: a refusal when `address` is at its limit. */
  async beforeServing(address: string | undefined): Promise<Refusal | undefined> {
    if (!this.limit || !this.shared) return undefined;
    const local = this.localRefusal(address);
    if (local) return local;
    try {
      return await withTimeout(this.shared.refusal(address), SHARED_COUNT_TIMEOUT_MS);
    } catch (error) {
      this.logger.warn({ err: error }, 'metrics token limit: the shared count could not be read');
      return undefined;
    }
  }

  /** A wrong token from `address`: counts it, or answers the refusal when the address is at its limit. */
  async failed(address: string | undefined): Promise<Refusal | undefined> {
    if (!this.limit || !this.shared) return undefined;
    const local = this.localRefusal(address);
    if (local) return local;
    this.countLocally(address);
    try {
      const attempt = await withTimeout(this.shared.attempt(address, undefined), SHARED_COUNT_TIMEOUT_MS);
      if (!attempt.allowed) return attempt;
      await attempt.settle(true);
      return undefined;
    } catch (error) {
      this.logger.warn({ err: error }, 'metrics token limit: the failure could not be counted in Postgres');
      return undefined;
    }
  }

  private localRefusal(address: string | undefined): Refusal | undefined {
    const limit = this.limit!;
    const nowMs = this.now();
    const entry = this.local.get(limitedAddress(address));
    if (!entry || entry.windowStartMs !== windowStartMs(nowMs, limit.periodSeconds)) return undefined;
    if (entry.failures < limit.requests) return undefined;
    return { retryAfterSeconds: secondsToReset(nowMs, limit), refusedBy: [{ scope: 'address', limit }] };
  }

  private countLocally(address: string | undefined): void {
    const key = limitedAddress(address);
    const start = windowStartMs(this.now(), this.limit!.periodSeconds);
    const entry = this.local.get(key);
    // Deleted and set again, so the map's order is by last failure and the oldest go first.
    this.local.delete(key);
    this.local.set(key, {
      windowStartMs: start,
      failures: entry?.windowStartMs === start ? entry.failures + 1 : 1,
    });
    for (const oldest of this.local.keys()) {
      if (this.local.size <= LOCAL_ADDRESSES) break;
      this.local.delete(oldest);
    }
  }
}
