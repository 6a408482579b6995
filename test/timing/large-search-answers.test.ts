import { startTestApp, type TestApp } from '../helpers/app';
import { indexNow } from '../helpers/documents';
import { createTestProject, READ, tokenFor } from '../helpers/factories';
import { healthWaitsDuring } from '../helpers/health-waits';
import { publishedInSql } from '../helpers/published-in-sql';

/**
 * documents/latestPublications and publications/search whose hits carry very large documents: the process
 * answers other requests while it reads such a search response and makes it into items.
 */
describe('search answers of large documents', () => {
  let app: TestApp;
  let token: string;
  /** The content's JSON length of each of the 100 documents. */
  let bytes: number;

  /**
   * `count` published and indexed documents of about 1.2 MB of content each (4,000 small components, every
   * 100th shown only from 2099 on: component conditions have something to remove from each).
   */
  const largeDocuments = async (project: { projectId: number; channelId: number }, count: number) => {
    const content = Array.from({ length: 4_000 }, (_, index) => ({
      id: `doc-many-${index}`,
      component: 'paragraph',
      identifier: 'test-design.paragraph',
      content: { text: `Paragraph ${index} ${'lorem ipsum dolor sit amet '.repeat(7)}` },
      ...(index % 100 === 0 ? { conditions: { dateTime: { gte: '2099-01-01T00:00:00Z' } } } : {}),
    }));
    const ids = await publishedInSql(app.ctx.pool, project, content, { count });
    // Ten at a time: a bulk request of 100 such documents is more than Elasticsearch takes at once.
    for (let at = 0; at < ids.length; at += 10)
      await indexNow(app.ctx, project.projectId, ids.slice(at, at + 10));
    return JSON.stringify(content).length;
  };

  beforeAll(async () => {
    app = await startTestApp();
    const project = await createTestProject(app.ctx);
    token = (await tokenFor(app.ctx, project.projectId, READ)).token;
    bytes = await largeDocuments(project, 100);
    expect(bytes).toBeGreaterThan(1_200_000);
  }, 300_000);
  afterAll(async () => {
    await app.close();
  });

  it('when 100 documents of 1.2 MB are listed with their content and conditions applied, then the process answers other requests meanwhile', async () => {
    const applied = await healthWaitsDuring(
      app.url,
      'documents/latestPublications?limit=100&fields=systemdata,content',
      token,
    );
    const ignored = await healthWaitsDuring(
      app.url,
      'documents/latestPublications?limit=100&fields=systemdata,content&ignoreComponentConditions=true',
      token,
    );
    expect([applied.status, ignored.status]).toEqual([200, 200]);
    expect(ignored.length).toBeGreaterThan(100 * bytes);
    // 40 components of each document are not shown before 2099.
    expect(applied.length).toBeLessThan(ignored.length - 100 * 40 * 100);
    // The response was skimmed, and each hit's body parsed, its conditions applied and serialised again, in
    // one go: /health waited 12.6 to 12.9 s of the answer's 20 s (applied), 3.0 to 4.1 s of 9 to 10 s
    // (ignored: the skim alone); now about 0.3 s of 11.5 s and 0.45 s of 3.5 s (a busy machine's hiccups).
    expect(applied.longestHealthWait).toBeLessThan(applied.took / 10);
    expect(ignored.longestHealthWait).toBeLessThan(ignored.took / 4);
  });

  it('when 100 documents of 1.2 MB are searched with their content, then the process answers other requests meanwhile', async () => {
    const answer = await healthWaitsDuring(
      app.url,
      'publications/search?limit=100&fields=systemdata,content',
      token,
    );
    expect(answer.status).toBe(200);
    expect(answer.length).toBeGreaterThan(95 * bytes);
    // /health waited 13.5 s of the answer's 21 s.
    expect(answer.longestHealthWait).toBeLessThan(answer.took / 10);
  });
});
