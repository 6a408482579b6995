import type { RequestHandler } from 'express';
import { AppError } from '../../domain/errors';
import { rateLimitHeaders, secondsToReset } from '../../domain/rate-limits';
import type { RateLimitCounter } from '../../db/rate-limit-counter';
import type { Metrics } from '../../metrics/metrics';

/**
 * After authentication: counts the request against its API client's limit (`req.auth.rateLimit`), answers
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (IETF draft, delta seconds), and refuses
 * with the spec's envelope, 429 and `Retry-After` once the client used up its window. A client without a
 * limit gets no headers.
 */
export function rateLimit(counter: RateLimitCounter, metrics: Metrics): RequestHandler {
  return async (req, res, next) => {
    const limit = req.auth.rateLimit;
    if (!limit) {
      next();
      return;
    }
    const { allowed, used } = await counter.take(req.auth.clientId, limit);
    const now = Date.now();
    res.set(rateLimitHeaders(limit, used, now));
    if (!allowed) {
      metrics.rateLimited.inc();
      const retryAfter = secondsToReset(now, limit);
      throw new AppError(
        429,
        {
          name: 'TooManyRequests',
          message:
            `The API client '${req.auth.clientName}' made its ${limit.requests} requests of this ` +
            `${limit.periodSeconds} s window; retry in ${retryAfter} s`,
        },
        retryAfter,
      );
    }
    next();
  };
}
