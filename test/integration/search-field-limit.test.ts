import { ensurePublicationsIndex } from '../../src/search/index-aliases';
import { indexStatus, verifyIndex } from '../../src/search/index-manager';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';

/**
 * Every project shares one publications index, whose mapping holds at most `total_fields.limit` fields. A field
 * an API client can name (a component name in content, an indexed metadata handle) must not be able to fill it:
 * past the limit Elasticsearch refuses every document that brings a field it has not seen, for every project.
 * This file's index gets a low limit so reaching it is cheap.
 */
describe('the shared index field limit', () => {
  let app: TestApp;
  /** Fields the index may still take when the tests start. */
  const HEADROOM = 10;

  beforeAll(async () => {
    app = await startTestApp({ workers: true, env: await isolatedEnv('fieldlimit') });
    await ensurePublicationsIndex(app.ctx.search, app.ctx.index);
    const mapping = await app.ctx.search.indices.getMapping({ index: app.ctx.index.alias });
    const fields = Object.values(mapping)[0]!.mappings.properties as Record<string, never>;
    await app.ctx.search.indices.putSettings({
      index: app.ctx.index.alias,
      settings: { index: { mapping: { total_fields: { limit: countFields(fields) + HEADROOM } } } },
    });
  });
  afterAll(async () => {
    await app.close();
  });

  function countFields(properties: Record<string, { properties?: Record<string, unknown> }>): number {
    return Object.values(properties).reduce(
      (sum, field) =>
        sum + 1 + (field.properties ? countFields(field.properties as Record<string, never>) : 0),
      0,
    );
  }

  async function mappedComponentCounts(): Promise<string[]> {
    const mapping = await app.ctx.search.indices.getMapping({ index: app.ctx.index.alias });
    const statistics = Object.values(mapping)[0]!.mappings.properties!.statistics as {
      properties: { componentCount: { properties?: Record<string, unknown> } };
    };
    return Object.keys(statistics.properties.componentCount.properties ?? {}).sort();
  }

  const component = (id: string, name: string, text: string) => ({
    id,
    component: name,
    identifier: `whatever.${name}`,
    content: { text },
  });

  it('when a 2025-11 import (public-api:write) names components no design declares, then they become no fields and the document and every other project stay searchable', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const current = apiClient(app.url, (await tokenFor(app.ctx, projectId)).token);
    const api = current.withVersion('2025-11');
    const junk = Array.from({ length: HEADROOM * 3 }, (_, n) => component(`j${n}`, `made-up-${n}`, `w${n}`));
    const started = await api.post('import/documents', {
      systemName: 'wire',
      documents: [
        {
          id: 'flood',
          contentType: 'regular',
          // A design no operator ever created: 2025-11 stores content as sent, unchecked.
          design: { name: 'nope', version: '9.9.9' },
          content: [component('p1', 'paragraph', 'Glaciers retreat'), ...junk],
          flags: { autoPublish: true },
        },
      ],
    });
    expect(started.status).toBe(200);
    const filters = encodeURIComponent(
      JSON.stringify([{ key: 'statistics.componentCount.paragraph', term: 1 }]),
    );
    const found = await eventually(async () => {
      const answer = await current.get(`publications/search?fields=id&filters=${filters}`);
      return answer.status === 200 && answer.body.results.length === 1 ? answer : undefined;
    }, 20_000);
    expect(found.body.results).toHaveLength(1);
    expect(await mappedComponentCounts()).toEqual(['paragraph']);
    const rejections = await app.ctx.pool.query('SELECT reason FROM index_rejections');
    expect(rejections.rows).toEqual([]);

    // Another project's document with a component its design declares, first seen now, is indexed too.
    const other = await createTestProject(app.ctx);
    const otherApi = apiClient(app.url, (await tokenFor(app.ctx, other.projectId)).token);
    expect(
      (
        await otherApi.post('import/documents', {
          systemName: 'wire',
          documents: [
            {
              id: 'styled',
              contentType: 'regular',
              content: [
                { id: 's1', component: 'styled', identifier: 'test-design.styled', content: { text: 'Hi' } },
              ],
              flags: { autoPublish: true },
            },
          ],
        })
      ).status,
    ).toBe(200);
    const styled = encodeURIComponent(
      JSON.stringify([{ key: 'statistics.componentCount.styled', exists: true }]),
    );
    await eventually(async () => {
      const answer = await otherApi.get(`publications/search?fields=id&filters=${styled}`);
      return answer.status === 200 && answer.body.results.length === 1;
    }, 20_000);
    expect(await mappedComponentCounts()).toEqual(['paragraph', 'styled']);
  });

  it("when the index has no room left for a document's new metadata fields (configs applied over time), then the document is indexed without them, searchable, and index status names it with the reason", async () => {
    // A config indexes at most 100 fields, but applies add up (a mapping never forgets a field) and so do the
    // projects: past the limit Elasticsearch refused the whole document, so a publish answered 204 and the
    // document never became searchable.
    const { projectId } = await createTestProject(app.ctx);
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId)).token);
    const config = (await api.get('projectConfig')).body;
    const added = Array.from({ length: HEADROOM + 2 }, (_, n) => `overflow${n}`);
    config.contentTypes[0].metadata.push(
      ...added.map((handle) => ({ handle, type: 'integer', index: true })),
    );
    expect(await api.post('projectConfig', { plan: false, projectConfig: config })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    const started = await api.post('import/documents', {
      systemName: 'wire',
      documents: [
        {
          id: 'overflowing',
          contentType: 'regular',
          metadata: { title: 'Overflowing', ...Object.fromEntries(added.map((h, n) => [h, n])) },
          flags: { autoPublish: true },
        },
      ],
    });
    expect(started.status).toBe(200);
    // Full text and the fields the index already had still find it.
    const found = await eventually(async () => {
      const answer = await api.get('publications/search?fields=id&search=Overflowing');
      return answer.status === 200 && answer.body.results.length === 1 ? answer : undefined;
    }, 20_000);
    const { documentId } = found.body.results[0];
    const mapping = await app.ctx.search.indices.getMapping({ index: app.ctx.index.alias });
    const integers = Object.values(mapping)[0]!.mappings.properties!.meta_integer as {
      properties?: Record<string, unknown>;
    };
    expect(Object.keys(integers.properties ?? {}).filter((field) => field.startsWith('overflow'))).toEqual(
      [],
    );
    const deps = { db: app.ctx.pool, search: app.ctx.search, index: app.ctx.index };
    const recorded = expect.objectContaining({
      projectId,
      documentId,
      reason: expect.stringMatching(
        /^indexed without 12 fields the index had no room for \(meta_integer\.overflow0, .*\): .*Limit of total fields \[\d+\] has been exceeded/,
      ),
    });
    expect((await indexStatus(deps)).rejected.latest).toContainEqual(recorded);
    // index verify lists it too (it is in the index, at its version, but not whole), so it exits 1.
    const report = await verifyIndex(deps);
    expect(report.rejected).toContainEqual(recorded);
    expect(report.missing).toEqual([]);
  });
});
