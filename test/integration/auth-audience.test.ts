import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createApiClient, signClientToken } from '../../src/commands/api-clients';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';

/**
 * JWT_AUDIENCE (README, Configuration: "required `aud` when set"): an identity provider that signs tokens for
 * several APIs with the keys of one JWKS makes tokens that verify here for another audience too; with
 * JWT_AUDIENCE set the API refuses every token not meant for it, and the tokens Broadsheet signs itself (the
 * CLI's `client create`, the planner integration's logins) carry it.
 */
const AUDIENCE = 'https://cms.example/broadsheet';
const PLANNER_ON = { planner: { integration: { enabled: true } } };
const run = promisify(execFile);

let app: TestApp;
let project: { projectId: number; channelId: number; handle: string };

beforeAll(async () => {
  app = await startTestApp({ env: { JWT_AUDIENCE: AUDIENCE } });
  project = await createTestProject(app.ctx, { config: PLANNER_ON });
});
afterAll(() => app.close());

const payload = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { aud?: string };

/** A token of a real client of the project, signed with the server's key, for `audience`. */
async function tokenOf(audience: string | undefined) {
  const { clientId } = await tokenFor(app.ctx, project.projectId, ['public-api:config:read']);
  return signClientToken(app.ctx.config.auth.jwtSecret, {
    projectId: project.projectId,
    channelId: project.channelId,
    scopes: ['public-api:config:read'],
    name: 'audience',
    clientId,
    audience,
  });
}

describe('JWT_AUDIENCE', () => {
  it('when a token is for another audience or names none, then 401 invalid; for this one, then accepted', async () => {
    const outcomes = [];
    for (const audience of ['https://billing.example', undefined, AUDIENCE]) {
      const response = await apiClient(app.url, await tokenOf(audience)).get('projectConfig');
      outcomes.push({ audience, status: response.status, details: response.body.error_details });
    }
    const invalid = { access_token: 'The access token is invalid.' };
    expect(outcomes).toEqual([
      { audience: 'https://billing.example', status: 401, details: invalid },
      { audience: undefined, status: 401, details: invalid },
      { audience: AUDIENCE, status: 200, details: undefined },
    ]);
  });

  it('when an operator creates a client with the CLI under JWT_AUDIENCE, then its token carries the audience and is accepted', async () => {
    const { stdout } = await run(
      NODE,
      [
        CLI_SCRIPT,
        'client',
        'create',
        '--project',
        project.handle,
        '--name',
        'audience',
        '--scopes',
        'public-api:config:read',
      ],
      { env: { ...process.env, JWT_AUDIENCE: AUDIENCE, LOG_LEVEL: 'silent' }, timeout: 60_000 },
    );
    const token = stdout.trim();
    expect(payload(token).aud).toBe(AUDIENCE);
    expect((await apiClient(app.url, token).get('projectConfig')).status).toBe(200);
  });

  it('when a planning tool logs in under JWT_AUDIENCE, then the token the API issues is accepted by the API', async () => {
    const { client, secret } = await createApiClient(app.ctx.pool, app.ctx.config.auth.jwtSecret, {
      projectId: project.projectId,
      name: 'planning tool',
      scopes: ['planner'],
      withSecret: true,
    });
    const login = await fetch(`${app.url}/api/2026-03/planner-integration/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.id}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(login.status).toBe(200);
    const { access_token: token } = (await login.json()) as { access_token: string };
    expect(payload(token).aud).toBe(AUDIENCE);
    const statuses = await apiClient(app.url, token).post('planner-integration/statuses', {
      documentIds: [1],
    });
    expect(statuses.status).toBe(200);
  });
});
