import type { Content } from '../../src/domain/content';
import { indexStatus } from '../../src/search/index-manager';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { createDraftDocument } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';

/**
 * What a process keeps in memory (src/context.ts builds each cache once) must not make it answer with stale
 * data: its own changes show at once, other processes' within the cache's bound. This file gets a database of
 * its own, so that no other file's workers take its index jobs.
 */
describe('the caches a process keeps', () => {
  let app: TestApp;
  let project: { projectId: number; channelId: number };
  let api: ReturnType<typeof apiClient>;

  const brandOnly: Content = [
    { id: 'doc-all', component: 'paragraph', identifier: 'test-design.paragraph', content: { text: 'all' } },
    {
      id: 'doc-de',
      component: 'paragraph',
      identifier: 'test-design.paragraph',
      content: { text: 'de only' },
      conditions: { brands: ['de'] },
    },
  ] as Content;

  const visibleIds = async (documentId: number) => {
    const response = await api.get(`documents/${documentId}/latestDraft?fields=content`);
    expect(response.status).toBe(200);
    return (response.body.content as { id: string }[]).map((component) => component.id);
  };

  beforeAll(async () => {
    app = await startTestApp({ env: await isolatedEnv('caches') });
    project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId)).token);
  });
  afterAll(async () => {
    await app.close();
  });

  it('when the project config is applied through the API, then the next read uses it at once', async () => {
    const draft = await createDraftDocument(app.ctx, { ...project, content: brandOnly });
    // The default brand is ch: the de-only component is hidden, and the project's config is now cached.
    expect(await visibleIds(draft.id)).toEqual(['doc-all']);
    const config = (await api.get('projectConfig')).body;
    config.brands = [
      { handle: 'ch', label: 'Switzerland' },
      { handle: 'de', label: 'Germany', isDefault: true },
    ];
    expect(await api.post('projectConfig', { plan: false, projectConfig: config })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    expect(await visibleIds(draft.id)).toEqual(['doc-all', 'doc-de']);
  });

  it('when another process changes the config, then reads use it within five seconds', async () => {
    const other = await createTestProject(app.ctx);
    const otherApi = apiClient(app.url, (await tokenFor(app.ctx, other.projectId)).token);
    const draft = await createDraftDocument(app.ctx, { ...other, content: brandOnly });
    const ids = async () =>
      (await otherApi.get(`documents/${draft.id}/latestDraft?fields=content`)).body.content.map(
        (component: { id: string }) => component.id,
      );
    expect(await ids()).toEqual(['doc-all']);
    // Another process: straight in SQL, so this process hears nothing of it.
    await app.ctx.pool.query(
      `UPDATE projects SET config = jsonb_set(config, '{brands}', $2::jsonb),
         revision_number = revision_number + 1 WHERE id = $1`,
      [other.projectId, JSON.stringify([{ handle: 'de', label: 'Germany', isDefault: true }])],
    );
    const started = Date.now();
    await eventually(async () => (await ids()).includes('doc-de'), 7000, 100);
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it('when an index job waits and no worker runs, then index status tells its age from pg-boss', async () => {
    const deps = { db: app.ctx.pool, search: app.ctx.search, index: app.ctx.index, boss: app.ctx.boss };
    await createPublishedDocument(app.ctx, project.projectId);
    const status = await indexStatus(deps);
    expect(status.oldestPendingJobSeconds).toEqual(expect.any(Number));
    expect(status.oldestPendingJobSeconds).toBeGreaterThanOrEqual(0);
    expect(status.oldestPendingJobSeconds).toBeLessThan(60);
    const { boss: _boss, ...withoutBoss } = deps;
    expect((await indexStatus(withoutBoss)).oldestPendingJobSeconds).toBeNull();
  });
});
