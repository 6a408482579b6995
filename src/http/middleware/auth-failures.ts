import type { Request } from 'express';
import type { AuthFailureLimiter, FailureScope } from '../../db/auth-failure-limiter';
import { AppError } from '../../domain/errors';
import type { Metrics } from '../../metrics/metrics';

/**
 * Runs a secret check (`check`, which throws a 401 when the secret is wrong) under the failure limits of the
 * request's client address (`req.ip`, as TRUST_PROXY says to read it) and of the API client it names: past
 * them, a 429 with `Retry-After` before the secret is looked at. A 401 counts as a failure; anything else
 * (the token, or another refusal once the secret was right) does not.
 */
export type SecretCheckGuard = <T>(
  req: Request,
  clientId: string | undefined,
  check: () => Promise<T>,
) => Promise<T>;

const WHAT: Record<FailureScope, string> = { address: 'from this address', client: 'for this client' };

export function guardSecretChecks(limiter: AuthFailureLimiter, metrics: Metrics): SecretCheckGuard {
  return async (req, clientId, check) => {
    const attempt = await limiter.attempt(req.ip, clientId);
    if (!attempt.allowed) {
      metrics.rateLimited.inc();
      const limits = attempt.refusedBy
        .map(({ scope, limit }) => `${limit.requests} per ${limit.periodSeconds} s ${WHAT[scope]}`)
        .join(' and ');
      throw new AppError(
        429,
        {
          name: 'TooManyRequests',
          message:
            `Too many failed attempts with client credentials (at most ${limits}); ` +
            `retry in ${attempt.retryAfterSeconds} s`,
        },
        attempt.retryAfterSeconds,
      );
    }
    let failed = false;
    try {
      return await check();
    } catch (error) {
      failed = error instanceof AppError && error.status === 401;
      throw error;
    } finally {
      await attempt.settle(failed);
    }
  };
}
