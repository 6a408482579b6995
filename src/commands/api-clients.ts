import { randomBytes, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Pool } from '../db/pool';
import { apiClientQueries } from '../db/queries/api-clients';
import { projectQueries } from '../db/queries/projects';
import { hashClientSecret, isApiClientId } from '../domain/client-secrets';
import { AppError } from '../domain/errors';
import { clientNameProblem, tokenLifetimeProblem } from '../domain/api-client-limits';
import type { RateLimit } from '../domain/rate-limits';
import { isScope } from '../domain/scopes';
import { shownInput } from '../domain/shown-input';

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

export {
  clientNameProblem,
  MAX_CLIENT_NAME_LENGTH,
  MAX_TOKEN_LIFETIME_SECONDS,
  tokenLifetimeProblem,
} from '../domain/api-client-limits';

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
  if (unknown.length > 0) {
    throw AppError.badRequest(`Unknown scopes: ${unknown.map((scope) => shownInput(scope)).join(', ')}`);
  }
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
