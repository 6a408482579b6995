import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildProjectConfig, createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

describe('projectConfig', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  async function setup() {
    const project = await createTestProject(app.ctx);
    const { token } = await tokenFor(app.ctx, project.projectId);
    const api = apiClient(app.url, token);
    const current = (await api.get('projectConfig')).body;
    return { project, api, current };
  }

  it('when no token, a bad token or a token without the config scopes is used, then 401 and 403', async () => {
    const project = await createTestProject(app.ctx);
    expect((await apiClient(app.url).get('projectConfig')).status).toBe(401);
    expect(
      (await apiClient(app.url, 'nonsense').post('projectConfig', { plan: true, projectConfig: {} })).status,
    ).toBe(401);
    const { token: readOnly } = await tokenFor(app.ctx, project.projectId, [
      'public-api:read',
      'public-api:config:read',
    ]);
    const forbidden = await apiClient(app.url, readOnly).post('projectConfig', {
      plan: true,
      projectConfig: {},
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error_details).toEqual({ access_token: 'The request requires higher privileges' });
    const { token: noConfig } = await tokenFor(app.ctx, project.projectId, ['public-api:read']);
    expect((await apiClient(app.url, noConfig).get('projectConfig')).status).toBe(403);
  });

  it('when the body is not {plan, projectConfig}, then 400 names the path', async () => {
    const { api } = await setup();
    const response = await api.post('projectConfig', { plan: 'yes', projectConfig: {}, extra: 1 });
    expect(response.status).toBe(400);
    expect(response.body.error_details).toMatchObject({ plan: 'must be a boolean', extra: 'is not allowed' });
  });

  it('when the config comes under channelConfig, the key existing clients send, then the same plan and apply answers', async () => {
    const { api, current } = await setup();
    const changed = structuredClone(current);
    changed.settings.label = 'Sent as channelConfig';
    const planned = await api.post('projectConfig', { plan: true, channelConfig: changed });
    expect(planned.status).toBe(200);
    expect(planned.body).toEqual({
      ok: true,
      plan: true,
      revisionNumber: 1,
      patches: [
        {
          action: 'update',
          pointer: '/settings/label',
          value: 'Sent as channelConfig',
          valueBefore: 'Test project',
        },
      ],
    });
    expect(planned.body).toEqual(
      (await api.post('projectConfig', { plan: true, projectConfig: changed })).body,
    );
    const applied = await api.post('projectConfig', { channelConfig: changed });
    expect(applied.status).toBe(200);
    expect(applied.body).toEqual({ ...planned.body, plan: false, revisionNumber: 2 });
    expect((await api.get('projectConfig')).body.settings.label).toBe('Sent as channelConfig');

    const broken = structuredClone(current);
    broken.contentTypes[0].handle = '1 bad';
    const refused = await api.post('projectConfig', { plan: true, channelConfig: broken });
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({
      ok: false,
      schemaErrors: [
        { pointer: '/contentTypes/0/handle', message: 'must start with a letter; letters, digits, - and _' },
      ],
    });
  });

  it('when both keys or neither are sent, or the config is not an object, then 400 naming the key', async () => {
    const { api, current } = await setup();
    const both = await api.post('projectConfig', {
      plan: true,
      channelConfig: current,
      projectConfig: current,
    });
    expect(both.status).toBe(400);
    expect(both.body.error_details).toEqual({
      name: 'ValidationError',
      projectConfig: 'cannot be sent together with channelConfig: both name the config, send one of them',
    });
    const neither = await api.post('projectConfig', { plan: true });
    expect(neither.status).toBe(400);
    expect(neither.body.error_details).toEqual({
      name: 'ValidationError',
      channelConfig: 'is required (the config; projectConfig is accepted as well)',
    });
    const notObject = await api.post('projectConfig', { channelConfig: [current] });
    expect(notObject.body.error_details).toEqual({
      name: 'ValidationError',
      channelConfig: 'must be an object',
    });
    expect((await api.get('projectConfig?revision=1')).body.error_details).toEqual({
      name: 'ValidationError',
      revision: 'is not allowed',
    });
    expect((await api.get('projectConfig')).body.$baseRevision).toBe(1);
  });

  it('when reading the config, then it is the stored config with $baseRevision 1', async () => {
    const { project, current } = await setup();
    expect(current.$baseRevision).toBe(1);
    expect(current.settings.handle).toBe(project.handle);
    expect(current.contentTypes.map((type: { handle: string }) => type.handle)).toEqual([
      'regular',
      'page',
      'author',
    ]);
    expect(current.brands).toEqual([
      { handle: 'ch', label: 'Switzerland', isDefault: true },
      { handle: 'de', label: 'Germany' },
    ]);
  });

  it('when the config is invalid, then 200 {ok: false, schemaErrors} with JSON pointers and nothing changes', async () => {
    // Supplement §8: the vendor's project-config CLI reads `ok` and `schemaErrors` from the body of a 200 and
    // lists them; a 400 envelope put them in error_details, where it never looks.
    const { api, current } = await setup();
    const broken = structuredClone(current);
    broken.contentTypes[0].handle = '1 bad';
    broken.contentTypes[1].unknownKey = true;
    for (const plan of [false, true]) {
      const response = await api.post('projectConfig', { plan, projectConfig: broken });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ok: false,
        schemaErrors: expect.arrayContaining([
          { pointer: '/contentTypes/0/handle', message: expect.stringContaining('must start with a letter') },
          { pointer: '/contentTypes/1/unknownKey', message: 'is not allowed' },
        ]),
      });
    }
    expect((await api.get('projectConfig')).body).toEqual(current);
  });

  it('when the config has an unknown key of 100,000 characters, then its schemaError points at it cut, not whole', async () => {
    // The pointer repeated the key whole: a 100 kB answer naming one mistake.
    const { api, current } = await setup();
    const broken = structuredClone(current);
    broken.contentTypes[1][`${'k'.repeat(100)}${'x'.repeat(99_900)}`] = true;
    const response = await api.post('projectConfig', { plan: true, projectConfig: broken });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ok: false,
      schemaErrors: [
        { pointer: `/contentTypes/1/${'k'.repeat(100)}… (100000 characters)`, message: 'is not allowed' },
      ],
    });
  });

  it('when a config indexes more metadata fields than a project may (config:write), then schemaErrors name the limit and nothing changes', async () => {
    // Each indexed handle is a meta_<type>.<handle> field of the index all projects share: with no bound, one
    // apply could fill its total_fields.limit and stop every project's new fields from being indexed.
    const { api, current } = await setup();
    const changed = structuredClone(current);
    changed.contentTypes[0].metadata.push(
      ...Array.from({ length: 5000 }, (_, n) => ({ handle: `flood${n}`, type: 'integer', index: true })),
    );
    const response = await api.post('projectConfig', { plan: false, projectConfig: changed });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ok: false,
      schemaErrors: [
        {
          pointer: expect.stringMatching(/^\/contentTypes\/0\/metadata\/\d+\/index$/),
          message: expect.stringContaining(
            'would be indexed metadata field number 101: a project indexes at most 100',
          ),
        },
      ],
    });
    expect(await api.get('projectConfig')).toMatchObject({ status: 200, body: current });
  });

  it("when a category id is longer than 256 characters, '.' or '..', then schemaErrors point at it and nothing changes", async () => {
    // A long id went into the categories table's key, whose index refused it: the apply was a 500. '..' was
    // listed by GET categories, but no client can send it as GET categories/{categoryId}.
    const { api, current } = await setup();
    const changed = structuredClone(current);
    const long = randomBytes(2400).toString('base64');
    changed.categories.push(
      { id: long, label: 'Long', path: '/long' },
      { id: '..', label: 'Up', path: '/up' },
    );
    const response = await api.post('projectConfig', { plan: false, projectConfig: changed });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ok: false,
      schemaErrors: [
        { pointer: '/categories/3/id', message: 'must be at most 256 characters long' },
        {
          pointer: '/categories/4/id',
          message: "cannot be '.' or '..': no URL can name it in GET categories/{categoryId}",
        },
      ],
    });
    expect(await api.get('projectConfig')).toMatchObject({ status: 200, body: current });
    changed.categories[3].id = long.slice(0, 256);
    changed.categories[4].id = '..up';
    expect(await api.post('projectConfig', { plan: false, projectConfig: changed })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    for (const id of [long.slice(0, 256), '..up']) {
      const category = await api.get(`categories/${encodeURIComponent(id)}`);
      expect(category).toMatchObject({ status: 200, body: { id } });
    }
  });

  it('when a category id is 256 emoji, then it is accepted and served: the limit counts characters; 257 are refused', async () => {
    // 256 emoji are 512 UTF-16 code units: the limit counted those, so an id of 129 emoji was refused.
    const { api, current } = await setup();
    const changed = structuredClone(current);
    const emoji = '\u{1F4F0}'.repeat(256);
    changed.categories.push({ id: `${emoji}\u{1F4F0}`, label: 'Emoji', path: '/emoji' });
    expect(await api.post('projectConfig', { plan: false, projectConfig: changed })).toMatchObject({
      status: 200,
      body: {
        ok: false,
        schemaErrors: [{ pointer: '/categories/3/id', message: 'must be at most 256 characters long' }],
      },
    });
    changed.categories[3].id = emoji;
    expect(await api.post('projectConfig', { plan: false, projectConfig: changed })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    const category = await api.get(`categories/${encodeURIComponent(emoji)}`);
    expect(category).toMatchObject({ status: 200, body: { id: emoji, label: 'Emoji' } });
  });

  it('when a label is longer than 200 characters or a language locale longer than 64, then schemaErrors point at it and nothing changes', async () => {
    // Neither had a limit: a 10 kB label was stored and answered by every config read.
    const { api, current } = await setup();
    const changed = structuredClone(current);
    changed.categories[0].label = 'L'.repeat(10_000);
    changed.settings.languages = {
      available: [{ locale: `de-${'x'.repeat(62)}`, label: 'Deutsch' }],
      defaultLanguage: `de-${'x'.repeat(62)}`,
    };
    const response = await api.post('projectConfig', { plan: false, projectConfig: changed });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ok: false,
      schemaErrors: expect.arrayContaining([
        { pointer: '/categories/0/label', message: 'must be at most 200 characters long' },
        {
          pointer: '/settings/languages/available/0/locale',
          message: 'must be at most 64 characters long',
        },
      ]),
    });
    expect(response.body.schemaErrors).toHaveLength(2);
    expect(await api.get('projectConfig')).toMatchObject({ status: 200, body: current });
    changed.categories[0].label = 'L'.repeat(200);
    changed.settings.languages = {
      available: [{ locale: `de-${'x'.repeat(61)}`, label: 'Deutsch' }],
      defaultLanguage: `de-${'x'.repeat(61)}`,
    };
    expect(await api.post('projectConfig', { plan: false, projectConfig: changed })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
  });

  it('when a change makes more than a hundred thousand patches, then they are planned and applied', async () => {
    // A category's metadata is free-form: 150,000 keys (1.8 MB) made the diff overflow the stack, a 500.
    const { api, current } = await setup();
    const changed = structuredClone(current);
    const metadata = Object.fromEntries(Array.from({ length: 150_000 }, (_, index) => [`k${index}`, index]));
    changed.categories[0].metadata = metadata;
    const planned = await api.post('projectConfig', { plan: true, projectConfig: changed });
    expect(planned.status).toBe(200);
    expect(planned.body.patches).toHaveLength(1);
    expect(planned.body.patches[0]).toEqual({
      action: 'add',
      pointer: '/categories/0/metadata',
      value: metadata,
    });
    expect(await api.post('projectConfig', { plan: false, projectConfig: changed })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    delete changed.categories[0].metadata;
    changed.categories[0].metadata = { k0: 0 };
    changed.$baseRevision = 2;
    const removed = await api.post('projectConfig', { plan: true, projectConfig: changed });
    expect(removed.status).toBe(200);
    expect(removed.body.patches).toHaveLength(149_999);
    expect(removed.body.patches[0]).toEqual({
      action: 'remove',
      pointer: '/categories/0/metadata/k1',
      valueBefore: 1,
    });
  });

  it('when planning a change, then the patches are shown and nothing is stored', async () => {
    const { api, current } = await setup();
    const changed = structuredClone(current);
    changed.settings.label = 'Renamed';
    changed.categories.push({ id: 'culture', label: 'Culture', path: '/culture' });
    changed.brands = changed.brands.slice(0, 1);
    const response = await api.post('projectConfig', { plan: true, projectConfig: changed });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ok: true,
      plan: true,
      revisionNumber: 1,
      patches: [
        { action: 'update', pointer: '/settings/label', value: 'Renamed', valueBefore: 'Test project' },
        {
          action: 'add',
          pointer: '/categories/3',
          value: { id: 'culture', label: 'Culture', path: '/culture' },
        },
        { action: 'remove', pointer: '/brands/1', valueBefore: { handle: 'de', label: 'Germany' } },
      ],
    });
    const after = (await api.get('projectConfig')).body;
    expect(after).toEqual(current);
  });

  it('when applying a change, then the revision grows, the config, its revision row, categories and channel mode are stored', async () => {
    const { project, api, current } = await setup();
    const changed = structuredClone(current);
    changed.settings.channelMode = 'static';
    changed.categories = [{ id: 'culture', label: 'Culture', path: '/culture' }];
    changed.enrichment = { enabled: true, url: 'https://enrich.example.com/hook' };
    const response = await api.post('projectConfig', { plan: false, projectConfig: changed });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ ok: true, plan: false, revisionNumber: 2 });
    expect(response.body.patches).toEqual(
      expect.arrayContaining([
        { action: 'update', pointer: '/settings/channelMode', value: 'static', valueBefore: 'configurable' },
        {
          action: 'add',
          pointer: '/enrichment',
          value: { enabled: true, url: 'https://enrich.example.com/hook' },
        },
      ]),
    );
    const after = (await api.get('projectConfig')).body;
    expect(after.$baseRevision).toBe(2);
    expect(after.enrichment).toEqual({ enabled: true, url: 'https://enrich.example.com/hook' });
    const rows = await app.ctx.pool.query(
      `SELECT p.channel_mode, (SELECT array_agg(id) FROM categories c WHERE c.project_id = p.id) AS categories,
         (SELECT array_agg(revision_number ORDER BY revision_number) FROM project_config_revisions r WHERE r.project_id = p.id) AS revisions
       FROM projects p WHERE p.id = $1`,
      [project.projectId],
    );
    expect(rows.rows[0]).toEqual({ channel_mode: 'static', categories: ['culture'], revisions: [1, 2] });
  });

  it('when $baseRevision is not the current revision, then 409 and nothing changes', async () => {
    const { api, current } = await setup();
    const first = { ...structuredClone(current), settings: { ...current.settings, label: 'First' } };
    expect((await api.post('projectConfig', { plan: false, projectConfig: first })).body.revisionNumber).toBe(
      2,
    );
    const stale = {
      ...structuredClone(current),
      settings: { ...current.settings, label: 'Second' },
      $baseRevision: 1,
    };
    const response = await api.post('projectConfig', { plan: false, projectConfig: stale });
    expect(response.status).toBe(409);
    expect(response.body.error_details).toMatchObject({
      name: 'Conflict',
      baseRevision: 1,
      currentRevision: 2,
    });
    expect((await api.get('projectConfig')).body.settings.label).toBe('First');
  });

  it('when several applies of the same $baseRevision race, then exactly one wins and the others are 409', async () => {
    const { project, api, current } = await setup();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        api.post('projectConfig', {
          plan: false,
          projectConfig: { ...current, settings: { ...current.settings, label: `Racer ${index}` } },
        }),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = responses.findIndex((response) => response.status === 200);
    const after = (await api.get('projectConfig')).body;
    expect(after).toMatchObject({ $baseRevision: 2, settings: { label: `Racer ${winner}` } });
    const revisions = await app.ctx.pool.query(
      'SELECT revision_number FROM project_config_revisions WHERE project_id = $1 ORDER BY 1',
      [project.projectId],
    );
    expect(revisions.rows.map((row) => row.revision_number)).toEqual([1, 2]);
  });

  it('when the config names a design the project does not have, then schemaErrors point at /design', async () => {
    const { api, current } = await setup();
    const response = await api.post('projectConfig', {
      plan: true,
      projectConfig: { ...current, design: { name: 'nope', version: '9.9.9' } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ok: false,
      schemaErrors: [{ pointer: '/design', message: 'unknown design nope@9.9.9 in this project' }],
    });
  });

  it('when another project applies a config, then this project is untouched', async () => {
    const { api } = await setup();
    const other = await createTestProject(app.ctx);
    const { token } = await tokenFor(app.ctx, other.projectId);
    const config = buildProjectConfig();
    config.settings.handle = other.handle;
    const response = await apiClient(app.url, token).post('projectConfig', {
      plan: false,
      projectConfig: config,
    });
    expect(response).toMatchObject({ status: 200, body: { ok: true } });
    expect((await api.get('projectConfig')).body.$baseRevision).toBe(1);
  });
});
