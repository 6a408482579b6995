import { createSecretKey } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { expressjwt, UnauthorizedError, type GetVerificationKey } from 'express-jwt';
import jwt, { type Algorithm, type JwtPayload } from 'jsonwebtoken';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { tokenAlgorithm, verifyEdDsaToken } from '../../domain/eddsa-token';
import { AppError } from '../../domain/errors';
import { clientRateLimit, type RateLimit } from '../../domain/rate-limits';
import type { Scope } from '../../domain/scopes';
import type { ApiClientLookup } from '../../db/api-client-cache';
import { bearerToken } from '../bearer';
import { JwksKeys, KeySetUnavailableError } from './jwks-keys';

export interface AuthOptions {
  jwtSecret: string;
  jwksUrl?: string | undefined;
  issuer?: string | undefined;
  /** JWT_AUDIENCE: the `aud` every token must name (one of them when it lists several). */
  audience?: string | undefined;
  /** The limit of clients without one of their own (RATE_LIMIT_DEFAULT); undefined: none. */
  defaultRateLimit?: RateLimit | undefined;
}

const Claims = z.object({
  projectId: z.number().int().positive(),
  channelId: z.number().int().positive().optional(),
  scope: z.string(),
  name: z.string().optional(),
  type: z.literal('client'),
  jti: z.string().uuid(),
});

type ClaimsOf = z.infer<typeof Claims>;

/**
 * The claims of each verified payload, read once: a token the verified-token cache remembers comes back as
 * the same payload object on every request, and checking its claims with zod each time was ~1% of a small
 * search's CPU. null: the payload's claims are not ours.
 */
const readClaims = new WeakMap<JwtPayload, ClaimsOf | null>();

function claimsOf(payload: JwtPayload | undefined): ClaimsOf | null {
  // jsonwebtoken verifies a signed payload that is no JSON object too (text, 42, null): no claims, and no
  // WeakMap key (setting one threw, a 500).
  if (typeof payload !== 'object' || payload === null) return null;
  let claims = readClaims.get(payload);
  if (claims === undefined) {
    const parsed = Claims.safeParse(payload);
    claims = parsed.success ? parsed.data : null;
    readClaims.set(payload, claims);
  }
  return claims;
}

/**
 * 401 for a token that cannot be used (invalid, expired, revoked): RFC 6750 §3.1's `invalid_token` in the
 * challenge, with the body's reason as its description (the messages hold no quote or backslash).
 */
const unauthorized = (message: string) =>
  new AppError(
    401,
    { access_token: message },
    undefined,
    `Bearer error="invalid_token", error_description="${message}"`,
  );
/** 401 for no token at all: a bare `Bearer` challenge, no error code (RFC 6750 §3.1). */
const missingToken = () => new AppError(401, { access_token: 'The access token is missing.' });

/**
 * Verifies the bearer JWT (HS256 with the server secret; RS256/ES256/EdDSA from the JWKS when configured),
 * then checks that its `jti` names a known, unrevoked API client of the token's project. Sets `req.auth`.
 * Built once per process (src/context.ts): one verified-token cache and one JWKS client for every route.
 */
