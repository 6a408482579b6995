import { documentListQueries } from '../../src/db/queries/document-lists';
import type { Content } from '../../src/domain/content';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, unpublish } from '../helpers/documents';
import { createDraftDocument } from '../helpers/draft-documents';
import { createTestProject, tokenFor, TEST_DESIGN } from '../helpers/factories';
import { loadLivingTimesDesign, loadPublication } from '../helpers/fixtures';
import { apiClient } from '../helpers/http';

const LIVING_TIMES = loadLivingTimesDesign();
const LT = { name: LIVING_TIMES.name, version: LIVING_TIMES.version };

type Json = Record<string, unknown>;

/** A copy of a fixture's JSON with its document ids (teaser mediaId, $ref ids) replaced by the test's own. */
function remapIds<T>(value: T, ids: ReadonlyMap<number, number>): T {
  const mapped = (id: unknown): unknown => {
    const target = ids.get(Number(id));
    if (target === undefined) return id;
    return typeof id === 'number' ? target : String(target);
  };
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const copy: Json = Object.fromEntries(
      Object.entries(node).map(([key, inner]) => [key, key === 'mediaId' ? mapped(inner) : walk(inner)]),
    );
    if (typeof copy.$ref === 'string') {
      const reference = copy.reference as Json | undefined;
      if (reference) copy.reference = { ...reference, id: mapped(reference.id) };
      if (Array.isArray(copy.references)) {
        copy.references = (copy.references as Json[]).map((entry) => ({ ...entry, id: mapped(entry.id) }));
      }
    }
    return copy;
  };
  return walk(value) as T;
}

const para = (id: string, text: string, conditions?: Record<string, unknown>) => ({
  id,
  identifier: 'living-times.paragraph',
  content: { text },
  ...(conditions ? { conditions } : {}),
});

