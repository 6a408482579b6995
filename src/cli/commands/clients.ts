import { InvalidArgumentError, type Command } from 'commander';
import {
  clientNameProblem,
  MAX_CLIENT_NAME_LENGTH,
  tokenLifetimeProblem,
} from '../../domain/api-client-limits';
import type { ApiClientRow } from '../../db/queries/api-clients';
import { clientRateLimit, formatRateLimit, parseRateLimit, type RateLimit } from '../../domain/rate-limits';
import { SCOPES } from '../../domain/scopes';
import type { AppContext } from '../../context';
import { describeError, wholeNumber, withContext } from '../run';

const apiClients = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../commands/api-clients') as typeof import('../../commands/api-clients');
const apiClientQueries = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../db/queries/api-clients') as typeof import('../../db/queries/api-clients');
const projects = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../db/queries/projects') as typeof import('../../db/queries/projects');

/** Project ids are Postgres integers: a larger number names no project (and is not sent to Postgres). */
const MAX_PROJECT_ID = 2_147_483_647;

export async function resolveProjectId(ctx: AppContext, project: string): Promise<number> {
  const queries = projects().projectQueries(ctx.pool);
  const found = /^\d+$/.test(project)
    ? Number(project) <= MAX_PROJECT_ID
      ? await queries.findById(Number(project))
      : undefined
    : await queries.findByHandle(project);
  if (!found) throw new Error(`project '${project}' does not exist`);
  return found.id;
}

/** `--expires-in`: whole seconds, at least one (`-5` or `1.5` is a usage error, not a client with a dead token). */
function parseLifetime(text: string): number {
  const seconds = wholeNumber(text);
  const problem = tokenLifetimeProblem(seconds);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return seconds;
}

/** `--name`: some text the token can carry (see clientNameProblem). */
function parseName(text: string): string {
  const problem = clientNameProblem(text);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return text;
}

/** `N/period`, `none`, or (set-rate-limit only) `default`, or a usage error naming the option. */
function rateLimitOption(text: string, allowDefault: boolean): RateLimit | 'none' | 'default' {
  if (allowDefault && text.trim().toLowerCase() === 'default') return 'default';
  const parsed = parseRateLimit(text);
  if (!parsed.ok) throw new Error(`rate limit ${parsed.message}`);
  return parsed.value ?? 'none';
}

/** What a client's limit is, said in full: its own, or the default it falls back to. */
function describeRateLimit(client: ApiClientRow, fallback: RateLimit | undefined): string {
  const own = client.rateLimitRequests !== null;
  return `${formatRateLimit(clientRateLimit(client, fallback))}${own ? '' : ' (RATE_LIMIT_DEFAULT)'}`;
}

