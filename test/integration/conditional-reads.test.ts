import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, indexNow } from '../helpers/documents';
import { createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, type ApiResponse } from '../helpers/http';
import { storeImage } from '../helpers/media';

/**
 * What a poller or widget built on fetch sends when it revalidates: fetch adds `Cache-Control: no-cache` and
 * `Pragma: no-cache` to any request whose caller set If-None-Match (the Fetch standard; browsers and Node's
 * undici alike). That `no-cache` is for caches; the API is the origin and answers the validator: 304.
 */
describe('conditional reads as fetch sends them (If-None-Match with Cache-Control: no-cache)', () => {
  let app: TestApp;
  let uncached: TestApp;
  let projectId: number;
  let documentId: number;
  let draftId: number;
  let listId: number;
  let mediaId: string;
  let imageKey: string;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp();
    uncached = await startTestApp({ env: { SEARCH_CACHE: 'off' } });
    const project = await createTestProject(app.ctx);
    projectId = project.projectId;
    token = (await tokenFor(app.ctx, projectId)).token;
    ({ documentId } = await createPublishedDocument(app.ctx, projectId, { metadata: { title: 'Polled' } }));
    await indexNow(app.ctx, projectId, [documentId]);
    draftId = (await createDraftDocument(app.ctx, project)).id;
    listId = (await app.ctx.commands.createDocumentList({ projectId, name: 'Polled list' })).id;
    await app.ctx.commands.addToDocumentList({ listId, documentIds: [documentId] });
    imageKey = `${projectId}/2026/11/27/polled.png`;
    ({ id: mediaId } = await storeImage(app.ctx, app.ctx.objects, {
      projectId,
      key: imageKey,
      bytes: Buffer.from('not really a png, but bytes'),
    }));
  });
  afterAll(async () => {
    await uncached?.close();
    await app?.close();
  });

  /** The reads, their ids named: the fixtures are made in beforeAll, after the tests are named. */
  const reads = [
    'documents/latestPublications?limit=5',
    'publications/search?fields=id&limit=5',
    'document-lists',
    'document-lists/{list}',
    'documents/{draft}/latestDraft',
    'documents/{document}/latestPublication',
    'mediaLibrary/{media}',
    'mediaLibrary?ids={media}',
  ];
  const pathOf = (read: string) =>
    read
      .replace('{list}', String(listId))
      .replace('{draft}', String(draftId))
      .replace('{document}', String(documentId))
      .replaceAll('{media}', mediaId);

  /** Every read is checked on a process with the search answer cache and on one without. */
  const servers: [string, () => TestApp][] = [
    ['the search answer cache on', () => app],
    ['SEARCH_CACHE=off', () => uncached],
  ];

  describe.each(servers)('with %s', (_name, server) => {
    it.each(reads)(
      'when %s is revalidated with its ETag and no-cache, then 304 with no body',
      async (read) => {
        const api = apiClient(server().url, token);
        const path = pathOf(read);
        const first = await api.get(path);
        expect(first.status).toBe(200);
        const etag = first.headers.get('etag')!;
        expect(etag).toMatch(/^W\/"/);

        // Exactly what fetch sends; spelled out so the test does not rest on the client adding it.
        const spelledOut = await api.get(path, {
          'if-none-match': etag,
          'cache-control': 'no-cache',
          pragma: 'no-cache',
        });
        expect({ path, status: spelledOut.status, text: spelledOut.text }).toEqual({
          path,
          status: 304,
          text: '',
        });
        expect(spelledOut.headers.get('etag')).toBe(etag);
        // And what a caller of fetch writes: only If-None-Match (fetch adds the rest).
        expect((await api.get(path, { 'if-none-match': etag })).status).toBe(304);
        // A weak comparison, a list and `*` hold as before; another tag does not.
        expect((await api.get(path, { 'if-none-match': `"x", ${etag.slice(2)}` })).status).toBe(304);
        expect((await api.get(path, { 'if-none-match': '*' })).status).toBe(304);
        const other = await api.get(path, { 'if-none-match': 'W/"1-other"' });
        expect(other.status).toBe(200);
        expect(other.body).toEqual(first.body);
      },
    );
  });

  /** What a read with an If-Match that names tags answers: its answers' entity tags are weak. */
  const weakTagsOnly = {
    status: 412,
    error: 'Precondition Failed',
    error_details: {
      name: 'PreconditionFailed',
      message:
        "If-Match cannot hold: the API's answers carry weak entity tags, which If-Match's strong comparison " +
        'never matches (RFC 9110 §13.1.1). To revalidate a copy, send its ETag in If-None-Match',
    },
  };

  describe.each(servers)('If-Match on reads (RFC 9110 §13.1.1), with %s', (_name, server) => {
    it.each(reads)(
      'when %s is read with If-Match naming tags (its own ETag too), then 412 in the envelope; `*` holds',
      async (read) => {
        const api = apiClient(server().url, token);
        const path = pathOf(read);
        const first = await api.get(path);
        expect(first.status).toBe(200);
        const etag = first.headers.get('etag')!;
        for (const ifMatch of [etag, etag.slice(2), '"x"', `"x", ${etag}`]) {
          const response = await api.get(path, { 'if-match': ifMatch });
          expect({ path, ifMatch, body: response.body }).toEqual({ path, ifMatch, body: weakTagsOnly });
        }
        // If-Match is judged before If-None-Match (RFC 9110 §13.2.2): a failing one is a 412, not a 304.
        const both = await api.get(path, { 'if-match': '"x"', 'if-none-match': etag });
        expect(both.status).toBe(412);
        const any = await api.get(path, { 'if-match': '*' });
        expect([any.status, any.body]).toEqual([200, first.body]);
        expect((await api.get(path, { 'if-match': '*', 'if-none-match': etag })).status).toBe(304);
        const head = await fetch(`${server().url}/api/2026-03/${path}`, {
          method: 'HEAD',
          headers: { authorization: `Bearer ${token}`, 'if-match': etag },
        });
        expect(head.status).toBe(412);
      },
    );
  });

  it('when a read with If-Match would not be a 2xx (no token, unknown document), then that answer (RFC 9110 §13.2.1)', async () => {
    const api = apiClient(app.url, token);
    expect((await apiClient(app.url).get('documents/latestPublications', { 'if-match': '"x"' })).status).toBe(
      401,
    );
    const missing = await api.get('documents/999999999/latestPublication', { 'if-match': '"x"' });
    expect(missing.body).toEqual({
      status: 404,
      error: 'Not Found',
      error_details: expect.objectContaining({ name: 'NotFound' }) as unknown,
    });
    // Not a read of the API's data, but an answer with an ETag all the same: the same rule.
    expect((await api.get('health', { 'if-match': '"x"' })).body).toEqual(weakTagsOnly);
    expect((await api.get('health', { 'if-match': '*' })).status).toBe(200);
  });

  it('when a read answers an error (400, 401, 404, 412, 416; GET or HEAD), then it carries no ETag and no Last-Modified', async () => {
    const api = apiClient(app.url, token);
    const image = `mediaLibrary/serve-image/${imageKey}`;
    const errors: [string, ApiResponse][] = [
      ['unknown document', await api.get('documents/999999999/latestPublication')],
      ['bad limit', await api.get('documents/latestPublications?limit=1000')],
      ['unknown route', await api.get('no-such-route')],
      ['no token', await apiClient(app.url).get('documents/latestPublications')],
      ['If-Match on a read', await api.get(pathOf(reads[0]!), { 'if-match': '"x"' })],
      ['If-Match on an image', await api.get(image, { 'if-match': '"x"' })],
      ['range beyond an image', await api.get(image, { range: 'bytes=100000-' })],
      ['unknown image', await api.get(`mediaLibrary/serve-image/${projectId}/no/such.png`)],
    ];
    expect(
      errors.map(([name, answer]) => [
        name,
        answer.status,
        answer.headers.get('content-type'),
        answer.headers.get('etag'),
        answer.headers.get('last-modified'),
        (answer.body as { status?: unknown } | undefined)?.status,
      ]),
    ).toEqual([
      ['unknown document', 404, 'application/json; charset=utf-8', null, null, 404],
      ['bad limit', 400, 'application/json; charset=utf-8', null, null, 400],
      ['unknown route', 404, 'application/json; charset=utf-8', null, null, 404],
      ['no token', 401, 'application/json; charset=utf-8', null, null, 401],
      ['If-Match on a read', 412, 'application/json; charset=utf-8', null, null, 412],
      ['If-Match on an image', 412, 'application/json; charset=utf-8', null, null, 412],
      ['range beyond an image', 416, 'application/json; charset=utf-8', null, null, 416],
      ['unknown image', 404, 'application/json; charset=utf-8', null, null, 404],
    ]);

    // A HEAD's error: the same head (its Content-Length the GET's body's), no body, no validator.
    const missing = errors[0]![1];
    const head = await fetch(`${app.url}/api/2026-03/documents/999999999/latestPublication`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${token}` },
    });
    expect([
      head.status,
      head.headers.get('etag'),
      head.headers.get('content-length'),
      await head.text(),
    ]).toEqual([404, null, String(Buffer.byteLength(missing.text)), '']);
    // A success keeps its ETag, and its 304 too.
    const found = `documents/${documentId}/latestPublication`;
    const ok = await api.get(found);
    expect(ok.headers.get('etag')).toMatch(/^W\/"/);
    const notModified = await api.get(found, { 'if-none-match': ok.headers.get('etag')! });
    expect([notModified.status, notModified.headers.get('etag')]).toEqual([304, ok.headers.get('etag')]);
  });

  it('when the answer changed since, then the old ETag with no-cache gets 200 and the new answer', async () => {
    const api = apiClient(app.url, token);
    const path = `document-lists/${listId}`;
    const before = await api.get(path);
    const { documentId: added } = await createPublishedDocument(app.ctx, projectId);
    await app.ctx.commands.addToDocumentList({ listId, documentIds: [added] });
    const after = await api.get(path, { 'if-none-match': before.headers.get('etag')! });
    expect(after.status).toBe(200);
    expect(after.body.documents).toHaveLength(2);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
  });

  it('when a HEAD is revalidated with no-cache, then 304', async () => {
    const url = `${app.url}/api/2026-03/documents/latestPublications?limit=5`;
    const headers = { authorization: `Bearer ${token}` };
    const etag = (await fetch(url, { method: 'HEAD', headers })).headers.get('etag')!;
    const again = await fetch(url, {
      method: 'HEAD',
      headers: { ...headers, 'if-none-match': etag, 'cache-control': 'no-cache', pragma: 'no-cache' },
    });
    expect(again.status).toBe(304);
  });

  it('when serve-image is revalidated with no-cache (If-None-Match, or If-Modified-Since alone), then 304', async () => {
    const url = `${app.url}/api/2026-03/mediaLibrary/serve-image/${imageKey}`;
    const headers = { authorization: `Bearer ${token}` };
    const first = await fetch(url, { headers });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const noCache = { 'cache-control': 'no-cache', pragma: 'no-cache' };
    const byTag = await fetch(url, {
      headers: { ...headers, ...noCache, 'if-none-match': first.headers.get('etag')! },
    });
    expect(byTag.status).toBe(304);
    const byDate = await fetch(url, {
      headers: { ...headers, ...noCache, 'if-modified-since': first.headers.get('last-modified')! },
    });
    expect(byDate.status).toBe(304);
  });
});

/**
 * A write's answer carries a validator only where it is the representation a GET of the same URL gives (RFC 9110
 * §9.3.4, §8.8): PATCH mediaLibrary/{id}, whose ETag is then the GET's. Express's ETag over any other answer
 * named a body no GET returns, so it never revalidated anything.
 */
describe('validators of write answers', () => {
  let app: TestApp;
  let project: { projectId: number; channelId: number; handle: string };
  let api: ReturnType<typeof apiClient>;
  let tool: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx, {
      config: { planner: { elements: { enabled: true }, integration: { enabled: true } } },
    });
    const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:read', 'public-api:write']);
    api = apiClient(app.url, token);
    tool = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, ['planner'])).token);
  });
  afterAll(() => app?.close());

  const setTitle = (value: string) => ({
    patches: [{ operation: 'setMetadataProperty', propertyName: 'title', value }],
  });

  it.each(['2025-03', '2026-03'])(
    'when an entry is patched in %s, then the answer carries the ETag GET mediaLibrary/{id} gives: sent in If-None-Match, 304',
    async (version) => {
      const { id } = await storeImage(app.ctx, app.ctx.objects, {
        projectId: project.projectId,
        key: `${project.projectId}/2026/11/28/patched-${version}.png`,
        bytes: Buffer.from('bytes of an image'),
      });
      const versioned = api.withVersion(version);
      const before = await versioned.get(`mediaLibrary/${id}`);
      const patched = await versioned.patch(`mediaLibrary/${id}`, setTitle('after'));
      expect(patched.status).toBe(200);
      const etag = patched.headers.get('etag');
      expect(etag).toMatch(/^W\/".+"$/);
      expect(etag).not.toBe(before.headers.get('etag'));
      const revalidated = await versioned.get(`mediaLibrary/${id}`, {
        'if-none-match': etag!,
        'cache-control': 'no-cache',
      });
      expect([revalidated.status, revalidated.text]).toEqual([304, '']);
      const read = await versioned.get(`mediaLibrary/${id}`);
      expect([read.headers.get('etag'), read.body]).toEqual([etag, patched.body]);

      // A patch that changes nothing writes nothing: its answer is the same entry, with the same ETag, and a
      // copy made before it still revalidates.
      const unchanged = await versioned.patch(`mediaLibrary/${id}`, setTitle('after'));
      expect([unchanged.status, unchanged.headers.get('etag'), unchanged.body]).toEqual([
        200,
        etag,
        read.body,
      ]);
      const still = await versioned.get(`mediaLibrary/${id}`, {
        'if-none-match': etag!,
        'cache-control': 'no-cache',
      });
      expect(still.status).toBe(304);
    },
  );

  it('when any other write answers (PUT, POST, DELETE, an error), then it carries no ETag and no Last-Modified', async () => {
    const { id: mediaId } = await storeImage(app.ctx, app.ctx.objects, {
      projectId: project.projectId,
      key: `${project.projectId}/2026/11/28/guarded.png`,
      bytes: Buffer.from('bytes of another image'),
    });
    const followed = await createPublishedDraft(app.ctx, project);
    const elementId = `element-${Date.now()}`;
    const created = await tool.post('planner/element', { id: elementId, title: 'Planned' });
    const documentId = created.body.id as number;
    const answers: [string, ApiResponse][] = [
      ['POST planner/element', created],
      ['PUT planner/element', await tool.put('planner/element', { id: elementId, title: 'Re-planned' })],
      [
        'PUT planner/element/{documentId}',
        await tool.put(`planner/element/${documentId}`, { title: 'Again' }),
      ],
      [
        'PUT planner-integration/publication/{documentId}',
        await tool.put(`planner-integration/publication/${followed.id}`, { id: 'p1' }),
      ],
      [
        'PUT planner-integration/publication, 412',
        await tool.put(
          'planner-integration/publication',
          { documentId: followed.id, id: 'p2' },
          { 'if-none-match': '*' },
        ),
      ],
      [
        'POST planner-integration/statuses',
        await tool.post('planner-integration/statuses', { documentIds: [followed.id] }),
      ],
      [
        'PATCH mediaLibrary/{id}, 412',
        await api.patch(`mediaLibrary/${mediaId}`, setTitle('no'), { 'if-match': '"1"' }),
      ],
      ['PATCH mediaLibrary/{id}, 404', await api.patch('mediaLibrary/no-such-entry', setTitle('no'))],
      [
        'PATCH documents/{id}/commands',
        await api.patch(`documents/${documentId}/commands`, {
          commands: [{ operation: 'setMetadataProperty', propertyName: 'summary', value: 'edited' }],
        }),
      ],
      ['DELETE planner/element/{documentId}', await tool.delete(`planner/element/${documentId}`)],
      [
        'DELETE planner-integration/publication/{documentId}',
        await tool.delete(`planner-integration/publication/${followed.id}`),
      ],
    ];
    expect(
      answers.map(([name, answer]) => [
        name,
        answer.status,
        answer.headers.get('etag'),
        answer.headers.get('last-modified'),
      ]),
    ).toEqual([
      ['POST planner/element', 201, null, null],
      ['PUT planner/element', 200, null, null],
      ['PUT planner/element/{documentId}', 200, null, null],
      ['PUT planner-integration/publication/{documentId}', 200, null, null],
      ['PUT planner-integration/publication, 412', 412, null, null],
      ['POST planner-integration/statuses', 200, null, null],
      ['PATCH mediaLibrary/{id}, 412', 412, null, null],
      ['PATCH mediaLibrary/{id}, 404', 404, null, null],
      ['PATCH documents/{id}/commands', 204, null, null],
      ['DELETE planner/element/{documentId}', 204, null, null],
      ['DELETE planner-integration/publication/{documentId}', 204, null, null],
    ]);
  });
});
