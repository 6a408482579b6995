import { randomBytes, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Pool } from '../db/pool';
import { apiClientQueries } from '../db/queries/api-clients';
import { projectQueries } from '../db/queries/projects';
import { hashClientSecret, isApiClientId } from '../domain/client-secrets';
import { AppError } from '../domain/errors';
import type { RateLimit } from '../domain/rate-limits';
import { isScope } from '../domain/scopes';

export interface CreateApiClientInput {
  projectId: number;
  name: string;
  scopes: string[];
  /** Seconds until the token expires; absent = no expiry. */
  expiresInSeconds?: number;
  /** Also give the client a secret, for client-credential logins (POST planner-integration/oauth/token). */
  withSecret?: boolean;
  /** The client's own rate limit, or `none`; absent: the installation's default (RATE_LIMIT_DEFAULT). */
  rateLimit?: RateLimit | 'none';
}

/** The longest token lifetime a client may be given: 100 years, far inside what a date and `exp` can hold. */
export const MAX_TOKEN_LIFETIME_SECONDS = 100 * 365 * 24 * 3600;

/** Why a token lifetime cannot be signed, or undefined: a whole number of seconds, at least one. */
export function tokenLifetimeProblem(seconds: number): string | undefined {
  return Number.isSafeInteger(seconds) && seconds >= 1 && seconds <= MAX_TOKEN_LIFETIME_SECONDS
    ? undefined
    : `must be a whole number of seconds from 1 to ${MAX_TOKEN_LIFETIME_SECONDS}`;
}

/** The longest client name: it travels in every token (`name`), which must fit in a request's headers. */
export const MAX_CLIENT_NAME_LENGTH = 200;

/**
 * Why a client name cannot be used, or undefined: some text, at most MAX_CLIENT_NAME_LENGTH characters. A
 * 20,000-character name made a token of 27 kB, which every request then carried in a header larger than the
 * server reads (431): a client whose token could never be used.
 */
export function clientNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'must not be empty';
  if (name.length > MAX_CLIENT_NAME_LENGTH) return `must be at most ${MAX_CLIENT_NAME_LENGTH} characters`;
  return undefined;
}

/** A client's stored limit: null for the default, 0 requests for none (api_clients.rate_limit_*). */
function storedRateLimit(limit: RateLimit | 'none' | 'default' | undefined): RateLimit | null {
  if (limit === undefined || limit === 'default') return null;
  if (limit === 'none') return { requests: 0, periodSeconds: 1 };
  return limit;
}

/**
 * Creates an API client and signs its token (HS256, claims of supplement §2). The token names the client in
 * `jti`. With `withSecret`, the client also gets a random secret, returned here once: only its hash is kept.
 * `stamp` is JWT_ISSUER and JWT_AUDIENCE (config.auth): the API then requires them, so the token carries them.
 */
export async function createApiClient(
  pool: Pool,
  jwtSecret: string,
  input: CreateApiClientInput,
  stamp: TokenStamp = {},
) {
  const unknown = input.scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw AppError.badRequest(`Unknown scopes: ${unknown.join(', ')}`);
  if (input.scopes.length === 0) throw AppError.badRequest('At least one scope is required');
  const nameProblem = clientNameProblem(input.name);
  if (nameProblem !== undefined) throw AppError.validation({ name: nameProblem });
  // Checked before anything is written: a lifetime jsonwebtoken refuses to sign used to leave the client
  // stored without a token, and a negative or zero one made a client whose token was born expired.
  const lifetimeProblem =
    input.expiresInSeconds === undefined ? undefined : tokenLifetimeProblem(input.expiresInSeconds);
  if (lifetimeProblem !== undefined) throw AppError.validation({ expiresInSeconds: lifetimeProblem });
  const project = await projectQueries(pool).findById(input.projectId);
  if (!project) throw AppError.notFound(`Project ${input.projectId} does not exist`);
  const id = randomUUID();
  const expiresAt =
    input.expiresInSeconds === undefined ? null : new Date(Date.now() + input.expiresInSeconds * 1000);
  const secret = input.withSecret ? randomBytes(32).toString('base64url') : undefined;
  const client = await apiClientQueries(pool).insert({
    id,
    projectId: project.id,
    channelId: project.defaultChannelId,
    name: input.name,
    scopes: input.scopes,
    expiresAt,
    secretHash: secret === undefined ? null : hashClientSecret(secret),
    rateLimit: storedRateLimit(input.rateLimit),
  });
  const token = signClientToken(jwtSecret, {
    projectId: project.id,
    channelId: project.defaultChannelId,
    scopes: client.scopes,
    name: client.name,
    clientId: client.id,
    expiresInSeconds: input.expiresInSeconds,
    ...stamp,
  });
  return { client, token, ...(secret === undefined ? {} : { secret }) };
}

/**
 * What the API requires of every token when configured, so the tokens Broadsheet signs itself carry it:
 * JWT_ISSUER as `iss` and JWT_AUDIENCE as `aud` (config.auth has both).
 */
export interface TokenStamp {
  issuer?: string | undefined;
  audience?: string | undefined;
}

export function signClientToken(
  secret: string,
  claims: {
    projectId: number;
    channelId: number;
    scopes: string[];
    name: string;
    clientId: string;
    expiresInSeconds?: number | undefined;
  } & TokenStamp,
): string {
  return jwt.sign(
    {
      projectId: claims.projectId,
      channelId: claims.channelId,
      scope: claims.scopes.join(' '),
      name: claims.name,
      type: 'client',
    },
    secret,
    {
      algorithm: 'HS256',
      jwtid: claims.clientId,
      ...(claims.expiresInSeconds === undefined ? {} : { expiresIn: claims.expiresInSeconds }),
      ...(claims.issuer === undefined ? {} : { issuer: claims.issuer }),
      ...(claims.audience === undefined ? {} : { audience: claims.audience }),
    },
  );
}

export async function revokeApiClient(pool: Pool, clientId: string) {
  const client = isApiClientId(clientId) ? await apiClientQueries(pool).revoke(clientId) : undefined;
  if (!client) throw AppError.notFound(`API client ${clientId} does not exist`);
  // Other processes evict it when the trigger's notification arrives, milliseconds after the commit; this
  // process must not serve even one more request from its cached entry.
  pool.changes.emit('apiClient', clientId);
  return client;
}

/**
 * Sets a client's rate limit: its own `N/period`, `none`, or `default` (RATE_LIMIT_DEFAULT). Every API
 * process applies it from the client's next request (the cache is evicted at the commit, as for a revocation).
 */
export async function setApiClientRateLimit(
  pool: Pool,
  clientId: string,
  limit: RateLimit | 'none' | 'default',
) {
  const client = isApiClientId(clientId)
    ? await apiClientQueries(pool).setRateLimit(clientId, storedRateLimit(limit))
    : undefined;
  if (!client) throw AppError.notFound(`API client ${clientId} does not exist`);
  pool.changes.emit('apiClient', clientId);
  return client;
}