export function clientCommands(program: Command): void {
  const clients = program.command('client').description('Manage API clients and their tokens');
  clients
    .command('create')
    .description(
      'Create an API client and print its token alone on stdout (details go to stderr); signs with JWT_SECRET',
    )
    .requiredOption('-p, --project <handle|id>', 'project the client belongs to')
    .requiredOption(
      '-n, --name <name>',
      `client name, at most ${MAX_CLIENT_NAME_LENGTH} characters (every token carries it)`,
      parseName,
    )
    .option(
      '-s, --scopes <scopes>',
      `comma (or space) separated; any of ${SCOPES.join(', ')}`,
      'public-api:read',
    )
    .option(
      '-e, --expires-in <seconds>',
      'token lifetime in whole seconds, at least 1 (default: no expiry)',
      parseLifetime,
    )
    .option(
      '--secret',
      'also give the client a secret for client-credential logins (planner-integration/oauth/token): prints ' +
        '<clientId>:<secret> alone on stdout instead of the token; the secret is shown this once',
    )
    .option(
      '-r, --rate-limit <N/period|none>',
      "the client's own rate limit, e.g. 600/minute, 100/10s, 5000/hour, or none (default: RATE_LIMIT_DEFAULT)",
    )
    .action(
      async (options: {
        project: string;
        name: string;
        scopes: string;
        expiresIn?: number;
        secret?: boolean;
        rateLimit?: string;
      }) => {
        const rateLimit =
          options.rateLimit === undefined ? undefined : rateLimitOption(options.rateLimit, false);
        await withContext(async (ctx) => {
          if (!ctx.config.auth.jwtSecretConfigured) {
            // Signed with a random key of this process, the token would verify nowhere.
            throw new Error("JWT_SECRET is not set: set it to the API processes' JWT_SECRET to sign tokens");
          }
          const projectId = await resolveProjectId(ctx, options.project);
          try {
            const { client, token, secret } = await apiClients().createApiClient(
              ctx.pool,
              ctx.config.auth.jwtSecret,
              {
                projectId,
                name: options.name,
                // Commas, or spaces as the token's scope claim lists them (no scope contains either).
                scopes: options.scopes.split(/[\s,]+/).filter(Boolean),
                ...(options.expiresIn === undefined ? {} : { expiresInSeconds: options.expiresIn }),
                withSecret: options.secret === true,
                ...(rateLimit === undefined || rateLimit === 'default' ? {} : { rateLimit }),
              },
              { issuer: ctx.config.auth.issuer, audience: ctx.config.auth.audience },
            );
            console.error(
              `client ${client.id} (${client.name}) scopes: ${client.scopes.join(' ')} rate limit: ` +
                describeRateLimit(client, ctx.config.rateLimits.defaultLimit),
            );
            if (secret === undefined) {
              console.log(token);
            } else {
              console.error('client id and secret (HTTP Basic credentials); the secret is not shown again:');
              console.log(`${client.id}:${secret}`);
            }
          } catch (error) {
            throw new Error(describeError(error));
          }
        });
      },
    );
  clients
    .command('list')
    .description(
      "Print a project's API clients as JSON (oldest first): id (to revoke or limit), name, scopes, whether it " +
        'has a secret, expiry, revocation and rate limit; never a token or a secret',
    )
    .requiredOption('-p, --project <handle|id>', 'project whose clients to show')
    .action(async (options: { project: string }) => {
      await withContext(async (ctx) => {
        const projectId = await resolveProjectId(ctx, options.project);
        const fallback = ctx.config.rateLimits.defaultLimit;
        const rows = await apiClientQueries().apiClientQueries(ctx.pool).listByProject(projectId);
        console.log(
          JSON.stringify(
            rows.map((client) => ({
              id: client.id,
              name: client.name,
              scopes: client.scopes,
              secret: client.hasSecret,
              createdAt: client.createdAt.toISOString(),
              expiresAt: client.expiresAt?.toISOString() ?? null,
              revokedAt: client.revokedAt?.toISOString() ?? null,
              rateLimit: describeRateLimit(client, fallback),
            })),
            null,
            2,
          ),
        );
      });
    });
  clients
    .command('revoke')
    .description('Revoke an API client: every token of it stops working at once')
    .argument('<clientId>', 'the client id (the jti of its tokens)')
    .action(async (clientId: string) => {
      await withContext(async (ctx) => {
        const client = await apiClients().revokeApiClient(ctx.pool, clientId);
        console.error(`revoked client ${client.id} (${client.name})`);
      });
    });
  clients
    .command('set-rate-limit')
    .description(
      "Set an API client's rate limit (every API process applies it from the next request): N/period " +
        '(600/minute, 100/10s, 5000/hour), none, or default (RATE_LIMIT_DEFAULT)',
    )
    .argument('<clientId>', 'the client id (the jti of its tokens)')
    .argument('<limit>', 'N/period, none or default')
    .action(async (clientId: string, limitText: string) => {
      const limit = rateLimitOption(limitText, true);
      await withContext(async (ctx) => {
        const client = await apiClients().setApiClientRateLimit(ctx.pool, clientId, limit);
        console.error(
          `client ${client.id} (${client.name}) rate limit: ` +
            describeRateLimit(client, ctx.config.rateLimits.defaultLimit),
        );
      });
    });
}