export function authenticate(clients: ApiClientLookup, options: AuthOptions): RequestHandler[] {
  // jwks-rsa waits 30 s by default: a stuck JWKS endpoint held every new key's request that long.
  const jwks = options.jwksUrl ? new JwksKeys(options.jwksUrl, JWKS_TIMEOUT_MS) : undefined;
  // A key object, not the string: given a string, jsonwebtoken first tries (and fails) to read it as a
  // public key on every request before treating it as a secret.
  const hsKey = createSecretKey(Buffer.from(options.jwtSecret));
  const secret: GetVerificationKey = (req, token) => {
    if (token?.header.alg === 'HS256') return hsKey;
    if (jwks) return jwksKey(jwks, token);
    return undefined;
  };
  // EdDSA (the JWKS's third kind) never reaches express-jwt: jsonwebtoken cannot verify it (verifyEdDsa).
  const algorithms: Algorithm[] = options.jwksUrl ? ['HS256', 'RS256', 'ES256'] : ['HS256'];
  const verify = expressjwt({
    secret,
    algorithms,
    requestProperty: 'jwt',
    // The token as bearerToken reads it: express-jwt's own reading wants exactly one space after the scheme.
    getToken: requestBearerToken,
    ...(options.issuer ? { issuer: options.issuer } : {}),
    ...(options.audience ? { audience: options.audience } : {}),
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
  });
  // `clients` is the process's cache; a revocation evicts it in every process at commit (api-client-cache.ts).
  const verified = new VerifiedTokens();

  /** An EdDSA token of the JWKS, which jsonwebtoken cannot verify (see verifyEdDsaToken). */
  const verifyEdDsa = async (token: string): Promise<JwtPayload> => {
    const decoded = jwt.decode(token, { complete: true });
    if (!jwks || !decoded) throw unauthorized('The access token is invalid.');
    const key = await jwksKey(jwks, decoded);
    if (key === undefined) throw unauthorized('The access token is invalid.');
    const outcome = verifyEdDsaToken(token, key, {
      issuer: options.issuer || undefined,
      audience: options.audience || undefined,
      nowSeconds: Math.floor(Date.now() / 1000),
      clockToleranceSeconds: CLOCK_TOLERANCE_SECONDS,
    });
    if (!outcome.ok) {
      throw unauthorized(
        outcome.reason === 'expired' ? 'The access token expired.' : 'The access token is invalid.',
      );
    }
    return outcome.payload;
  };

  const verifyToken: RequestHandler = (req, res, next) => {
    const token = requestBearerToken(req);
    // Credentials that are not a bearer token (Basic, a bare scheme) are an invalid token, not a missing one.
    if (token === undefined && req.headers.authorization) {
      next(unauthorized('The access token is invalid.'));
      return;
    }
    const known = token === undefined ? undefined : verified.get(token);
    if (known) {
      (req as Request & { jwt?: JwtPayload }).jwt = known;
      next();
      return;
    }
    if (jwks && token !== undefined && tokenAlgorithm(token) === 'EdDSA') {
      verifyEdDsa(token).then((payload) => {
        (req as Request & { jwt?: JwtPayload }).jwt = payload;
        verified.set(token, payload);
        next();
      }, next);
      return;
    }
    // express-jwt reports every outcome through the callback; its promise never rejects.
    void verify(req, res, (error?: unknown) => {
      const payload = (req as Request & { jwt?: JwtPayload }).jwt;
      if (!error && token !== undefined && payload) verified.set(token, payload);
      next(error ? translateJwtError(error) : undefined);
    });
  };

  const loadClient: RequestHandler = async (req: Request, _res: Response, next: NextFunction) => {
    const claims = claimsOf((req as Request & { jwt?: JwtPayload }).jwt);
    if (!claims) throw unauthorized('The access token is invalid.');
    const client = await clients.findById(claims.jti);
    if (!client || client.projectId !== claims.projectId) throw unauthorized('The access token is invalid.');
    if (client.revokedAt) throw unauthorized('The access token was revoked.');
    if (client.expiresAt && client.expiresAt.getTime() <= Date.now()) {
      throw unauthorized('The access token expired.');
    }
    req.auth = {
      projectId: claims.projectId,
      channelId: claims.channelId ?? client.channelId,
      clientId: client.id,
      clientName: client.name,
      // The client's current scopes bound what the token may do, so narrowing a client takes effect at once.
      scopes: new Set(claims.scope.split(' ').filter((scope) => client.scopes.includes(scope))),
      rateLimit: clientRateLimit(client, options.defaultRateLimit),
    };
    next();
  };

  return [verifyToken, loadClient];
}

