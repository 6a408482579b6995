import type { Command } from 'commander';
import { createApiClient, revokeApiClient } from '../../commands/api-clients';
import { projectQueries } from '../../db/queries/projects';
import { SCOPES } from '../../domain/scopes';
import type { AppContext } from '../../context';
import { describeError, withContext } from '../run';

export async function resolveProjectId(ctx: AppContext, project: string): Promise<number> {
  const queries = projectQueries(ctx.pool);
  const found = /^\d+$/.test(project)
    ? await queries.findById(Number(project))
    : await queries.findByHandle(project);
  if (!found) throw new Error(`project '${project}' does not exist`);
  return found.id;
}

export function clientCommands(program: Command): void {
  const clients = program.command('client').description('Manage API clients and their tokens');
  clients
    .command('create')
    .description(
      'Create an API client and print its token alone on stdout (details go to stderr); signs with JWT_SECRET',
    )
    .requiredOption('-p, --project <handle|id>', 'project the client belongs to')
    .requiredOption('-n, --name <name>', 'client name')
    .option('-s, --scopes <scopes>', `comma separated; one of ${SCOPES.join(', ')}`, 'public-api:read')
    .option('-e, --expires-in <seconds>', 'token lifetime in seconds (default: no expiry)')
    .option(
      '--secret',
      'also give the client a secret for client-credential logins (planner-integration/oauth/token): prints ' +
        '<clientId>:<secret> alone on stdout instead of the token; the secret is shown this once',
    )
    .action(
      async (options: {
        project: string;
        name: string;
        scopes: string;
        expiresIn?: string;
        secret?: boolean;
      }) => {
        await withContext(async (ctx) => {
          if (!ctx.config.auth.jwtSecretConfigured) {
            // Signed with a random key of this process, the token would verify nowhere.
            throw new Error("JWT_SECRET is not set: set it to the API processes' JWT_SECRET to sign tokens");
          }
          const projectId = await resolveProjectId(ctx, options.project);
          try {
            const { client, token, secret } = await createApiClient(ctx.pool, ctx.config.auth.jwtSecret, {
              projectId,
              name: options.name,
              scopes: options.scopes
                .split(',')
                .map((scope) => scope.trim())
                .filter(Boolean),
              ...(options.expiresIn ? { expiresInSeconds: Number(options.expiresIn) } : {}),
              withSecret: options.secret === true,
            });
            console.error(`client ${client.id} (${client.name}) scopes: ${client.scopes.join(' ')}`);
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
    .command('revoke')
    .description('Revoke an API client: every token it signed stops working at once')
    .argument('<clientId>', 'the client id (the jti of its tokens)')
    .action(async (clientId: string) => {
      await withContext(async (ctx) => {
        const client = await revokeApiClient(ctx.pool, clientId);
        console.error(`revoked client ${client.id} (${client.name})`);
      });
    });
}
