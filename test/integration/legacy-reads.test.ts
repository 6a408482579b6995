import { startTestApp, type TestApp } from '../helpers/app';
import {
  ALL_SCOPES,
  createTestChannel,
  createTestProject,
  READ,
  TEST_DESIGN,
  tokenFor,
} from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';
import { channelAnswer } from '../../src/http/routes/channels/channels.schema';
import { legacyProjectAnswer } from '../../src/http/routes/project/project.schema';

/** GET project, GET channels/{channelHandle}, GET and POST channelConfig: v1 to 2025-05 only (api-spec §9). */
const LEGACY_VERSIONS = ['v1', 'beta', '2025-03', '2025-05'];
const LATER_VERSIONS = ['2025-07', '2025-09', '2025-11', '2026-01', '2026-03'];
const CONFIG_READ = ['public-api:config:read'];

describe('legacy project and channel reads', () => {
  let app: TestApp;
  let project: Awaited<ReturnType<typeof createTestProject>>;
  /** A token with every scope, on 2025-05 (the last version that has these routes). */
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, ALL_SCOPES)).token, '2025-05');
  });
  afterAll(() => app.close());

  it('when no token is sent, then 401; without the scope each route needs, then 403', async () => {
    const routes: [method: 'get' | 'post', path: string, needs: string][] = [
      ['get', 'project', 'public-api:config:read'],
      ['get', 'channels/web', 'public-api:read'],
      ['get', 'channelConfig', 'public-api:config:read'],
      ['post', 'channelConfig', 'public-api:config:write'],
    ];
    for (const [method, path, needs] of routes) {
      const anonymous = await apiClient(app.url, undefined, 'v1')[method](path, undefined);
      expect(anonymous.body).toEqual(
        envelope(401, 'Unauthorized', { access_token: 'The access token is missing.' }),
      );
      const without = ALL_SCOPES.filter((scope) => scope !== needs);
      const { token } = await tokenFor(app.ctx, project.projectId, without);
      const forbidden = await apiClient(app.url, token, 'v1')[method](
        path,
        method === 'post' ? {} : undefined,
      );
      expect({ path, status: forbidden.status }).toEqual({ path, status: 403 });
      expect(forbidden.body.error_details).toEqual({
        access_token: 'The request requires higher privileges',
      });
    }
  });

  it('when a public-api:read token reads, then the channel answers; the project and its config need config:read', async () => {
    const reader = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, READ)).token, '2025-05');
    expect((await reader.get('channels/web')).status).toBe(200);
    expect((await reader.get('project')).status).toBe(403);
    expect((await reader.get('channelConfig')).status).toBe(403);
  });

  it('when a query parameter is sent, then 400 naming it (none of them takes one)', async () => {
    for (const path of ['project?x=1', 'channels/web?x=1', 'channelConfig?x=1']) {
      const response = await api.get(path);
      expect(response.status).toBe(400);
      expect(response.body).toEqual(
        envelope(400, 'Bad Request', { name: 'ValidationError', x: 'is not allowed' }),
      );
    }
  });

  it('when asked from 2025-07 on, then the routes do not exist: the plain 404 {url}', async () => {
    for (const version of LATER_VERSIONS) {
      const versioned = api.withVersion(version);
      for (const [answer, path] of [
        [await versioned.get('project'), 'project'],
        [await versioned.get('channels/web'), 'channels/web'],
        [await versioned.get('channelConfig'), 'channelConfig'],
        [await versioned.post('channelConfig', { plan: true, channelConfig: {} }), 'channelConfig'],
      ] as const) {
        expect(answer.status).toBe(404);
        expect(answer.body).toEqual({
          status: 404,
          error: 'Not Found',
          error_details: { url: `/api/${version}/${path}` },
        });
      }
    }
  });

  it('when asked from 2025-07 on with a channel handle no route could take (a NUL, broken percent-encoding), then still the plain 404 {url}', async () => {
    // The handle was checked before the version: 400 "must not contain a NUL character" or "Malformed
    // percent-encoding", telling the client of a route this version does not have.
    for (const version of LATER_VERSIONS) {
      for (const handle of ['a%00b', '%00', '%E0%A4%A', '%FF']) {
        const answer = await api.withVersion(version).get(`channels/${handle}`);
        expect({ handle, status: answer.status, body: answer.body }).toEqual({
          handle,
          status: 404,
          body: {
            status: 404,
            error: 'Not Found',
            error_details: { url: `/api/${version}/channels/${handle}` },
          },
        });
      }
    }
    // Where the route exists, the handle is still checked.
    const nul = await api.get('channels/a%00b');
    expect(nul.status).toBe(400);
    expect(nul.body.error_details).toEqual({
      name: 'ValidationError',
      channelHandle: 'must not contain a NUL character (%00)',
    });
    expect((await api.get('channels/%E0%A4%A')).status).toBe(400);
  });

  it('when reading the project on v1 to 2025-05, then its handle, label, default channel and channels', async () => {
    const { rows } = await app.ctx.pool.query<{ id: number }>(
      'SELECT id FROM channels WHERE project_id = $1',
      [project.projectId],
    );
    const web = {
      channelId: rows[0]!.id,
      channelHandle: 'web',
      label: 'Web',
      designName: TEST_DESIGN.name,
      designVersion: TEST_DESIGN.version,
      contentTypeHandles: ['regular', 'page', 'author'],
    };
    for (const version of LEGACY_VERSIONS) {
      const response = await api.withVersion(version).get('project');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        projectId: project.projectId,
        name: project.handle,
        label: 'Test project',
        defaultChannelId: web.channelId,
        channels: [web],
      });
      const channel = await api.withVersion(version).get('channels/web');
      expect(channel.status).toBe(200);
      expect(channel.body).toEqual(web);
      // The answers' zod schemas, from which the OpenAPI description's are generated, hold the real answers.
      expect(legacyProjectAnswer.safeParse(response.body).error).toBeUndefined();
      expect(channelAnswer.safeParse(channel.body).error).toBeUndefined();
    }
    // A config-read token is enough for GET project.
    const configReader = apiClient(
      app.url,
      (await tokenFor(app.ctx, project.projectId, CONFIG_READ)).token,
      'v1',
    );
    expect((await configReader.get('project')).status).toBe(200);
  });

  it('when the project has another channel, then GET project lists it after the default and GET channels reads it', async () => {
    const { projectId, handle } = await createTestProject(app.ctx);
    const channelId = await createTestChannel(app.ctx, projectId, 'app', ['regular']);
    const own = apiClient(app.url, (await tokenFor(app.ctx, projectId)).token, 'beta');
    const app_ = {
      channelId,
      channelHandle: 'app',
      label: 'App',
      designName: null,
      designVersion: null,
      contentTypeHandles: ['regular'],
    };
    const read = await own.get('project');
    expect(read.body).toMatchObject({ projectId, name: handle });
    expect(read.body.channels.map((channel: { channelHandle: string }) => channel.channelHandle)).toEqual([
      'web',
      'app',
    ]);
    expect(read.body.channels[1]).toEqual(app_);
    expect((await own.get('channels/app')).body).toEqual(app_);
    // Another project's channel is as unknown as a channel that does not exist.
    const foreign = await api.get('channels/app');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(
      envelope(404, 'Not Found', { name: 'NotFound', message: "Channel 'app' not found" }),
    );
    expect((await api.get('channels/print')).body.error_details.message).toBe("Channel 'print' not found");
  });

  it("when another project's token reads the project, then it sees only its own project", async () => {
    const other = await createTestProject(app.ctx);
    const otherApi = apiClient(app.url, (await tokenFor(app.ctx, other.projectId)).token, '2025-03');
    const read = await otherApi.get('project');
    expect(read.body).toMatchObject({ projectId: other.projectId, name: other.handle });
    expect((await otherApi.get('channelConfig')).body.settings.handle).toBe(other.handle);
  });

  it('when the config is read and applied as channelConfig, then the answers are those of projectConfig', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const own = apiClient(app.url, (await tokenFor(app.ctx, projectId)).token, 'v1');
    const current = await own.get('channelConfig');
    expect(current.status).toBe(200);
    expect(current.body).toEqual((await own.get('projectConfig')).body);
    expect(current.body.$baseRevision).toBe(1);

    const changed = structuredClone(current.body);
    changed.categories.push({ id: 'culture', label: 'Culture', path: '/culture' });
    const planned = await own.post('channelConfig', { plan: true, channelConfig: changed });
    expect(planned.status).toBe(200);
    expect(planned.body).toEqual({
      ok: true,
      plan: true,
      revisionNumber: 1,
      patches: [
        {
          action: 'add',
          pointer: '/categories/3',
          value: { id: 'culture', label: 'Culture', path: '/culture' },
        },
      ],
    });
    expect((await own.post('projectConfig', { plan: true, projectConfig: changed })).body).toEqual(
      planned.body,
    );
    const applied = await own.post('channelConfig', { plan: false, projectConfig: changed });
    expect(applied.body).toEqual({ ...planned.body, plan: false, revisionNumber: 2 });
    expect((await own.get('categories')).body.map((c: { id: string }) => c.id)).toContain('culture');

    const stale = await own.post('channelConfig', { channelConfig: { ...changed, $baseRevision: 1 } });
    expect(stale.status).toBe(409);
    expect(stale.body.error_details).toMatchObject({ name: 'Conflict', baseRevision: 1, currentRevision: 2 });
    const invalid = await own.post('channelConfig', { channelConfig: { ...changed, bogus: true } });
    expect(invalid.status).toBe(200);
    expect(invalid.body).toEqual({
      ok: false,
      schemaErrors: [{ pointer: '/bogus', message: 'is not allowed' }],
    });
    const neither = await own.post('channelConfig', { plan: true });
    expect(neither.body.error_details).toEqual({
      name: 'ValidationError',
      channelConfig: 'is required (the config; projectConfig is accepted as well)',
    });
    const text = await own.post('channelConfig', 'plan=true', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
  });
});
