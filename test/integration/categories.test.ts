import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildProjectConfig, createTestProject, READ, tokenFor } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';
import { categoryAnswer, categoryItem } from '../../src/http/routes/categories/categories.schema';

const CATEGORIES = [
  {
    id: 'news',
    label: 'News',
    path: '/news',
    metadata: { color: 'blue', icon: 'paper', footer: 'News desk' },
  },
  { id: 'politics', label: 'Politics', path: '/news/politics', parentId: 'news', metadata: { color: 'red' } },
  { id: 'local', label: 'Local politics', path: '/news/politics/local', parentId: 'politics', metadata: {} },
  { id: 'sport', label: 'Sport', path: '/sport' },
];

describe('categories', () => {
  let app: TestApp;
  let projectId: number;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    app = await startTestApp();
    ({ projectId } = await createTestProject(app.ctx, { config: { categories: CATEGORIES } }));
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token);
  });
  afterAll(() => app.close());

  it('when no token is sent, then 401; without public-api:read, then 403', async () => {
    for (const path of ['categories', 'categories/news']) {
      expect((await apiClient(app.url).get(path)).body).toEqual(
        envelope(401, 'Unauthorized', { access_token: 'The access token is missing.' }),
      );
      const { token } = await tokenFor(app.ctx, projectId, ['public-api:write', 'public-api:config:read']);
      const forbidden = await apiClient(app.url, token).get(path);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error_details).toEqual({
        access_token: 'The request requires higher privileges',
      });
    }
  });

  it('when a parameter is invalid or unknown, then 400 naming it', async () => {
    const single = await api.get('categories/news?inheritMetadata=yes&nope=1');
    expect(single.status).toBe(400);
    expect(single.body).toEqual(
      envelope(400, 'Bad Request', {
        name: 'ValidationError',
        inheritMetadata: "must be 'true' or 'false' ('1' or '0'; the name alone means true)",
        nope: 'is not allowed',
      }),
    );
    const list = await api.get('categories?parent=news');
    expect(list.status).toBe(400);
    expect(list.body.error_details).toEqual({ name: 'ValidationError', parent: 'is not allowed' });
  });

  it('when listing up to 2025-11, then a bare array in config order, with parent where there is one', async () => {
    const expected = [
      { id: 'news', label: 'News', path: '/news' },
      { id: 'politics', label: 'Politics', path: '/news/politics', parent: 'news' },
      { id: 'local', label: 'Local politics', path: '/news/politics/local', parent: 'politics' },
      { id: 'sport', label: 'Sport', path: '/sport' },
    ];
    for (const version of ['v1', 'beta', '2025-03', '2025-11']) {
      const response = await api.withVersion(version).get('categories');
      expect(response.status).toBe(200);
      expect(response.body).toEqual(expected);
      // The answer's zod schema, from which the OpenAPI description's is generated, holds the real answer.
      expect(categoryItem.array().safeParse(response.body).error).toBeUndefined();
    }
    for (const version of ['2026-01', '2026-03']) {
      expect((await api.withVersion(version).get('categories')).body).toEqual({ results: expected });
    }
  });

  it('when a category has 20 parents, then inheritMetadata reaches the 20th; with 21, then the documented 500', async () => {
    const own = await createTestProject(app.ctx, { config: { categories: [] } });
    // c0 ← c1 ← … ← c21: c20 has 20 parents, c21 has 21. An apply refuses the longer chain, so it is what an
    // apply before that rule left behind; only the root carries metadata, so each answer shows how far the
    // walk went.
    await app.ctx.pool.query(
      `INSERT INTO categories (project_id, id, label, path, parent_id, metadata, position)
       SELECT $1, 'c' || n, 'C' || n, '/c' || n, CASE WHEN n = 0 THEN NULL ELSE 'c' || (n - 1) END,
         CASE WHEN n = 0 THEN '{"root": "c0"}'::jsonb ELSE jsonb_build_object('own', 'c' || n) END, n
       FROM generate_series(0, 21) AS n`,
      [own.projectId],
    );
    const ownApi = apiClient(app.url, (await tokenFor(app.ctx, own.projectId, READ)).token);
    const twenty = await ownApi.get('categories/c20?inheritMetadata=true');
    expect(twenty.status).toBe(200);
    expect(twenty.body).toEqual({
      id: 'c20',
      label: 'C20',
      path: '/c20',
      metadata: { own: 'c20', root: 'c0' },
    });
    expect((await ownApi.get('categories/c21?inheritMetadata=true')).body).toEqual(
      envelope(500, 'Internal Server Error', {
        name: 'ConfigurationError',
        message: "Category 'c21' has more than 20 parents; metadata inheritance goes at most 20 levels deep",
      }),
    );
    // Without inheritance no parent is walked: its own metadata, whatever the depth.
    expect((await ownApi.get('categories/c21')).body.metadata).toEqual({ own: 'c21' });
  });

  it('when reading one category, then its own metadata; inheritMetadata=true fills in every parent, nearest first, never overwriting', async () => {
    expect((await api.get('categories/local')).body).toEqual({
      id: 'local',
      label: 'Local politics',
      path: '/news/politics/local',
      metadata: {},
    });
    expect((await api.get('categories/local?inheritMetadata=false')).body.metadata).toEqual({});
    const inherited = await api.get('categories/local?inheritMetadata=true');
    expect(inherited.status).toBe(200);
    expect(inherited.body).toEqual({
      id: 'local',
      label: 'Local politics',
      path: '/news/politics/local',
      metadata: { color: 'red', icon: 'paper', footer: 'News desk' },
    });
    expect(categoryAnswer.safeParse(inherited.body).error).toBeUndefined();
    expect((await api.get('categories/politics?inheritMetadata=true')).body.metadata).toEqual({
      color: 'red',
      icon: 'paper',
      footer: 'News desk',
    });
    expect((await api.get('categories/sport?inheritMetadata=true')).body.metadata).toEqual({});
  });

  it('when the category is unknown, then 404 naming it', async () => {
    const response = await api.get('categories/weather');
    expect(response.status).toBe(404);
    expect(response.body).toEqual(
      envelope(404, 'Not Found', { name: 'NotFound', message: "Category 'weather' not found" }),
    );
    expect((await api.get(`categories/${encodeURIComponent('constructor')}`)).status).toBe(404);
    // A 10 kB id was repeated whole in the message: its first 100 characters and its length.
    const long = await api.get(`categories/${'w'.repeat(10_000)}`);
    expect(long.body).toEqual(
      envelope(404, 'Not Found', {
        name: 'NotFound',
        message: `Category '${'w'.repeat(100)}…' (10000 characters) not found`,
      }),
    );
  });

  it("when another project's token asks for a category only this project has, then 404", async () => {
    const other = await createTestProject(app.ctx, { config: { categories: [] } });
    const otherApi = apiClient(app.url, (await tokenFor(app.ctx, other.projectId, READ)).token);
    expect((await otherApi.get('categories/politics')).status).toBe(404);
    expect((await otherApi.get('categories')).body).toEqual({ results: [] });
  });

  it('when the project uses a static channel configuration, then 400 explaining that a configurable channel is required', async () => {
    const { projectId: staticId, handle } = await createTestProject(app.ctx, {
      config: {
        categories: CATEGORIES,
        settings: { ...buildProjectConfig().settings, channelMode: 'static' },
      },
    });
    const staticApi = apiClient(app.url, (await tokenFor(app.ctx, staticId, READ)).token);
    for (const path of ['categories', 'categories/news?inheritMetadata=true']) {
      const response = await staticApi.get(path);
      expect(response.status).toBe(400);
      expect(response.body).toEqual(
        envelope(400, 'Bad Request', {
          name: 'ConfigurationError',
          message:
            `Project ${handle} uses a static channel configuration; categories need a configurable channel ` +
            "(settings.channelMode 'configurable' in the project config)",
        }),
      );
    }
  });

  it('when a config whose categories form a cycle or a chain deeper than 20 is applied, then schemaErrors and nothing changes', async () => {
    const own = await createTestProject(app.ctx, { config: { categories: CATEGORIES } });
    const configApi = apiClient(app.url, (await tokenFor(app.ctx, own.projectId)).token);
    const current = (await configApi.get('projectConfig')).body;
    const cyclic = structuredClone(current);
    cyclic.categories[0].parentId = 'local';
    const response = await configApi.post('projectConfig', { plan: false, projectConfig: cyclic });
    expect(response.status).toBe(200);
    expect(response.body.ok).toBe(false);
    expect(response.body.schemaErrors).toEqual([
      { pointer: '/categories/0/parentId', message: "makes a cycle: 'news' → 'local' → 'politics' → 'news'" },
      {
        pointer: '/categories/1/parentId',
        message: "makes a cycle: 'politics' → 'news' → 'local' → 'politics'",
      },
      {
        pointer: '/categories/2/parentId',
        message: "makes a cycle: 'local' → 'politics' → 'news' → 'local'",
      },
    ]);

    const deep = structuredClone(current);
    deep.categories = Array.from({ length: 22 }, (_, index) => ({
      id: `level-${index}`,
      label: `Level ${index}`,
      path: `/level-${index}`,
      ...(index > 0 ? { parentId: `level-${index - 1}` } : {}),
    }));
    const tooDeep = await configApi.post('projectConfig', { plan: true, projectConfig: deep });
    expect(tooDeep.status).toBe(200);
    expect(tooDeep.body).toEqual({
      ok: false,
      schemaErrors: [
        {
          pointer: '/categories/21/parentId',
          message: "gives 'level-21' more than 20 parents; metadata inheritance goes at most 20 levels deep",
        },
      ],
    });
    expect((await configApi.get('projectConfig')).body).toEqual(current);
    expect((await configApi.get('categories')).body.results.map((c: { id: string }) => c.id)).toEqual(
      CATEGORIES.map((c) => c.id),
    );
    // Twenty parents are still fine, and inheritance reaches the root.
    deep.categories.pop();
    deep.categories[0].metadata = { root: true };
    const applied = await configApi.post('projectConfig', { plan: false, projectConfig: deep });
    expect(applied).toMatchObject({ status: 200, body: { ok: true } });
    expect((await configApi.get('categories/level-20?inheritMetadata=true')).body.metadata).toEqual({
      root: true,
    });
  });

  it('when a config gives a category an empty parentId, then schemaErrors at it and nothing changes', async () => {
    // It was applied, and GET categories listed the category with `parent: ''`, an id no category has.
    const own = await createTestProject(app.ctx, { config: { categories: CATEGORIES } });
    const configApi = apiClient(app.url, (await tokenFor(app.ctx, own.projectId)).token);
    const current = (await configApi.get('projectConfig')).body;
    const orphan = structuredClone(current);
    orphan.categories.push({ id: 'weather', label: 'Weather', path: '/weather', parentId: '' });
    for (const plan of [true, false]) {
      const response = await configApi.post('projectConfig', { plan, projectConfig: orphan });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ok: false,
        schemaErrors: [
          {
            pointer: `/categories/${CATEGORIES.length}/parentId`,
            message: "unknown category '': a category without a parent has no parentId",
          },
        ],
      });
    }
    expect((await configApi.get('projectConfig')).body).toEqual(current);
    expect((await configApi.get('categories')).body.results.map((c: { id: string }) => c.id)).toEqual(
      CATEGORIES.map((c) => c.id),
    );
  });

  it('when categories stored before cycles were refused go round one, then inheritMetadata is the documented 500 naming the cycle; without it, 200', async () => {
    const own = await createTestProject(app.ctx, { config: { categories: [] } });
    // What an apply before the rule left behind (an apply now refuses it, see above).
    await app.ctx.pool.query(
      `INSERT INTO categories (project_id, id, label, path, parent_id, metadata)
       VALUES ($1, 'a', 'A', '/a', 'b', '{"own": "a"}'), ($1, 'b', 'B', '/b', 'a', '{}'), ($1, 'leaf', 'Leaf', '/leaf', 'a', '{}')`,
      [own.projectId],
    );
    const ownApi = apiClient(app.url, (await tokenFor(app.ctx, own.projectId, READ)).token);
    const cycle = await ownApi.get('categories/a?inheritMetadata=true');
    expect(cycle.body).toEqual(
      envelope(500, 'Internal Server Error', {
        name: 'ConfigurationError',
        message:
          "Category 'a' has parents that form a cycle: 'a' → 'b' → 'a'; metadata inheritance goes at most 20 levels deep",
      }),
    );
    expect((await ownApi.get('categories/leaf?inheritMetadata=true')).body.error_details.message).toBe(
      "Category 'leaf' has parents that form a cycle: 'leaf' → 'a' → 'b' → 'a'; metadata inheritance goes at most 20 levels deep",
    );
    expect((await ownApi.get('categories/a')).body).toEqual({
      id: 'a',
      label: 'A',
      path: '/a',
      metadata: { own: 'a' },
    });
  });

  it('when a config of 80,000 categories is applied, then it is stored in one statement, in order, with parents and metadata', async () => {
    // One INSERT per category took 36 s for 100,000 (the project locked throughout, past many clients' timeout).
    const own = await createTestProject(app.ctx, { config: { categories: CATEGORIES } });
    const configApi = apiClient(app.url, (await tokenFor(app.ctx, own.projectId)).token);
    const config = (await configApi.get('projectConfig')).body;
    const tricky = {
      quote: 'say "hi"',
      backslash: 'a\\b',
      braces: '{1,2}',
      unicode: 'Zürich 🏔',
      nested: [{ a: null }],
    };
    config.categories = Array.from({ length: 80_000 }, (_, index) => ({
      id: `c${index}`,
      label: 'L',
      path: '/',
      ...(index > 0 ? { parentId: `c${Math.floor((index - 1) / 10)}` } : { metadata: tricky }),
    }));
    // The app runs in this process: count the statements that write categories.
    const query = jest.spyOn(pg.Client.prototype, 'query');
    const applied = await configApi.post('projectConfig', { plan: false, projectConfig: config });
    const inserts = query.mock.calls.filter(([statement]) =>
      (typeof statement === 'string' ? statement : ((statement as { text?: string }).text ?? '')).includes(
        'INSERT INTO categories',
      ),
    );
    query.mockRestore();
    expect(applied).toMatchObject({ status: 200, body: { ok: true } });
    expect(inserts).toHaveLength(1);
    const listed = (await configApi.get('categories')).body.results as { id: string; parent?: string }[];
    expect(listed).toHaveLength(80_000);
    expect(listed.slice(0, 3)).toEqual([
      { id: 'c0', label: 'L', path: '/' },
      { id: 'c1', label: 'L', path: '/', parent: 'c0' },
      { id: 'c2', label: 'L', path: '/', parent: 'c0' },
    ]);
    expect(listed.at(-1)).toEqual({ id: 'c79999', label: 'L', path: '/', parent: 'c7999' });
    const inherited = await configApi.get('categories/c79999?inheritMetadata=true');
    expect(inherited.body.metadata).toEqual(tricky);
  });
});
