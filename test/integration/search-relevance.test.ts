import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { loadPublications } from '../helpers/fixtures';
import { apiClient } from '../helpers/http';

/**
 * Relevance sanity on the magazine fixtures (test/fixtures/magazine: 31 publications of real-shaped text).
 * Article 321 holds the phrase "billing tenants on estimated meter readings"; article 325 holds every one of
 * those words too, scattered, so the unquoted search has a real competitor to rank below it.
 */
describe('publications/search relevance on the magazine fixtures', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  const publications = loadPublications();
  /** Fixture documentId → the id it got here. */
  const idOf = new Map<number, number>();

  beforeAll(async () => {
    app = await startTestApp();
    const { projectId } = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    for (const fixture of publications) {
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
    expect(idOf.size).toBe(publications.length);
    expect(idOf.size).toBeGreaterThan(30);
    expect(response.body.total).toBe(idOf.size);
  });

  it('when a distinctive phrase of one article is searched in quotes, then only that article is found', async () => {
    expect(await hits('"estimated meter readings"')).toEqual([idOf.get(321)]);
  });

  it('when the words of that phrase are searched unquoted, then that article still comes first', async () => {
    const found = await hits('billing tenants on estimated meter readings');
    expect(found[0]).toBe(idOf.get(321));
    // The smart-meter article has all these words apart: it matches, and ranks below.
    expect(found).toContain(idOf.get(325));
  });

  it('when words of an article title are searched, then that article comes first', async () => {
    expect((await hits('refund tenants overcharged old quarter'))[0]).toBe(idOf.get(321));
  });

  it('when the words only occur in markup (script tags), then nothing is found', async () => {
    expect(await hits('beacon.js')).toEqual([]);
  });

  // Newsroom text is typeset with the typographic apostrophe (U+2019: "Edda Brandt’s workshop" in article 328),
  // while readers type the keyboard's straight one; a phone may send either.
  it('when a word written with a typographic apostrophe is searched with a straight one, then its article is found', async () => {
    expect(await hits("Brandt's workshop")).toEqual([idOf.get(328)]);
    expect(await hits('"Edda Brandt\'s workshop"')).toEqual([idOf.get(328)]);
    expect(await hits('Brandt’s workshop')).toEqual([idOf.get(328)]);
  });

  it('when a word written with a straight apostrophe is searched with a typographic one, then its document is found', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const own = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: {
        title: "O'Neill's ferry keeps the harbour's last night crossing",
        summary: "The crossing's timetable",
      },
    });
    await indexNow(app.ctx, projectId, [documentId]);
    const queries = [
      ...['O’Neill’s ferry', '"harbour’s last night crossing"', "O'Neill's ferry"].map(
        (search) => `search=${encodeURIComponent(search)}`,
      ),
      // A text metadata filter (summary is `index: true` text in the test config) reads its words the same way.
      `filters=${encodeURIComponent(JSON.stringify({ key: 'metadata.summary', term: 'crossing’s timetable' }))}`,
    ];
    for (const query of queries) {
      const response = await own.get(`publications/search?${query}&fields=id`);
      expect({ query, found: response.body.results }).toEqual({ query, found: [{ documentId, projectId }] });
    }
  });
});
