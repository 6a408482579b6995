import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createApiClient } from '../../src/commands/api-clients';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';

/**
 * JWT_ISSUER (README, Configuration: "required `iss` when set"): the API refuses a token without that issuer,
 * so the tokens Broadsheet signs itself (the CLI's `client create`, the planner integration's logins) carry it.
 */
const ISSUER = 'https://cms.example/broadsheet';
const PLANNER_ON = { planner: { integration: { enabled: true } } };
const run = promisify(execFile);

let app: TestApp;
let project: { projectId: number; handle: string };

beforeAll(async () => {
  app = await startTestApp({ env: { JWT_ISSUER: ISSUER } });
  project = await createTestProject(app.ctx, { config: PLANNER_ON });
});
afterAll(() => app.close());

const payload = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iss?: string };

describe('JWT_ISSUER', () => {
  it('when a token lacks the issuer, then it is refused', async () => {
    const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:config:read']);
    const response = await apiClient(app.url, token).get('projectConfig');
    expect(response.status).toBe(401);
  });

  it('when an operator creates a client with the CLI under JWT_ISSUER, then its token carries the issuer and is accepted', async () => {
    const { stdout } = await run(
      NODE,
      [
        CLI_SCRIPT,
        'client',
        'create',
        '--project',
        project.handle,
        '--name',
        'issuer',
        '--scopes',
        'public-api:config:read',
      ],
      { env: { ...process.env, JWT_ISSUER: ISSUER, LOG_LEVEL: 'silent' }, timeout: 60_000 },
    );
    const token = stdout.trim();
    expect(payload(token).iss).toBe(ISSUER);
    expect((await apiClient(app.url, token).get('projectConfig')).status).toBe(200);
  });

  it('when a planning tool logs in under JWT_ISSUER, then the token the API issues is accepted by the API', async () => {
    const { client, secret } = await createApiClient(
      app.ctx.pool,
      app.ctx.config.auth.jwtSecret,
      { projectId: project.projectId, name: 'planning tool', scopes: ['planner'], withSecret: true },
      { issuer: app.ctx.config.auth.issuer },
    );
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
    expect(payload(token).iss).toBe(ISSUER);
    const statuses = await apiClient(app.url, token).post('planner-integration/statuses', {
      documentIds: [1],
    });
    expect(statuses.status).toBe(200);
  });
});