/**
 * How far the clock of whoever signed a token may be from this server's: its `nbf` may be this far ahead and
 * its `exp` this far behind. An identity provider's clock a second ahead made every token it had just issued
 * (nbf = iat = its now) a 401 "invalid" until this server's clock caught up.
 */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** How long a fetch of the JWKS may take before the request answers 503 KeySetUnavailable. */
const JWKS_TIMEOUT_MS = 3_000;
const JWKS_RETRY_AFTER_SECONDS = 5;

/**
 * The JWKS key of the token: undefined (an invalid token) for a kid the JWKS does not serve, or one it may not
 * be fetched again for yet (JwksKeys: tokens naming made-up kids cannot flood the endpoint); an endpoint that
 * fails, hangs or serves no keys is the server's trouble, a 503 with Retry-After (it was a 500, or after 30 s
 * a 503 blaming the database).
 */
async function jwksKey(jwks: JwksKeys, token: Parameters<GetVerificationKey>[1]) {
  try {
    return await jwks.keyFor(token?.header.kid);
  } catch (error) {
    if (!(error instanceof KeySetUnavailableError)) throw error;
    throw AppError.unavailable(
      'KeySetUnavailable',
      'The keys that verify access tokens (JWKS_URL) cannot be fetched right now; try again in a few seconds',
      JWKS_RETRY_AFTER_SECONDS,
    );
  }
}

/** The request's bearer token as ../bearer.ts reads it (RFC 6750 §2.1, the scheme in any case). */
function requestBearerToken(req: Request): string | undefined {
  return bearerToken(req.headers.authorization);
}

/**
 * Tokens whose signature, algorithm, issuer and dates were checked recently, by their exact text, so a widget
 * sending the same token many times a second pays for one HMAC (or RSA) check a minute, not one per request.
 * Expiry is still checked on every use; revocation is checked per request after this (loadClient). Entries
 * live at most a minute so that a key dropped from the JWKS stops being honoured soon after.
 */
class VerifiedTokens {
  private static readonly TTL_MS = 60_000;
  private readonly entries = new LRUCache<string, JwtPayload>({ max: 10_000, ttl: VerifiedTokens.TTL_MS });

  get(token: string): JwtPayload | undefined {
    const payload = this.entries.get(token);
    if (payload && typeof payload.exp === 'number' && expiresAtMs(payload.exp) <= Date.now()) {
      this.entries.delete(token);
      return undefined;
    }
    return payload;
  }

  set(token: string, payload: JwtPayload): void {
    const left =
      typeof payload.exp === 'number' ? expiresAtMs(payload.exp) - Date.now() : VerifiedTokens.TTL_MS;
    // lru-cache reads a ttl of 0 as "forever": a token about to expire is simply not remembered.
    if (left < 1000) return;
    this.entries.set(token, payload, { ttl: Math.min(left, VerifiedTokens.TTL_MS) });
  }
}

/** When a token of this `exp` stops being accepted here: its `exp`, plus the tolerance for clock skew. */
function expiresAtMs(exp: number): number {
  return (exp + CLOCK_TOLERANCE_SECONDS) * 1000;
}

function translateJwtError(error: unknown): unknown {
  if (!(error instanceof UnauthorizedError)) return error;
  if (error.code === 'credentials_required') return missingToken();
  if ('name' in error.inner && error.inner.name === 'TokenExpiredError')
    return unauthorized('The access token expired.');
  return unauthorized('The access token is invalid.');
}

/**
 * 403 unless the token carries every one of `scopes`, with RFC 6750 §3.1's `insufficient_scope` challenge
 * naming the scopes the route needs (the header is a MUST of §3 for a token that does not enable access).
 */
export function requireScope(...scopes: Scope[]): RequestHandler {
  const message = 'The request requires higher privileges';
  const challenge = `Bearer error="insufficient_scope", error_description="${message}", scope="${scopes.join(' ')}"`;
  return (req, _res, next) => {
    if (!scopes.every((scope) => req.auth.scopes.has(scope))) {
      throw new AppError(403, { access_token: message }, undefined, challenge);
    }
    next();
  };
}
