import type { Logger } from '../logger';
import { apiClientRequestWindowQueries, type WindowIncrement } from './queries/api-client-request-windows';
import type { Queryable } from './pool';
import { CLEANUP_EVERY_MS, KEEP_WINDOWS_MS, windowStartMs, type RateLimit } from '../domain/rate-limits';

/** How often a process adds the requests it let through to the shared counts. */
export const SYNC_INTERVAL_MS = 250;

/**
 * The last stretch of a window's allowance in which every request is counted in Postgres before it is let
 * through: a tenth of the limit, at least 50 requests (so small limits are always exact).
 */
export function exactMargin(limit: RateLimit): number {
  return Math.max(50, Math.ceil(limit.requests / 10));
}

/**
 * The most requests of a client this process lets through uncounted: the next one adds them all to the
 * shared count in its own UPSERT. However fast a burst, another process's overshoot is at most this many.
 */
const LOCAL_BATCH = 10;

/** One client's window as this process knows it. */
interface ClientWindow {
  key: string;
  clientId: string;
  periodSeconds: number;
  windowStartMs: number;
  /** The shared count as Postgres last answered it (every process's requests, this one's included). */
  known: number;
  /** Requests this process let through that Postgres has not counted yet. */
  pending: number;
  /** Whether this process has read the shared count of this window at all. */
  synced: boolean;
}

export interface TakeResult {
  allowed: boolean;
  /** Requests made in the window, this one included, as far as this process knows. */
  used: number;
}

/**
 * Counts each API client's requests per fixed window, shared by every API process through Postgres
 * (api_client_request_windows) and kept cheap:
 *
 * - The first request of a client in a window, and every request in the last `exactMargin` of its
 *   allowance, adds itself (with what this process let through meanwhile) in one UPSERT and is let through
 *   only if the new total is within the limit: near the limit the count is exact across processes.
 * - Below that, a request is counted locally and let through at once, up to LOCAL_BATCH uncounted requests
 *   (the next one counts them all with itself); every SYNC_INTERVAL_MS one UPSERT adds what the process let
 *   through, for all clients, and reads back the totals. So a burst overshoots by at most LOCAL_BATCH per
 *   other process, however fast it comes.
 * - A refusal needs no query: counts only grow within a window, so a total already over the limit stays so.
 *
 * When Postgres cannot be reached the requests are let through (and counted locally, to be added when it
 * is back): rate limiting never turns a database hiccup into refusals of its own.
 */
export class RateLimitCounter {
  private readonly windows = new Map<string, ClientWindow>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private lastCleanup = Date.now();
  private closed = false;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async take(clientId: string, limit: RateLimit): Promise<TakeResult> {
    const nowMs = this.now();
    const window = this.windowOf(clientId, limit.periodSeconds, nowMs);
    const used = window.known + window.pending;
    if (used >= limit.requests) return { allowed: false, used };
    if (window.synced && window.pending < LOCAL_BATCH && limit.requests - used > exactMargin(limit)) {
      window.pending += 1;
      this.schedule();
      return { allowed: true, used: used + 1 };
    }
    const increment = window.pending + 1;
    window.pending = 0;
    try {
      const [added] = await apiClientRequestWindowQueries(this.db).add([this.incrementOf(window, increment)]);
      const total = added ?? increment;
      window.known = Math.max(window.known, total);
      window.synced = true;
      // This request's own place in the count decides, not the highest total seen meanwhile: another sync
      // of this process may have returned a later total while this one was in flight.
      return { allowed: total <= limit.requests, used: total };
    } catch (error) {
      window.pending += increment;
      this.logger.warn({ err: error, clientId }, 'rate limit: Postgres did not count a request; let through');
      this.schedule();
      return { allowed: true, used: window.known + window.pending };
    }
  }

  /** Adds every pending count now (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.sync().finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush().catch(() => undefined);
  }

  private windowOf(clientId: string, periodSeconds: number, nowMs: number): ClientWindow {
    const key = `${clientId}|${periodSeconds}`;
    const start = windowStartMs(nowMs, periodSeconds);
    let window = this.windows.get(key);
    if (!window || window.windowStartMs !== start) {
      // The previous window's pending count is dropped with it: that window is over.
      window = { key, clientId, periodSeconds, windowStartMs: start, known: 0, pending: 0, synced: false };
      this.windows.set(key, window);
    }
    return window;
  }

  private incrementOf(window: ClientWindow, requests: number): WindowIncrement {
    return {
      clientId: window.clientId,
      periodSeconds: window.periodSeconds,
      windowStartMs: window.windowStartMs,
      requests,
    };
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => undefined);
    }, SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  private async sync(): Promise<void> {
    const nowMs = this.now();
    const due: { window: ClientWindow; requests: number }[] = [];
    for (const window of this.windows.values()) {
      if (window.windowStartMs + window.periodSeconds * 1000 <= nowMs) {
        // Ended: what it still had pending no longer decides anything.
        this.windows.delete(window.key);
        continue;
      }
      if (window.pending > 0) {
        due.push({ window, requests: window.pending });
        window.pending = 0;
      }
    }
    const queries = apiClientRequestWindowQueries(this.db);
    if (due.length > 0) {
      try {
        const totals = await queries.add(
          due.map(({ window, requests }) => this.incrementOf(window, requests)),
        );
        due.forEach(({ window }, position) => {
          window.known = Math.max(window.known, totals[position] ?? 0);
          window.synced = true;
        });
      } catch (error) {
        for (const { window, requests } of due) window.pending += requests;
        this.logger.warn({ err: error }, 'rate limit: could not add request counts to Postgres; will retry');
        this.schedule();
        return;
      }
    }
    if (nowMs - this.lastCleanup > CLEANUP_EVERY_MS) {
      this.lastCleanup = nowMs;
      await queries.deleteOlderThan(new Date(nowMs - KEEP_WINDOWS_MS)).catch(() => 0);
    }
  }
}
