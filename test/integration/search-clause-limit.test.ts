import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';

/**
 * Elasticsearch refuses a query of more clauses than its node allows (too_many_nested_clauses): each word of
 * `search` is three clauses (title, description, text) and each of its first 20 three more in the proximity
 * phrase, each word of a text filter's value one. The limit depends on the node (heap MB × 64 / search threads, at least 1,024):
 * 16,384 on the tests' 1 GB, 4-thread node, past what the 16 KB request line holds (about 10,000), but a
 * node with less heap or more cores refuses what that line holds. Such a search answered 500.
 */
describe('publications/search and the clause limit of Elasticsearch', () => {
  let app: TestApp;
  let token: string;
  /** The same app behind a server that reads request lines of up to 4 MiB (see the first test). */
  let wide: Server;
  let wideUrl: string;
  let documentId: number;
  const words = (count: number, prefix: string) =>
    Array.from({ length: count }, (_, n) => `${prefix}${n.toString(36)}`);
  /** A 1,000-character search of 333 different two-character words, all in the document. */
  const searchWords = Array.from({ length: 333 }, (_, n) => n.toString(36).padStart(2, 'q'))
    .join(' ')
    .padEnd(1000, ' ');

  beforeAll(async () => {
    app = await startTestApp();
    const { projectId } = await createTestProject(app.ctx);
    token = (await tokenFor(app.ctx, projectId, ['public-api:read'])).token;
    // The document maps meta_text.summary (a filter on an unmapped field is no clause at all) and holds every
    // word of the long search, so the legal searches below find it.
    ({ documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: 'Glacier', description: searchWords, summary: 'glaciers retreat' },
    }));
    await indexNow(app.ctx, projectId, [documentId]);
    wide = createServer({ maxHeaderSize: 4 * 1024 * 1024 }, app.app);
    await new Promise<void>((resolve) => wide.listen(0, '127.0.0.1', resolve));
    wideUrl = `http://127.0.0.1:${(wide.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    wide.closeAllConnections();
    await new Promise<void>((resolve) => wide.close(() => resolve()));
    await app.close();
  });

  const filtersParam = (filters: unknown) => encodeURIComponent(JSON.stringify(filters));

  it('when a text filter holds more words than Elasticsearch takes clauses, then the answer is a 400 naming the limit, not a 500', async () => {
    // The tests' node allows 16,384 clauses: only a request line past the 16 KB the API's own server reads
    // holds more, so this one server reads longer lines; what it answers is what any node whose limit a
    // 16 KB line passes answers.
    const api = apiClient(wideUrl, token);
    const value = words(40_000, 'w').join(' ');
    const answer = await api.get(
      `publications/search?fields=id&filters=${filtersParam({ key: 'metadata.summary', term: value })}`,
    );
    expect(answer.body).toEqual(
      envelope(400, 'Bad Request', {
        name: 'ValidationError',
        message: expect.stringMatching(
          /^The search and filters make a query of more clauses than Elasticsearch allows: at most \d+ \(each word of search counts 3, each of its first 20 words 3 more, each word of a text filter value 1\); use fewer words or values$/,
        ),
      }),
    );
    expect(answer.status).toBe(400);
    const limit = Number(/at most (\d+)/.exec(answer.body.error_details.message)![1]);
    expect(limit).toBeGreaterThanOrEqual(1024);

    // The same search within the limit answers.
    const within = words(limit / 2, 'w').join(' ');
    const fine = await api.get(
      `publications/search?fields=id&filters=${filtersParam({ key: 'metadata.summary', term: within })}`,
    );
    expect(fine.status).toBe(200);
    expect(fine.body.results).toEqual([]);
  });

  it('when a search fills the request line with a 1,000-character search and a text filter of over a thousand words, then it answers with the document', async () => {
    const api = apiClient(app.url, token);
    const path = (values: string[]) =>
      `publications/search?fields=id&search=${encodeURIComponent(searchWords)}&filters=${filtersParam({
        key: 'metadata.summary',
        term: ['glaciers', ...values],
      })}`;
    // As many two-word values as fit under the 16 KB the server reads, with the headers.
    let values = words(999, 'v').map((word) => `${word} x`);
    while (path(values).length > 15_000) values = values.slice(0, -10);
    expect(values.length).toBeGreaterThan(500);
    const answer = await api.get(path(values));
    expect(answer.status).toBe(200);
    expect(answer.body.results).toEqual([{ documentId, projectId: expect.any(Number) }]);
  });
});

/**
 * A pasted paragraph: 300 words were 1,800 clauses (6 a word), refused by a node that allows 1,024 (heap MB ×
 * 64 / search threads, at least 1,024). Only the first 20 words now go into the proximity phrase: 960 clauses
 * and the project's filter. The tests' node allows 16,384, so what this shows is the ranking that survives the
 * cap: the document the paragraph comes from first, one holding its words in another order next.
 */
describe('publications/search with a pasted paragraph of 300 words', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  /** 300 distinct two-character words: the paragraph fits the 1,000 characters search takes. */
  const paragraph = Array.from({ length: 300 }, (_, n) => n.toString(36).padStart(2, 'p'));
  const ids: Record<'source' | 'scattered' | 'partial', number> = { source: 0, scattered: 0, partial: 0 };

  beforeAll(async () => {
    app = await startTestApp();
    const { projectId } = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const descriptions = {
      source: paragraph.join(' '),
      scattered: [...paragraph].reverse().join(' '),
      partial: paragraph.slice(0, -1).join(' '),
    };
    for (const key of ['partial', 'scattered', 'source'] as const) {
      ({ documentId: ids[key] } = await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: `Paragraph ${key}`, description: descriptions[key] },
      }));
    }
    await indexNow(app.ctx, projectId, Object.values(ids));
  });

  afterAll(async () => {
    await app.close();
  });

  it('when the 300 words are searched unquoted, then the document they come from is first, the one holding them in another order next, and one missing a word is not found', async () => {
    const search = paragraph.join(' ');
    expect(search.length).toBeLessThanOrEqual(1000);
    const answer = await api.get(`publications/search?search=${encodeURIComponent(search)}&fields=id`);
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((hit: { documentId: number }) => hit.documentId)).toEqual([
      ids.source,
      ids.scattered,
    ]);
  });
});