describe('POST composition/{documentId}', () => {
  let app: TestApp;
  let project: { projectId: number; channelId: number };
  let other: { projectId: number; channelId: number };
  let api: ReturnType<typeof apiClient>;
  let otherApi: ReturnType<typeof apiClient>;
  /** Fixture id → the id the test's documents got. */
  const ids = new Map<number, number>();
  let article: number;
  let draftOnly: number;
  let otherDocument: number;

  const compose = (documentId: number | string, body?: unknown) =>
    api.post(`composition/${documentId}`, body ?? {});

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx, { designs: [TEST_DESIGN, LIVING_TIMES] });
    other = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, ['public-api:read'])).token);
    otherApi = apiClient(app.url, (await tokenFor(app.ctx, other.projectId, ['public-api:read'])).token);

    // Article 324 and what it teases: authors 313 and 314, articles 321, 323, 325, 331 published; 330 only
    // ever a draft.
    for (const file of [
      'authors/313',
      'authors/314',
      'articles/321',
      'articles/323',
      'articles/325',
      'articles/331',
    ]) {
      const fixture = loadPublication(`${file}.json`);
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        contentType: fixture.systemdata.contentType,
        documentType: fixture.systemdata.documentType,
        metadata: fixture.metadata,
        content: fixture.content,
        design: LT,
      });
      ids.set(fixture.id, documentId);
    }
    const neverPublished = loadPublication('articles/330.json');
    const draft = await createDraftDocument(app.ctx, {
      ...project,
      metadata: { ...neverPublished.metadata, title: 'SECRET DRAFT TITLE' },
    });
    ids.set(330, draft.id);
    draftOnly = draft.id;
    const fixture = remapIds(loadPublication('articles/324.json'), ids);
    ({ documentId: article } = await createPublishedDocument(app.ctx, project.projectId, {
      metadata: fixture.metadata,
      content: fixture.content,
      design: LT,
    }));
    ({ documentId: otherDocument } = await createPublishedDocument(app.ctx, other.projectId, {
      metadata: { title: 'Of another project' },
    }));
  });
  afterAll(async () => {
    await app.close();
  });

  describe('access and bad input', () => {
    it('when no token, a bad token or a token without public-api:read is used, then 401 and 403', async () => {
      expect((await apiClient(app.url).post(`composition/${article}`, {})).status).toBe(401);
      expect((await apiClient(app.url, 'bad').post(`composition/${article}`, {})).status).toBe(401);
      const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:write']);
      const response = await apiClient(app.url, token).post(`composition/${article}`, {});
      expect(response.status).toBe(403);
      expect(response.body.error_details).toEqual({ access_token: 'The request requires higher privileges' });
    });

    it('when the document id is not a positive integer or too large, then 400 naming documentId', async () => {
      for (const id of ['abc', '0', '-1', '1.5', '9007199254740993']) {
        const response = await compose(id);
        expect(response.status).toBe(400);
        expect(response.body).toEqual({
          status: 400,
          error: 'Bad Request',
          error_details: expect.objectContaining({ name: 'ValidationError', documentId: expect.any(String) }),
        });
      }
    });

    it('when the body has unknown keys at any depth, then 400 keyed by their paths', async () => {
      const response = await compose(article, {
        fields: ['content'],
        secret: 1,
        metadata: { preload: {}, deep: true },
        renderOptions: { renderDirectiveInfo: true, pretty: true },
      });
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual({
        name: 'ValidationError',
        secret: 'is not allowed',
        'metadata.deep': 'is not allowed',
        'renderOptions.pretty': 'is not allowed',
      });
      // Past some 130,000 unknown keys (a 2 MB body) the 400 could not be built: a 500.
      const many = Object.fromEntries(Array.from({ length: 140_000 }, (_, index) => [`k${index}`, 1]));
      const flooded = await compose(article, many);
      expect(flooded.status).toBe(400);
      expect(Object.keys(flooded.body.error_details).length).toBe(140_001);
      expect(flooded.body.error_details.k139999).toBe('is not allowed');
    });

    it('when a field, a preload, a flag or the conditions are of the wrong kind, then 400 naming each', async () => {
      const response = await compose(article, {
        fields: ['content', 'secrets'],
        metadata: { preload: { authors: 'yes' } },
        renderOptions: { renderDirectiveInfo: 1 },
        resolveIncludes: 'true',
        ignoreComponentConditions: 'no',
      });
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual({
        name: 'ValidationError',
        'fields.1': 'must be one of systemdata, metadata, content, html, includes, design',
        'metadata.preload.authors': 'must be a boolean',
        'renderOptions.renderDirectiveInfo': 'must be a boolean',
        resolveIncludes: 'must be a boolean',
        ignoreComponentConditions: 'must be a boolean',
      });
      const empty = await compose(article, { fields: [] });
      expect(empty.body.error_details).toEqual({
        name: 'ValidationError',
        fields: 'must have at least 1 item',
      });
      const notAList = await compose(article, { fields: 'content' });
      expect(notAList.body.error_details).toEqual({ name: 'ValidationError', fields: 'must be an array' });
      // Too many preload properties is one problem, told before each entry is judged.
      const preload = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`p${i}`, 'yes']));
      const flooded = await compose(article, { metadata: { preload } });
      expect(flooded.status).toBe(400);
      expect(flooded.body.error_details).toEqual({
        name: 'ValidationError',
        'metadata.preload': 'must name at most 100 metadata properties',
      });
    });

    it('when componentConditions is bad JSON, has an unknown key or a bad date, then 400 componentConditions', async () => {
      const badJson = await compose(article, { componentConditions: '{not json' });
      expect(badJson.status).toBe(400);
      expect(badJson.body.error_details.componentConditions).toContain('must be valid JSON');
      const badKey = await compose(article, { componentConditions: { when: 'now' } });
      expect(badKey.body.error_details.componentConditions).toBe(
        "unknown key 'when'; allowed keys are dateTime and brand",
      );
      const badDate = await compose(article, { componentConditions: { dateTime: '2025-02-30T00:00:00Z' } });
      expect(badDate.body.error_details.componentConditions).toContain('dateTime must be an ISO 8601');
      const notAnObject = await compose(article, { componentConditions: 5 });
      expect(notAnObject.status).toBe(400);
      // Supplement §6: an invalid componentConditions is a 400, ignored or not.
      const ignored = await compose(article, {
        ignoreComponentConditions: true,
        componentConditions: '{not',
      });
      expect(ignored.status).toBe(400);
      expect(ignored.body.error_details.componentConditions).toContain('must be valid JSON');
    });

    it('when the body is not a JSON object, is not JSON, or the query has parameters, then 4xx naming it', async () => {
      const list = await compose(article, [1, 2]);
      expect(list.status).toBe(400);
      expect(list.body.error_details).toEqual({ name: 'ValidationError', body: 'must be an object' });
      const text = await api.post(`composition/${article}`, 'fields=content', {
        'content-type': 'text/plain',
      });
      expect(text.status).toBe(415);
      const malformed = await api.post(`composition/${article}`, '{"fields":', {});
      expect(malformed.status).toBe(400);
      const query = await api.post(`composition/${article}?fields=content`, {});
      expect(query.status).toBe(400);
      expect(query.body.error_details).toEqual({ name: 'ValidationError', fields: 'is not allowed' });
    });

    it('when the document is unknown, never published or unpublished, then 404 NotFound', async () => {
      for (const id of [999_999, draftOnly]) {
        const response = await compose(id);
        expect(response.status).toBe(404);
        expect(response.body).toEqual({
          status: 404,
          error: 'Not Found',
          error_details: { name: 'NotFound', message: `Document ${id} has no publication` },
        });
      }
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        metadata: { title: 'Gone' },
      });
      expect((await compose(documentId)).status).toBe(200);
      await unpublish(app.ctx, project.projectId, documentId);
      expect((await compose(documentId)).status).toBe(404);
    });

    it("when a token of another project asks, then each project's documents are 404 to the other", async () => {
      const mine = await otherApi.post(`composition/${article}`, {});
      expect(mine.status).toBe(404);
      expect(mine.text).not.toContain('Mapping the Streets');
      expect((await compose(otherDocument)).status).toBe(404);
      const theirs = await otherApi.post(`composition/${otherDocument}`, { fields: ['metadata'] });
      expect(theirs.status).toBe(200);
      expect(theirs.body).toEqual({ metadata: { title: 'Of another project' } });
    });

    it('when any API version is asked, then the route answers; an unknown version is 404', async () => {
      for (const version of ['v1', 'beta', '2025-03', '2025-07', '2026-01', '2026-03']) {
        const response = await api
          .withVersion(version)
          .post(`composition/${article}`, { fields: ['systemdata'] });
        expect(response.status).toBe(200);
        expect(response.body.systemdata.documentId).toBe(article);
      }
      const unknown = await api.withVersion('2024-01').post(`composition/${article}`, {});
      expect(unknown.status).toBe(404);
      expect(unknown.body.error_details.name).toBe('UnknownApiVersion');
    });
  });

  describe('fields', () => {
    it('when the body is empty or absent, then every field of the latest publication, html and design included', async () => {
      // The vendor's default `fields` is all of them: a renderer that sends `{}` reads `html`, which was missing
      // (only systemdata, metadata and content were answered).
      const response = await compose(article);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual([
        'systemdata',
        'metadata',
        'content',
        'html',
        'includes',
        'design',
      ]);
      expect(response.body.html).toBe((await compose(article, { fields: ['html'] })).body.html);
      expect(response.body.html).toContain('Mapping the Streets That Never Cool Down');
      expect(response.body.includes).toEqual(
        (await compose(article, { fields: ['includes'] })).body.includes,
      );
      expect(response.body.design).toMatchObject({ name: 'living-times', version: LIVING_TIMES.version });
      expect(response.body.systemdata).toMatchObject({
        projectId: project.projectId,
        documentId: article,
        publicationId: expect.any(Number),
        documentType: 'article',
        contentType: 'regular',
        design: LT,
      });
      expect(response.body.metadata.title).toBe('Mapping the Streets That Never Cool Down');
      expect(response.body.content[0].identifier).toBe('living-times.article-container');
      const noBody = await api.post(`composition/${article}`);
      expect(noBody.status).toBe(200);
      expect(noBody.body).toEqual(response.body);
    });

    it('when fields names each field, then exactly those are answered, in the order of the spec', async () => {
      const all = await compose(article, {
        fields: ['design', 'includes', 'html', 'content', 'metadata', 'systemdata'],
      });
      expect(all.status).toBe(200);
      expect(Object.keys(all.body)).toEqual([
        'systemdata',
        'metadata',
        'content',
        'html',
        'includes',
        'design',
      ]);
      expect(typeof all.body.html).toBe('string');
      expect(all.body.includes).toHaveLength(10);
      expect(all.body.design).toMatchObject({ name: 'living-times', version: LIVING_TIMES.version });
      expect(all.body.design.components.map((c: { name: string }) => c.name)).toContain('teaser-sidebar');
      for (const field of ['systemdata', 'metadata', 'content', 'html', 'includes', 'design']) {
        const one = await compose(article, { fields: [field, field] });
        expect(Object.keys(one.body)).toEqual([field]);
      }
    });

    it('when the publication names no design, then html and design use the project current design', async () => {
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        content: [{ id: 'p1', component: 'paragraph', content: { text: 'Plain' } }] as Content,
      });
      const response = await compose(documentId, { fields: ['html', 'design'] });
      expect(response.body.design).toMatchObject({ name: TEST_DESIGN.name, version: TEST_DESIGN.version });
      // TEST_DESIGN has no templates: a component falls back to a div per directive.
      expect(response.body.html).toBe('<div class="paragraph"><div>Plain</div></div>');
    });
  });

  describe('metadata.preload', () => {
    let referring: number;
    let author: number;

    beforeAll(async () => {
      author = ids.get(314)!;
      ({ documentId: referring } = await createPublishedDocument(app.ctx, project.projectId, {
        metadata: {
          title: 'Refers',
          relatedArticle: { $ref: 'document', reference: { id: String(ids.get(321)) } },
          draftArticle: { $ref: 'document', reference: { id: String(draftOnly) } },
          foreign: { $ref: 'document', reference: { id: String(otherDocument) } },
          authors: { $ref: 'documents', references: [{ id: String(author) }, { id: String(draftOnly) }] },
          untouched: { $ref: 'document', reference: { id: String(ids.get(323)) } },
        },
      }));
    });

    it('when preload names reference properties, then published targets resolve to {systemdata, metadata}', async () => {
      const response = await compose(referring, {
        fields: ['metadata'],
        metadata: {
          preload: { relatedArticle: true, authors: true, draftArticle: true, foreign: true, missing: true },
        },
      });
      expect(response.status).toBe(200);
      const { metadata } = response.body;
      const related = (await api.post(`composition/${ids.get(321)}`, { fields: ['systemdata', 'metadata'] }))
        .body;
      expect(metadata.relatedArticle).toEqual({
        $ref: 'document',
        reference: { id: String(ids.get(321)) },
        isPreloaded: true,
        value: { systemdata: related.systemdata, metadata: related.metadata },
      });
      expect(metadata.authors.references[0]).toMatchObject({
        id: String(author),
        isPreloaded: true,
        value: { systemdata: { documentId: author, documentType: 'data-record' } },
      });
      expect(metadata.untouched).toEqual({ $ref: 'document', reference: { id: String(ids.get(323)) } });
    });

    it('when a target is only a draft or of another project, then it stays unresolved and nothing of it leaks', async () => {
      const response = await compose(referring, {
        fields: ['metadata'],
        metadata: { preload: { authors: true, draftArticle: true, foreign: true } },
      });
      const { metadata } = response.body;
      expect(metadata.draftArticle).toEqual({
        $ref: 'document',
        reference: { id: String(draftOnly) },
        isPreloaded: false,
      });
      expect(metadata.foreign).toEqual({
        $ref: 'document',
        reference: { id: String(otherDocument) },
        isPreloaded: false,
      });
      expect(metadata.authors.references[1]).toEqual({ id: String(draftOnly), isPreloaded: false });
      expect(response.text).not.toContain('SECRET DRAFT TITLE');
      expect(response.text).not.toContain('Of another project');
    });

    it('when a reference repeats more than 1000 times, then only the first 1000 get a value', async () => {
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        metadata: {
          title: 'Repeats',
          authors: {
            $ref: 'documents',
            references: Array.from({ length: 1001 }, () => ({ id: String(author) })),
          },
        },
      });
      const response = await compose(documentId, {
        fields: ['metadata'],
        metadata: { preload: { authors: true } },
      });
      expect(response.status).toBe(200);
      const { references } = response.body.metadata.authors;
      expect(references[999]).toMatchObject({
        isPreloaded: true,
        value: { systemdata: { documentId: author } },
      });
      expect(references[1000]).toEqual({ id: String(author), isPreloaded: false });
    });

    it('when the metadata names far more than 1000 documents, then the first 1000 published get a value and only what can get one is read', async () => {
      const fixtures = [313, 314, 321, 323, 325, 331].map((id) => ids.get(id)!);
      const thousandth = (
        await createPublishedDocument(app.ctx, project.projectId, { metadata: { title: 'The 1000th' } })
      ).documentId;
      const late: number[] = [];
      for (let index = 0; index < 5; index += 1) {
        const created = await createPublishedDocument(app.ctx, project.projectId, {
          metadata: { title: `Past the budget ${index}` },
        });
        late.push(created.documentId);
      }
      const none = (index: number) => 10_000_000 + index; // no document has such an id
      const references: { id: string | number }[] = [];
      // 1500 documents that resolve to nothing (a draft and another project's among them, named again and
      // again), every third reference between them to a published one: 500 values over 1508 documents, so
      // more than the first 1000 documents named must be read.
      for (let index = 0; index < 1500; index += 1) {
        references.push({ id: none(index) });
        if (index % 100 === 0) references.push({ id: String(draftOnly) }, { id: otherDocument });
        if (index % 3 === 0) references.push({ id: String(fixtures[index % fixtures.length]) });
      }
      // 499 more values from documents named before, then the 1000th from one first named here.
      for (let index = 0; index < 499; index += 1)
        references.push({ id: fixtures[index % fixtures.length]! });
      references.push({ id: String(thousandth) });
      // Some 25,000 more documents: none of them, published or not, can get a value.
      for (let index = 1500; index < 26_500; index += 1) references.push({ id: none(index) });
      for (const id of [...late, ...fixtures, thousandth]) references.push({ id: String(id) });
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        metadata: { title: 'Names many', many: { $ref: 'documents', references } },
      });

      const summaries = new Map<number, unknown>();
      for (const id of [...fixtures, thousandth]) {
        const { body } = await api.post(`composition/${id}`, { fields: ['systemdata', 'metadata'] });
        summaries.set(id, { systemdata: body.systemdata, metadata: body.metadata });
      }
      const lastValue = references.findIndex(({ id }) => Number(id) === thousandth);
      const expected = references.map((reference, index) => {
        const value = index <= lastValue ? summaries.get(Number(reference.id)) : undefined;
        return value ? { ...reference, isPreloaded: true, value } : { ...reference, isPreloaded: false };
      });

      const query = jest.spyOn(app.ctx.pool, 'query');
      try {
        const response = await compose(documentId, {
          fields: ['metadata'],
          metadata: { preload: { many: true } },
        });
        expect(response.status).toBe(200);
        const answered = response.body.metadata.many.references as { isPreloaded: boolean }[];
        expect(answered.filter((reference) => reference.isPreloaded)).toHaveLength(1000);
        expect(answered).toEqual(expected);

        // What Postgres was asked for and the API decoded: the documents named up to the 1000th value, a
        // budget's worth at a time (not the 26,500-odd the metadata names), and of those only the published.
        const preloadReads = query.mock.calls.flatMap(([text, params], index) =>
          String(text).includes('ANY($2') ? [{ params: params as unknown[], index }] : [],
        );
        const asked = preloadReads.flatMap(({ params }) => params[1] as number[]);
        expect(new Set(references.map(({ id }) => Number(id))).size).toBeGreaterThan(26_000);
        expect(asked).toHaveLength(2000);
        const results = await Promise.all(
          preloadReads.map(({ index }) => query.mock.results[index]!.value as Promise<{ rows: unknown[] }>),
        );
        const decoded = results.flatMap(({ rows }) =>
          rows.map((row) => (row as { documentId: number }).documentId),
        );
        expect(decoded.sort((a, b) => a - b)).toEqual([...fixtures, thousandth].sort((a, b) => a - b));
      } finally {
        query.mockRestore();
      }
    });

    it('when preload is false or absent for a property, then it is answered as stored', async () => {
      const response = await compose(referring, {
        fields: ['metadata'],
        metadata: { preload: { relatedArticle: false } },
      });
      expect(response.body.metadata.relatedArticle).toEqual({
        $ref: 'document',
        reference: { id: String(ids.get(321)) },
      });
    });
  });

  describe('resolveIncludes', () => {
    const teased = (include: { resolvedValue: { content: { content: { documentId: number } }[] } }) =>
      include.resolvedValue.content.map((item) => item.content.documentId);

    it("when the fixture's teaser includes are resolved, then each names its component and directive", async () => {
      const response = await compose(article, { fields: ['includes'], resolveIncludes: true });
      expect(response.status).toBe(200);
      const { includes } = response.body;
      // Depth-first; a component's containers and directives come in the order Postgres keeps jsonb keys.
      const resolved = includes.map((include: { componentId: string; directiveName: string }) => [
        include.componentId,
        include.directiveName,
        teased(include as never),
      ]);
      expect(resolved).toHaveLength(10);
      expect(resolved).toEqual(
        expect.arrayContaining([
          ['doc-3613c80qkl', 'embed', [ids.get(314)]],
          ['doc-369engg7w4', 'embed', [ids.get(313)]],
          ['doc-h69ldg0uq7', 'embed', [ids.get(323)]],
          ['doc-1z9i7cfhhl', 'embed', [ids.get(331)]],
          // 330 was never published: its teasers resolve to nothing.
          ['doc-2097umgo8n', 'embed', []],
          ['doc-w9o1p010oa', 'embed', [ids.get(321)]],
          // The footer's teaser stack has no id: it is named by its position.
          ['0.footer.0', 'teaser1-left', [ids.get(323)]],
          ['0.footer.0', 'teaser1-right', [ids.get(331)]],
          ['0.footer.0', 'teaser2-left', []],
          ['0.footer.0', 'teaser2-right', [ids.get(325)]],
        ]),
      );
      const sidebar = includes.find(
        (include: { componentId: string }) => include.componentId === 'doc-h69ldg0uq7',
      );
      expect(sidebar.resolvedValue.content[0]).toEqual({
        id: `include-${ids.get(323)}`,
        component: 'teaser',
        content: {
          documentId: ids.get(323),
          layout: 'sidebar-embed',
          systemdata: expect.objectContaining({ documentId: ids.get(323), contentType: 'regular' }),
          metadata: expect.objectContaining({ title: loadPublication('articles/323.json').metadata.title }),
        },
      });
      expect(response.text).not.toContain('SECRET DRAFT TITLE');
    });

    it('when an include references a list, then its published documents resolve in editor order, up to its limit', async () => {
      const [a, b, c] = [ids.get(321)!, ids.get(323)!, ids.get(325)!];
      const lists = documentListQueries(app.ctx.pool);
      const listId = await lists.replace(project.projectId, 'front', [a, draftOnly, b, c]);
      const foreignList = await lists.replace(other.projectId, 'theirs', [otherDocument]);
      const embed = (id: string, params: Record<string, unknown>) => ({
        id,
        component: 'embed',
        identifier: 'test-design.embed',
        content: { teaser: { service: 'teaser-list', params } },
      });
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        content: [
          embed('two', { list: { $ref: 'list', reference: { id: listId } }, limit: 2 }),
          embed('all', { listId: String(listId) }),
          // The magazine's legacy list include names its limit `count`.
          embed('counted', { listId, count: 2 }),
          embed('foreign', { list: { $ref: 'list', reference: { id: foreignList } } }),
          embed('nothing', { size: 'large' }),
          embed('foreign-document', { mediaId: otherDocument }),
          embed('doc-and-docs', {
            first: { $ref: 'document', reference: { id: String(c) } },
            more: { $ref: 'documents', references: [{ id: String(a) }, { id: String(c) }] },
          }),
        ] as Content,
      });
      const response = await compose(documentId, { resolveIncludes: true });
      expect(Object.keys(response.body)).toEqual([
        'systemdata',
        'metadata',
        'content',
        'html',
        'includes',
        'design',
      ]);
      const byComponent = Object.fromEntries(
        response.body.includes.map((include: never) => [
          (include as { componentId: string }).componentId,
          teased(include),
        ]),
      );
      const { 'doc-and-docs': referenced, ...fromLists } = byComponent;
      expect(fromLists).toEqual({
        two: [a, b],
        all: [a, b, c],
        counted: [a, b],
        foreign: [],
        'foreign-document': [],
      });
      // Two params naming c (once with a): each document once, in the order Postgres keeps the params.
      expect(referenced).toHaveLength(2);
      expect(referenced).toEqual(expect.arrayContaining([a, c]));
      expect(response.body.includes[0].resolvedValue.content[0].component).toBe('teaser-list');
      expect(response.text).not.toContain('Of another project');
    });

    it('when includes name many lists, then each resolves and all are read in one query', async () => {
      const [a, b, c] = [ids.get(321)!, ids.get(323)!, ids.get(325)!];
      const lists = documentListQueries(app.ctx.pool);
      const listIds: number[] = [];
      for (let index = 0; index < 30; index += 1) {
        listIds.push(
          await lists.replace(project.projectId, `many-${index}`, index % 2 ? [c, a] : [b, draftOnly]),
        );
      }
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        content: listIds.map((listId, index) => ({
          id: `l${index}`,
          component: 'embed',
          identifier: 'test-design.embed',
          content: { teaser: { service: 'teaser-list', params: { listId } } },
        })),
      });
      const query = jest.spyOn(app.ctx.pool, 'query');
      try {
        const response = await compose(documentId, { fields: ['includes'] });
        expect(response.status).toBe(200);
        expect(response.body.includes.map(teased)).toEqual(
          listIds.map((_, index) => (index % 2 ? [c, a] : [b])),
        );
        const listReads = query.mock.calls.filter(([text]) => String(text).includes('document_list_items'));
        expect(listReads).toHaveLength(1);
      } finally {
        query.mockRestore();
      }
    });

    it('when includes ask for more than 1000 documents in all, then those past that resolve to nothing', async () => {
      const [a, b] = [ids.get(321)!, ids.get(323)!];
      const listId = await documentListQueries(app.ctx.pool).replace(project.projectId, 'budget', [a, b]);
      // Each include counts its limit: 100 × 10 reach the budget, the 101st asks for nothing.
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        content: Array.from({ length: 101 }, (_, index) => ({
          id: `t${index}`,
          component: 'embed',
          identifier: 'test-design.embed',
          content: { teaser: { service: 'teaser-list', params: { listId, limit: 10 } } },
        })),
      });
      const response = await compose(documentId, { fields: ['includes'] });
      expect(response.status).toBe(200);
      const { includes } = response.body;
      expect(includes).toHaveLength(101);
      expect(teased(includes[99])).toEqual([a, b]);
      expect(includes[100]).toEqual({
        componentId: 't100',
        directiveName: 'teaser',
        resolvedValue: { content: [] },
      });
    });

    it('when an include param lists some 150,000 document references, then it resolves, not a 500', async () => {
      // A 2 MB content holds that many; they were spread as the arguments of one push(): a RangeError.
      const references = Array.from({ length: 150_000 }, (_, index) => ({
        id: index === 0 ? ids.get(321) : draftOnly,
      }));
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        content: [
          {
            id: 'many',
            component: 'embed',
            content: { teaser: { service: 'teaser', params: { docs: { $ref: 'documents', references } } } },
          },
        ],
      });
      const response = await compose(documentId, { fields: ['includes'] });
      expect(response.status).toBe(200);
      expect(response.body.includes.map(teased)).toEqual([[ids.get(321)]]);
    });

    it('when includes are asked for with resolveIncludes false, then includes is empty', async () => {
      const response = await compose(article, { fields: ['includes'], resolveIncludes: false });
      expect(response.body).toEqual({ includes: [] });
      const implied = await compose(article, { fields: ['includes'] });
      expect(implied.body.includes).toHaveLength(10);
    });
  });

  describe('html', () => {
    let hostile: number;

    beforeAll(async () => {
      ({ documentId: hostile } = await createPublishedDocument(app.ctx, project.projectId, {
        design: LT,
        content: [
          para(
            'p-rich',
            'Tides &amp; <em>storms</em> <script>alert(1)</script><img src=x onerror="alert(2)">',
          ),
          {
            id: 'h-embed',
            identifier: 'living-times.free-html',
            content: { 'free-html': '<p>Map</p><script>steal()</script>' },
          },
          {
            id: 'i-bad',
            identifier: 'living-times.image',
            content: { image: { url: 'javascript:alert(3)' }, caption: '"><b>bold</b>' },
          },
          {
            id: 'i-ok',
            identifier: 'living-times.image',
            content: {
              image: { url: 'https://img.example/a.jpg?x="1"', alt: 'A "quoted" alt' },
              caption: 'Fine',
            },
          },
          {
            id: 'l-bad',
            identifier: 'living-times.link-box',
            content: { link: { href: 'javascript:alert(4)' }, text: 'Nowhere' },
          },
          {
            id: 'l-ok',
            identifier: 'living-times.link-box',
            content: { link: { href: 'https://example.com/a', target: '_blank' }, text: 'Somewhere' },
          },
        ] as Content,
      }));
    });

    it('when html is asked for, then the design templates render with the content made safe', async () => {
      const response = await compose(hostile, { fields: ['html'] });
      expect(response.status).toBe(200);
      expect(response.body.html).toBe(
        '<div class="lt-paragraph"><div>Tides &amp; <em>storms</em> &lt;script&gt;alert(1)&lt;/script&gt;' +
          '&lt;img /&gt;</div></div>' +
          '<div class="lt-free-html"><div><p>Map</p></div></div>' +
          '<div class="lt-image"><img><div>"&gt;<b>bold</b></div></div>' +
          '<div class="lt-image"><img src="https://img.example/a.jpg?x=&quot;1&quot;" alt="A &quot;quoted&quot; alt">' +
          '<div>Fine</div></div>' +
          '<div class="lt-link-box"><a><span>Nowhere</span></a></div>' +
          '<div class="lt-link-box"><a href="https://example.com/a" target="_blank" rel="noopener noreferrer"><span>Somewhere</span></a></div>',
      );
      expect(response.body.html).not.toMatch(/<script|javascript:|onerror=|doc-/);
    });

    it('when renderDirectiveInfo is true, then components and directives carry their markers', async () => {
      const response = await compose(hostile, {
        fields: ['html'],
        renderOptions: { renderDirectiveInfo: true },
      });
      expect(response.body.html).toContain(
        '<div class="lt-paragraph" data-component-name="paragraph" data-component-id="p-rich">' +
          '<div data-directive-name="text" data-directive-type="editable">Tides',
      );
      expect(response.body.html).toContain('<img data-directive-name="image" data-directive-type="image">');
      const withIncludes = await compose(article, {
        fields: ['html'],
        renderOptions: { renderDirectiveInfo: true },
      });
      expect(withIncludes.body.html).toContain(
        '<div class="lt-teaser-sidebar" data-component-name="teaser-sidebar" data-component-id="doc-h69ldg0uq7">' +
          '<div data-directive-name="embed" data-directive-type="include" data-include-service="teaser"></div></div>',
      );
      expect(withIncludes.body.html).toContain('data-component-id="0.footer.0"');
      expect(withIncludes.body.html).toContain('data-directive-type="container"');
      const without = await compose(article, { fields: ['html'] });
      expect(without.body.html).not.toMatch(/data-directive|data-component|doc-/);
      expect(without.body.html).toContain('<div class="lt-article-container"><div><div class="lt-head">');
    });

    it('when an unknown component was stored with text as its content, then it renders as an empty div at once', async () => {
      // Imports up to 2025-11 keep content as sent; the text's characters were rendered one directive each,
      // and a long text kept the process busy for minutes.
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        design: LT,
        content: [
          { id: 'odd', component: 'legacy-box', content: 'abc' },
          { id: 'long', component: 'legacy-box', content: 'x'.repeat(1_000_000) },
        ] as unknown as Content,
      });
      const started = Date.now();
      const response = await compose(documentId, { fields: ['html'] });
      expect(response.status).toBe(200);
      expect(response.body.html).toBe('<div class="legacy-box"></div><div class="legacy-box"></div>');
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('when an unknown component holds some 120,000 short text directives, then each renders as its text', async () => {
      // About 2 MB of content; each directive went through sanitize-html, a parser each, and the request kept
      // every other one of the process waiting.
      const count = 120_000;
      const content: Record<string, string> = {};
      for (let index = 0; index < count; index += 1) content[`k${index.toString(36)}`] = `t${index}`;
      content.k5 = 'a > b "c" \'d\'';
      content.kzz = 'x <i>y</i> <script>z()</script> & w';
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        design: LT,
        content: [{ id: 'many', component: 'legacy-box', content }] as Content,
      });
      const response = await compose(documentId, { fields: ['html'] });
      expect(response.status).toBe(200);
      const html = response.body.html as string;
      expect(html.startsWith('<div class="legacy-box"><div>')).toBe(true);
      expect(html.endsWith('</div></div>')).toBe(true);
      expect(html.match(/<div>/g)).toHaveLength(count);
      for (const index of [0, 1, 36, 4321, 99_999, count - 1]) expect(html).toContain(`<div>t${index}</div>`);
      expect(html).toContain('<div>a &gt; b "c" \'d\'</div>');
      expect(html).toContain('<div>x <i>y</i> &lt;script&gt;z()&lt;/script&gt; &amp; w</div>');
      expect(html).not.toContain('<div>t5</div>');
    });

    it('when a component holds 90,000 markup directives, then each is made safe and the process keeps answering meanwhile', async () => {
      // About 2 MB. Each '<b>n</b>' took a sanitize-html call (about 12 s for the request), each '<p>n' still
      // does: the render now lets the event loop run every 10 ms instead of holding it to the end.
      const count = 90_000;
      const content: Record<string, string> = {};
      for (let index = 0; index < count; index += 1) {
        content[`k${index.toString(36)}`] = index % 3 === 0 ? `<p>${index}` : `<b>${index}</b>`;
      }
      content.k5 = '<b onclick="x()">5</b><script>y()</script>';
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        design: LT,
        content: [{ id: 'many', component: 'legacy-box', content }] as Content,
      });
      let longestGap = 0;
      let last = performance.now();
      const ticker = setInterval(() => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - last);
        last = now;
      }, 5);
      const started = performance.now();
      const response = await compose(documentId, { fields: ['html'] }).finally(() => clearInterval(ticker));
      const took = performance.now() - started;
      expect(response.status).toBe(200);
      const html = response.body.html as string;
      expect(html.match(/<div>/g)).toHaveLength(count);
      for (const index of [1, 2, 4321, count - 1]) expect(html).toContain(`<div><b>${index}</b></div>`);
      for (const index of [0, 3, 4320]) expect(html).toContain(`<div>&lt;p&gt;${index}</div>`);
      expect(html).toContain('<div><b>5</b>&lt;script&gt;y()&lt;/script&gt;</div>');
      // Reading the 2 MB row and writing the answer still hold the loop a while, the render not.
      expect(longestGap).toBeLessThan(Math.max(1000, took / 3));
    });
  });

  describe('component conditions', () => {
    let conditioned: number;

    beforeAll(async () => {
      ({ documentId: conditioned } = await createPublishedDocument(app.ctx, project.projectId, {
        design: LT,
        content: [
          para('always', 'Always'),
          para('future', 'From 2030', { dateTime: { gte: '2030-01-01T00:00:00Z' } }),
          para('german', 'German only', { brands: ['de'] }),
          {
            id: 'german-teaser',
            identifier: 'living-times.teaser-sidebar',
            conditions: { brands: ['de'] },
            content: { embed: { service: 'teaser', params: { mediaId: ids.get(321) } } },
          },
        ] as Content,
      }));
    });

    const visible = async (body: Record<string, unknown>) => {
      const response = await compose(conditioned, { fields: ['content', 'html', 'includes'], ...body });
      expect(response.status).toBe(200);
      return {
        content: response.body.content.map((component: { id: string }) => component.id),
        html: [...(response.body.html as string).matchAll(/<div>([^<]+)<\/div>/g)].map((match) => match[1]),
        includes: response.body.includes.map((include: { componentId: string }) => include.componentId),
      };
    };

    it('when nothing is asked, then now and the default brand drop components in content, html and includes', async () => {
      expect(await visible({})).toEqual({ content: ['always'], html: ['Always'], includes: [] });
    });

    it('when componentConditions asks for another brand or time, then those components are kept everywhere', async () => {
      expect(await visible({ componentConditions: { brand: 'de' } })).toEqual({
        content: ['always', 'german', 'german-teaser'],
        html: ['Always', 'German only'],
        includes: ['german-teaser'],
      });
      expect(
        await visible({ componentConditions: JSON.stringify({ dateTime: '2031-01-01T00:00:00Z' }) }),
      ).toEqual({
        content: ['always', 'future'],
        html: ['Always', 'From 2030'],
        includes: [],
      });
    });

    it('when a command set a dateTime bound with more than 9 fraction digits, then the bound is read, not failed closed', async () => {
      // The commands take any RFC 3339 date-time; the component was hidden from every read for good.
      const { documentId } = await createPublishedDocument(app.ctx, project.projectId, {
        design: LT,
        content: [para('started', 'Started in 2020'), para('ends', 'Ends in 2020')] as Content,
      });
      const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:write']);
      const patched = await apiClient(app.url, token).patch(`documents/${documentId}/commands`, {
        commands: [
          {
            operation: 'setComponentCondition',
            componentId: 'started',
            conditionName: 'dateTime',
            value: { gte: '2020-01-01T00:00:00.1234567891Z' },
          },
          {
            operation: 'setComponentCondition',
            componentId: 'ends',
            conditionName: 'dateTime',
            value: { lt: '2020-06-01T00:00:00.000000000001+02:00' },
          },
          { operation: 'publish' },
        ],
      });
      expect(patched.status).toBe(204);
      const ids = async (componentConditions?: unknown) => {
        const response = await compose(documentId, { fields: ['content'], componentConditions });
        expect(response.status).toBe(200);
        return response.body.content.map((component: { id: string }) => component.id);
      };
      expect(await ids()).toEqual(['started']);
      expect(await ids({ dateTime: '2020-03-01T00:00:00.0000000001Z' })).toEqual(['started', 'ends']);
      expect(await ids({ dateTime: '2019-12-31T23:59:59.9999999999Z' })).toEqual(['ends']);
    });

    it('when ignoreComponentConditions is true, then every component stays', async () => {
      expect((await visible({ ignoreComponentConditions: true })).content).toEqual([
        'always',
        'future',
        'german',
        'german-teaser',
      ]);
    });
  });
});
