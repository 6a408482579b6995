import { rebuildIndex, verifyIndex } from '../../src/search/index-manager';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually, type ApiResponse } from '../helpers/http';

jest.setTimeout(90_000);

interface Publication {
  systemdata: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/**
 * One publication, many views: a site behind a CDN or an exporter comparing runs reads the same publication
 * through latestPublication, latestPublications and search (Elasticsearch), composition, a document list,
 * the publication events and the planner's publication states, and expects the same systemdata and metadata
 * everywhere, changing only when a new publication is made. Rebuilds the index, so it has a database and an
 * alias of its own.
 */
describe('one publication, every view', () => {
  let app: TestApp;
  let projectId: number;
  let channelId: number;
  let api: ReturnType<typeof apiClient>;
  let tool: ReturnType<typeof apiClient>;
  let listId: number;
  const deps = () => ({ db: app.ctx.pool, search: app.ctx.search, index: app.ctx.index });

  beforeAll(async () => {
    app = await startTestApp({ env: await isolatedEnv('pubviews'), workers: true });
    ({ projectId, channelId } = await createTestProject(app.ctx, {
      config: { planner: { integration: { enabled: true } } },
    }));
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId)).token);
    tool = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['planner'])).token);
    listId = (await app.ctx.commands.createDocumentList({ projectId, name: 'Everything' })).id;
  });
  afterAll(async () => {
    await app.close();
  });

  const ok = (response: ApiResponse, what: string) => {
    if (response.status !== 200) throw new Error(`${what}: ${response.status} ${response.text}`);
    return response.body;
  };
  const pick = (item: Publication | undefined): Publication | undefined =>
    item && { systemdata: item.systemdata, metadata: item.metadata };

  /** The document's latest publication as each read endpoint answers it (undefined where it is missing). */
  async function views(documentId: number): Promise<Record<string, Publication | undefined>> {
    const filters = encodeURIComponent(JSON.stringify([{ key: 'documentId', term: documentId }]));
    const single = await api.get(`documents/${documentId}/latestPublication?fields=systemdata,metadata`);
    const listed = ok(
      await api.get(`documents/latestPublications?id=${documentId}&fields=systemdata,metadata`),
      'latestPublications',
    );
    const searched = ok(
      await api.get(`publications/search?filters=${filters}&fields=systemdata,metadata`),
      'search',
    );
    const composed = await api.post(`composition/${documentId}`, { fields: ['systemdata', 'metadata'] });
    const list = ok(await api.get(`document-lists/${listId}?fields=systemdata,metadata`), 'list');
    return {
      latestPublication: single.status === 200 ? pick(single.body) : undefined,
      latestPublications: pick(listed.results[0]),
      search: pick(searched.results[0]),
      composition: composed.status === 200 ? pick(composed.body) : undefined,
      documentList: pick(
        (list.documents as Publication[]).find((item) => item.systemdata.documentId === documentId),
      ),
    };
  }

  /** The last publication event and the planner's state of the document. */
  async function trail(documentId: number) {
    const events = ok(await api.get('publicationEvents?limit=1000'), 'events').results as Record<
      string,
      unknown
    >[];
    const state = ok(
      await tool.post('planner-integration/statuses', { documentIds: [documentId] }),
      'statuses',
    ).results[0] as Record<string, unknown>;
    return { event: events.filter((event) => event.documentId === documentId).at(-1), state };
  }

  /**
   * Every view answers exactly what latestPublication answers (Elasticsearch's once the index caught up),
   * and the events and the planner name the same publication. Answers that publication.
   */
  async function agreed(documentId: number): Promise<Publication> {
    let last: Record<string, Publication | undefined> = {};
    const same = () =>
      Object.values(last).every((view) => JSON.stringify(view) === JSON.stringify(last.latestPublication));
    await eventually(
      async () => {
        last = await views(documentId);
        return same();
      },
      20_000,
      200,
    ).catch(() => undefined);
    const expected = last.latestPublication;
    expect(expected).toBeDefined();
    expect(last).toEqual({
      latestPublication: expected,
      latestPublications: expected,
      search: expected,
      composition: expected,
      documentList: expected,
    });
    const { systemdata } = expected!;
    const { event, state } = await trail(documentId);
    expect(event).toMatchObject({
      documentId,
      publicationId: systemdata.publicationId,
      channelId: systemdata.channelId,
      documentType: systemdata.documentType,
    });
    expect(state).toMatchObject({
      status: 'published',
      publicationId: systemdata.publicationId,
      firstPublicationDate: systemdata.firstPublicationDate,
      lastPublicationDate: systemdata.lastPublicationDate,
    });
    return expected!;
  }

  const commands = async (documentId: number, body: Record<string, unknown>) => {
    const response = await api.patch(`documents/${documentId}/commands`, body);
    if (response.status !== 204) throw new Error(`commands: ${response.status} ${response.text}`);
  };
  const setTitle = (value: string) => ({ operation: 'setMetadataProperty', propertyName: 'title', value });
  const draftUpdatedAt = async (documentId: number) => {
    const draft = await api.get(`documents/${documentId}/latestDraft?fields=systemdata`);
    return ok(draft, 'latestDraft').systemdata.updatedAt as string;
  };

  /** Imports one document of the `wire` system and answers the finished job's status. */
  async function importOne(document: Record<string, unknown>) {
    const started = ok(
      await api.post('import/documents', { systemName: 'wire', documents: [document] }),
      'import',
    );
    return eventually(async () => {
      const status = ok(await api.get(`import/documents/status?id=${started.id}`), 'import status');
      return status.finished ? status : undefined;
    }, 20_000);
  }

  async function newDocument(title: string): Promise<number> {
    const draft = await createDraftDocument(app.ctx, { projectId, channelId, metadata: { title } });
    await app.ctx.commands.addToDocumentList({ listId, documentIds: [draft.id] });
    return draft.id;
  }

  it('when a document is published, then every view answers the same systemdata and metadata, updatedAt the draft’s as it was published', async () => {
    const documentId = await newDocument('Fresh');
    // No command sets a layout (documents get one from elsewhere): written as such a document has it.
    await app.ctx.pool.query(`UPDATE documents SET layout = 'wide' WHERE id = $1`, [documentId]);
    await commands(documentId, { commands: [setTitle('Fresh, published'), { operation: 'publish' }] });
    const publication = await agreed(documentId);
    expect(publication.metadata.title).toBe('Fresh, published');
    expect(publication.systemdata).toMatchObject({
      documentId,
      channelId,
      layout: 'wide',
      design: { name: 'test-design', version: '1.0.0' },
      updatedAt: await draftUpdatedAt(documentId),
    });
    expect(publication.systemdata.lastPublicationDate).toBe(publication.systemdata.firstPublicationDate);
  });

  it('when the draft of a published document is edited without a publish, then no view’s publication changes, updatedAt included', async () => {
    const documentId = await newDocument('Edited later');
    await commands(documentId, { commands: [{ operation: 'publish' }] });
    const before = await agreed(documentId);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await commands(documentId, { commands: [setTitle('Unpublished edit')] });
    expect(await draftUpdatedAt(documentId)).not.toBe(before.systemdata.updatedAt);
    expect(await agreed(documentId)).toEqual(before);
    // An embargo set and removed re-indexes the publication (what an import's new dates do too): the index
    // was then built again from the document as it is now.
    const until = new Date(Date.now() + 86_400_000).toISOString();
    await commands(documentId, { commands: [{ operation: 'setEmbargo', reason: 'legal', until }] });
    await commands(documentId, { commands: [{ operation: 'removeEmbargo' }] });
    expect(await agreed(documentId)).toEqual(before);
    await rebuildIndex(deps());
    expect(await agreed(documentId)).toEqual(before);
    expect((await verifyIndex(deps())).stale).toEqual([]);
  });

  it('when a published document is edited and published again, then every view answers the new publication with the new updatedAt', async () => {
    const documentId = await newDocument('Republished');
    await commands(documentId, { commands: [{ operation: 'publish' }] });
    const first = await agreed(documentId);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await commands(documentId, { commands: [setTitle('Second edit')] });
    await commands(documentId, { commands: [{ operation: 'publish' }] });
    const second = await agreed(documentId);
    expect(second.metadata.title).toBe('Second edit');
    expect(second.systemdata.publicationId).not.toBe(first.systemdata.publicationId);
    expect(second.systemdata.firstPublicationDate).toBe(first.systemdata.firstPublicationDate);
    expect(second.systemdata.updatedAt).toBe(await draftUpdatedAt(documentId));
    expect(Date.parse(second.systemdata.updatedAt as string)).toBeGreaterThan(
      Date.parse(first.systemdata.updatedAt as string),
    );
  });

  it('when a document is published with preserveUpdatedAt (2026-03), then every view answers the kept updatedAt, which is also its lastPublicationDate', async () => {
    const documentId = await newDocument('Preserved');
    const kept = await draftUpdatedAt(documentId);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await commands(documentId, {
      preserveUpdatedAt: true,
      commands: [setTitle('Preserved, published'), { operation: 'publish' }],
    });
    const publication = await agreed(documentId);
    expect(publication.systemdata).toMatchObject({ updatedAt: kept, lastPublicationDate: kept });
    expect(publication.metadata.title).toBe('Preserved, published');
  });

  it('when an import publishes a document with publishControl dates, then every view answers those dates', async () => {
    const dates = {
      firstPublicationDate: '2020-01-02T03:04:05.000Z',
      significantPublicationDate: '2021-01-01T00:00:00.000Z',
      visiblePublicationDateOverride: '2022-02-02T00:00:00.000Z',
      lastPublicationDate: '2023-03-03T00:00:00.000Z',
    };
    const done = await importOne({
      id: 'views-1',
      contentType: 'regular',
      title: 'Imported',
      flags: { autoPublish: true },
      publishControl: dates,
    });
    expect(done.logs[0]).toMatchObject({ state: 'published' });
    const documentId = done.logs[0].document_id as number;
    await app.ctx.commands.addToDocumentList({ listId, documentIds: [documentId] });
    const publication = await agreed(documentId);
    expect(publication.systemdata).toMatchObject({
      firstPublicationDate: dates.firstPublicationDate,
      significantPublicationDate: dates.significantPublicationDate,
      visiblePublicationDate: dates.visiblePublicationDateOverride,
      lastPublicationDate: dates.lastPublicationDate,
      updatedAt: await draftUpdatedAt(documentId),
    });

    // Imported again with other dates and a new draft, not published: the dates are the document's and every
    // view follows them (the import re-indexes it); the publication, its updatedAt included, stays.
    const redated = { firstPublicationDate: '2019-01-01T00:00:00.000Z' };
    await importOne({ id: 'views-1', contentType: 'regular', title: 'Draft only', publishControl: redated });
    const after = await agreed(documentId);
    expect(after).toEqual({
      ...publication,
      systemdata: { ...publication.systemdata, firstPublicationDate: redated.firstPublicationDate },
    });
    expect(await draftUpdatedAt(documentId)).not.toBe(publication.systemdata.updatedAt);
  });

  it('when a document is unpublished, then no view answers it; published again, every view answers the new publication', async () => {
    const documentId = await newDocument('Down and up');
    await commands(documentId, { commands: [{ operation: 'publish' }] });
    const first = await agreed(documentId);
    await commands(documentId, { commands: [{ operation: 'unpublish' }] });
    await eventually(
      async () => Object.values(await views(documentId)).every((view) => view === undefined),
      20_000,
      200,
    );
    expect((await trail(documentId)).event).toMatchObject({ eventType: 'unpublish' });
    await commands(documentId, { commands: [{ operation: 'publish' }] });
    const second = await agreed(documentId);
    expect(second.systemdata.publicationId).not.toBe(first.systemdata.publicationId);
    expect(second.systemdata.firstPublicationDate).toBe(first.systemdata.firstPublicationDate);
  });

  it('when the draft became another content type and the document is unpublished, then the unpublish event names the type of the publication taken down', async () => {
    const eventsOf = async (documentId: number, query: string) =>
      (
        ok(await api.get(`publicationEvents?limit=1000&${query}`), 'events').results as Record<
          string,
          unknown
        >[]
      )
        .filter((event) => event.documentId === documentId)
        .map((event) => [event.eventType, event.documentType]);
    for (const [externalId, unpublish] of [
      ['retyped-commands', { operation: 'unpublish' }],
      ['retyped-import', undefined],
    ] as const) {
      const first = await importOne({
        id: externalId,
        contentType: 'regular',
        title: 'An article',
        flags: { autoPublish: true },
      });
      const documentId = first.logs[0].document_id as number;
      await app.ctx.commands.addToDocumentList({ listId, documentIds: [documentId] });
      const publication = await agreed(documentId);
      expect(publication.systemdata).toMatchObject({ contentType: 'regular', documentType: 'article' });
      // The draft is a page now; the live publication is still the article.
      await importOne({ id: externalId, contentType: 'page', title: 'A page' });
      expect(await agreed(documentId)).toEqual(publication);
      if (unpublish) await commands(documentId, { commands: [unpublish] });
      else
        await importOne({ id: externalId, contentType: 'page', title: 'A page', flags: { unpublish: true } });
      // A site that follows its articles' events learns that this article went down.
      expect(await eventsOf(documentId, 'contentTypes=regular')).toEqual([
        ['publish', 'article'],
        ['unpublish', 'article'],
      ]);
      expect(await eventsOf(documentId, 'documentTypes=page')).toEqual([]);
    }
  });

  it('when the index is rebuilt, then every view answers what it answered before', async () => {
    const documentId = await newDocument('Rebuilt');
    await commands(documentId, { commands: [{ operation: 'publish' }] });
    const before = await agreed(documentId);
    await commands(documentId, { commands: [setTitle('Draft only')] });
    await rebuildIndex(deps());
    expect(await agreed(documentId)).toEqual(before);
  });
});
