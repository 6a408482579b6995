import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Content, Metadata } from '../../src/domain/content';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

const FIXTURES = join(__dirname, '../../../shared/fixtures/magazine-example/publications');

interface Fixture {
  systemdata: { documentId: number; contentType: string; documentType: 'article' | 'page' | 'data-record' };
  metadata: Metadata;
  content: Content;
}

/** Relevance sanity on the real publications of the magazine example (46 files in publications/). */
describe('publications/search relevance on the magazine example', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  /** Fixture documentId → the id it got here. */
  const idOf = new Map<number, number>();

  beforeAll(async () => {
    app = await startTestApp();
    const { projectId } = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const files = readdirSync(FIXTURES).flatMap((folder) =>
      readdirSync(join(FIXTURES, folder)).map((file) => join(FIXTURES, folder, file)),
    );
    for (const file of files) {
      const fixture = JSON.parse(readFileSync(file, 'utf8')) as Fixture;
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        contentType: fixture.systemdata.contentType,
        documentType: fixture.systemdata.documentType,
        metadata: fixture.metadata,
        content: fixture.content,
      });
      idOf.set(fixture.systemdata.documentId, documentId);
    }
    await indexNow(app.ctx, projectId, [...idOf.values()]);
  }, 60_000);

  afterAll(async () => {
    await app.close();
  });

  const hits = async (search: string) => {
    const response = await api.get(`publications/search?search=${encodeURIComponent(search)}&fields=id`);
    expect(response.status).toBe(200);
    return (response.body.results as { documentId: number }[]).map((item) => item.documentId);
  };

  it('when every fixture publication is imported, then every one of them is indexed', async () => {
    const response = await api.get('publications/search?limit=0');
    expect(idOf.size).toBeGreaterThan(40);
    expect(response.body.total).toBe(idOf.size);
  });

  it('when a distinctive phrase of one article is searched in quotes, then that article comes first', async () => {
    expect(await hits('"dodging payouts"')).toEqual([idOf.get(17)]);
  });

  it('when the words of that phrase are searched unquoted, then that article still comes first', async () => {
    expect((await hits('insurance companies dodging payouts'))[0]).toBe(idOf.get(17));
  });

  it('when words of an article title are searched, then that article comes first', async () => {
    expect((await hits('injured immigrant workers florida'))[0]).toBe(idOf.get(17));
  });

  it('when the words only occur in markup (script tags), then nothing is found', async () => {
    expect(await hits('pixel.js')).toEqual([]);
  });
});
