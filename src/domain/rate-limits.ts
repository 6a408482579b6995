import { quoted } from './shown-input';

/**
 * Rate limits per API client: `requests` per fixed window of `periodSeconds`, the windows aligned to the Unix
 * epoch so that every API process agrees on where a window starts without talking to the others.
 */
export interface RateLimit {
  requests: number;
  periodSeconds: number;
}

/** No limit at all: the installation's default when RATE_LIMIT_DEFAULT is `none`, or a client's own. */
export const UNLIMITED = 'none';

const PERIOD_UNITS: Record<string, number> = {
  s: 1,
  sec: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hour: 3600,
  hours: 3600,
  d: 86_400,
  day: 86_400,
  days: 86_400,
};

/** The longest window: a day. Longer windows make a burst at the start of one lock a client out for long. */
export const MAX_PERIOD_SECONDS = 86_400;
export const MAX_REQUESTS = 1_000_000_000;

/** Counted windows (of requests, of failed logins) are deleted this long after they started: two longest windows. */
export const KEEP_WINDOWS_MS = 2 * MAX_PERIOD_SECONDS * 1000;
/** How often a process deletes the counted windows older than KEEP_WINDOWS_MS. */
export const CLEANUP_EVERY_MS = 10 * 60_000;

/**
 * `N/period` with the period's multiple optional. Not `\s*(\d*)\s*`: with the digits absent its two runs of
 * spaces could share the spaces in every way, and a value of 100,000 spaces took 20 s to refuse.
 */
export const RATE_LIMIT = /^(\d+)\s*\/\s*(?:(\d+)\s*)?([a-z]+)$/;

/**
 * Parses `N/period`: `600/minute`, `100/10s`, `5000/h`, `20/1.5m` is refused (whole seconds only). `none`
 * is no limit (undefined). The error says what was expected.
 */
export function parseRateLimit(
  text: string,
): { ok: true; value: RateLimit | undefined } | { ok: false; message: string } {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === UNLIMITED) return { ok: true, value: undefined };
  const match = RATE_LIMIT.exec(trimmed);
  const expected = `expected N/period such as 600/minute, 100/10s or 5000/hour, or '${UNLIMITED}'`;
  if (!match) return { ok: false, message: `${quoted(text)}: ${expected}` };
  const [, count, multiple = '', unit] = match as unknown as [string, string, string | undefined, string];
  const unitSeconds = PERIOD_UNITS[unit];
  if (unitSeconds === undefined) {
    return { ok: false, message: `${quoted(text)}: unknown period unit ${quoted(unit)} (s, m, h or d)` };
  }
  const requests = Number(count);
  const periodSeconds = (multiple === '' ? 1 : Number(multiple)) * unitSeconds;
  if (requests < 1 || requests > MAX_REQUESTS) {
    return { ok: false, message: `${quoted(text)}: the request count must be between 1 and ${MAX_REQUESTS}` };
  }
  if (periodSeconds < 1 || periodSeconds > MAX_PERIOD_SECONDS) {
    return { ok: false, message: `${quoted(text)}: the period must be between 1 second and 1 day` };
  }
  return { ok: true, value: { requests, periodSeconds } };
}

/** `600/60s`, or `none`: how a limit is shown (CLI, logs). */
export function formatRateLimit(limit: RateLimit | undefined): string {
  return limit ? `${limit.requests}/${limit.periodSeconds}s` : UNLIMITED;
}

/**
 * A client's limit from its stored columns: both null → the installation's default; 0 requests → none.
 */
export function clientRateLimit(
  stored: { rateLimitRequests: number | null; rateLimitPeriodSeconds: number | null },
  fallback: RateLimit | undefined,
): RateLimit | undefined {
  if (stored.rateLimitRequests === null || stored.rateLimitPeriodSeconds === null) return fallback;
  if (stored.rateLimitRequests === 0) return undefined;
  return { requests: stored.rateLimitRequests, periodSeconds: stored.rateLimitPeriodSeconds };
}

/** Start of the fixed window `nowMs` falls in, in ms since the epoch. */
export function windowStartMs(nowMs: number, periodSeconds: number): number {
  const periodMs = periodSeconds * 1000;
  return Math.floor(nowMs / periodMs) * periodMs;
}

/** What the response headers say for a client that has made `used` requests in the current window. */
export interface RateLimitHeaders {
  'RateLimit-Limit': string;
  'RateLimit-Remaining': string;
  'RateLimit-Reset': string;
}

/** Whole seconds until the window ends (at least 1: a 0 would invite a retry that is still refused). */
export function secondsToReset(nowMs: number, limit: RateLimit): number {
  const end = windowStartMs(nowMs, limit.periodSeconds) + limit.periodSeconds * 1000;
  return Math.max(1, Math.ceil((end - nowMs) / 1000));
}

/** The IETF draft's `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (delta seconds). */
export function rateLimitHeaders(limit: RateLimit, used: number, nowMs: number): RateLimitHeaders {
  return {
    'RateLimit-Limit': String(limit.requests),
    'RateLimit-Remaining': String(Math.max(0, limit.requests - used)),
    'RateLimit-Reset': String(secondsToReset(nowMs, limit)),
  };
}
