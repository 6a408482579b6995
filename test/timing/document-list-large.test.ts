import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, READ, tokenFor } from '../helpers/factories';
import { healthWaitsDuring } from '../helpers/health-waits';
import { publishedInSql } from '../helpers/published-in-sql';

/**
 * GET document-lists/{id} of 100 large documents: the process answers other requests while it builds such an
 * answer (a timing test, run alone: see jest.config.js).
 */
describe('document lists of large documents', () => {
  let app: TestApp;
  let project: { projectId: number; channelId: number };

  const newList = async (name: string, ids: number[]) => {
    const list = await app.ctx.commands.createDocumentList({ projectId: project.projectId, name });
    await app.ctx.commands.addToDocumentList({ listId: list.id, documentIds: ids });
    return list.id;
  };

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx);
  });
  afterAll(async () => {
    await app.close();
  });

  describe('large answers', () => {
    /** `count` published documents of about 1.1 MB of content each (4,000 small components), in a new list. */
    const largeList = async (name: string, count: number) => {
      const content = Array.from({ length: 4_000 }, (_, index) => ({
        id: `doc-many-${index}`,
        component: 'paragraph',
        identifier: 'test-design.paragraph',
        content: { text: `Paragraph ${index} ${'lorem ipsum dolor sit amet '.repeat(7)}` },
      }));
      const ids = await publishedInSql(app.ctx.pool, project, content, { count });
      return { list: await newList(name, ids), bytes: JSON.stringify(content).length };
    };

    it('when a list of 100 documents of 1.1 MB each is read with their content, then the process answers other requests meanwhile', async () => {
      const { list, bytes } = await largeList('Hundred large', 100);
      expect(bytes).toBeGreaterThan(1_000_000);
      const { token } = await tokenFor(app.ctx, project.projectId, READ);
      const answer = await healthWaitsDuring(
        app.url,
        `document-lists/${list}?fields=content&limit=100`,
        token,
      );
      expect(answer.status).toBe(200);
      expect(answer.length).toBeGreaterThan(100 * bytes);
      // The answer was built and serialised in one go: /health waited 7.4 s of the answer's 13.7 s; now about
      // 0.2 s of 7.7 s (a slice, a collection of the answer's garbage).
      expect(answer.longestHealthWait).toBeLessThan(answer.took / 10);
    });
  });
});
