import { createApiClient, revokeApiClient } from '../../src/commands/api-clients';
import { importDocumentsNow } from '../../src/commands/import-documents';
import { documentQueries } from '../../src/db/queries/documents';
import { ApiVersion } from '../../src/domain/api-versions';
import { PLANNER_TOKEN_SECONDS } from '../../src/domain/planner-integration';
import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { commitWhenBlocked } from '../helpers/held-transaction';
import { apiClient, envelope, type ApiResponse } from '../helpers/http';
import { tokenAnswer } from '../../src/http/routes/planner-integration/planner-integration.schema';

const PLANNER_ON = { planner: { elements: { enabled: true }, integration: { enabled: true } } };

describe('planner-integration (the planning tool follows publication state)', () => {
  let app: TestApp;
  let project: { projectId: number; channelId: number; handle: string };
  /** A planner client with a secret: the credentials a planning tool is configured with. */
  let credentials: { clientId: string; secret: string };
  let tool: ReturnType<typeof apiClient>;
  let editor: ReturnType<typeof apiClient>;

  async function clientWithSecret(projectId: number, scopes = ['planner'], expiresInSeconds?: number) {
    const { client, secret } = await createApiClient(app.ctx.pool, app.ctx.config.auth.jwtSecret, {
      projectId,
      name: 'planning tool',
      scopes,
      withSecret: true,
      ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }),
    });
    return { clientId: client.id, secret: secret! };
  }

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

  /** The token request as a planning tool sends it: a form, with HTTP Basic credentials. */
  async function requestToken(
    options: { authorization?: string; body?: string; contentType?: string; version?: string } = {},
  ) {
    const headers: Record<string, string> = {
      'content-type': options.contentType ?? 'application/x-www-form-urlencoded',
    };
    const authorization =
      'authorization' in options ? options.authorization : basic(credentials.clientId, credentials.secret);
    if (authorization !== undefined) headers.authorization = authorization;
    // The legacy segment exists in these versions only.
    const legacy = ['v1', 'beta', '2025-03'].includes(options.version ?? '');
    const segment = legacy ? 'legacy-planner-integration' : 'planner-integration';
    const response = await fetch(`${app.url}/api/${options.version ?? '2026-03'}/${segment}/oauth/token`, {
      method: 'POST',
      headers,
      body: options.body ?? 'grant_type=client_credentials',
    });
    // Tests read whatever JSON the API answered, as a client would.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  }

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx, { config: PLANNER_ON });
    credentials = await clientWithSecret(project.projectId);
    tool = apiClient(app.url, (await tokenFor(app.ctx, project.projectId, ['planner'])).token);
    editor = apiClient(
      app.url,
      (await tokenFor(app.ctx, project.projectId, ['public-api:read', 'public-api:write'])).token,
    );
  });
  afterAll(() => app.close());

  describe('POST planner-integration/oauth/token', () => {
    it('when a tool sends its client credentials, then a short-lived planner token that the integration accepts', async () => {
      const response = await requestToken();
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        token_type: 'Bearer',
        expires_in: PLANNER_TOKEN_SECONDS,
        scope: 'planner',
      });
      // The answer's zod schema, from which the OpenAPI description's is generated, holds the real answer.
      expect(tokenAnswer.safeParse(response.body).error).toBeUndefined();
      expect(response.headers.get('cache-control')).toBe('no-store');
      const claims = JSON.parse(
        Buffer.from(response.body.access_token.split('.')[1], 'base64url').toString(),
      );
      expect(claims).toMatchObject({
        projectId: project.projectId,
        scope: 'planner',
        jti: credentials.clientId,
      });
      expect(claims.exp - claims.iat).toBe(PLANNER_TOKEN_SECONDS);

      const withToken = apiClient(app.url, response.body.access_token);
      const doc = await createDraftDocument(app.ctx, project);
      expect((await withToken.post('planner-integration/statuses', { documentIds: [doc.id] })).status).toBe(
        200,
      );
      // planner is all it may do.
      expect((await withToken.get('publicationEvents')).status).toBe(403);
    });

    it('when a form sends grant_type or scope twice, then 400 saying each must be given once', async () => {
      // RFC 6749 §3.1: no parameter more than once. Parsed into a list, a repeated client_credentials was
      // refused as "must be 'client_credentials'", the value the client had sent.
      const response = await requestToken({
        body: 'grant_type=client_credentials&grant_type=client_credentials&scope=planner&scope=planner',
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual(
        envelope(400, 'Bad Request', {
          name: 'ValidationError',
          grant_type: 'must be given once (RFC 6749 §3.1)',
          scope: 'must be given once (RFC 6749 §3.1)',
        }),
      );
    });

    it('when the request is JSON, then it works the same', async () => {
      const response = await requestToken({
        contentType: 'application/json',
        body: JSON.stringify({ grant_type: 'client_credentials', scope: 'planner' }),
      });
      expect(response.status).toBe(200);
      expect(response.body.scope).toBe('planner');
    });

    it('when credentials are missing, malformed, unknown or wrong, then 401 InvalidClient with a Basic challenge', async () => {
      const plain = await tokenFor(app.ctx, project.projectId, ['planner']);
      const cases: (string | undefined)[] = [
        undefined,
        `Bearer ${plain.token}`,
        'Basic not-base64!',
        basic('not-a-uuid', credentials.secret),
        basic(credentials.clientId, 'wrong'),
        basic(credentials.clientId, ''),
        basic('3b241101-e2bb-4255-8caf-4136c566a962', credentials.secret),
        // A client without a secret cannot log in with one.
        basic(plain.clientId, 'anything'),
      ];
      for (const authorization of cases) {
        const response = await requestToken({ authorization });
        expect([authorization, response.status]).toEqual([authorization, 401]);
        expect(response.body).toEqual(envelope(401, 'Unauthorized', { name: 'InvalidClient' }));
        expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm="broadsheet"/);
      }
    });

    it('when the body is neither a form nor JSON, then 415 saying what was sent, whatever the credentials', async () => {
      const response = await requestToken({ contentType: 'text/plain' });
      expect(response.status).toBe(415);
      expect(response.body).toEqual(
        envelope(415, 'Unsupported Media Type', {
          name: 'UnsupportedMediaType',
          message:
            'Send the token request as application/x-www-form-urlencoded or application/json (got text/plain)',
        }),
      );
      // A body without any Content-Type (it said "got undefined").
      const untyped = await fetch(`${app.url}/api/2026-03/planner-integration/oauth/token`, {
        method: 'POST',
        headers: { authorization: basic(credentials.clientId, credentials.secret) },
        body: new Blob(['grant_type=client_credentials']),
      });
      expect(untyped.status).toBe(415);
      expect(await untyped.json()).toEqual(
        envelope(415, 'Unsupported Media Type', {
          name: 'UnsupportedMediaType',
          message:
            'Send the token request as application/x-www-form-urlencoded or application/json (no Content-Type was sent)',
        }),
      );
    });

    it('when the grant type or the scope is not what these tokens are, then 400 naming the parameter', async () => {
      const noGrant = await requestToken({ body: '' });
      expect(noGrant.body).toEqual(
        envelope(400, 'Bad Request', { name: 'ValidationError', grant_type: "must be 'client_credentials'" }),
      );
      const password = await requestToken({ body: 'grant_type=password&username=a&password=b' });
      expect(password.body.error_details).toEqual({
        name: 'ValidationError',
        grant_type: "must be 'client_credentials'",
      });
      const scope = await requestToken({
        body: 'grant_type=client_credentials&scope=planner%20public-api:read',
      });
      expect(scope.body.error_details).toEqual({
        name: 'ValidationError',
        scope: "must be 'planner', the only scope these tokens carry",
      });
    });

    it('when the client lacks the planner scope, then 403; when the integration is off for its project, then 400 ConfigurationError', async () => {
      const reader = await clientWithSecret(project.projectId, ['public-api:read']);
      const forbidden = await requestToken({ authorization: basic(reader.clientId, reader.secret) });
      expect(forbidden.body).toEqual(
        envelope(403, 'Forbidden', { access_token: 'The request requires higher privileges' }),
      );

      const off = await createTestProject(app.ctx, { config: { planner: { elements: { enabled: true } } } });
      const offClient = await clientWithSecret(off.projectId);
      const refused = await requestToken({ authorization: basic(offClient.clientId, offClient.secret) });
      expect(refused.body).toEqual(
        envelope(400, 'Bad Request', {
          name: 'ConfigurationError',
          message: `The planner integration is not enabled for project '${off.handle}' (projectId=${off.projectId})`,
        }),
      );
    });

    it('when the client is revoked, then no new token, and the ones it had stop working at once', async () => {
      const doomed = await clientWithSecret(project.projectId);
      const issued = await requestToken({ authorization: basic(doomed.clientId, doomed.secret) });
      const withToken = apiClient(app.url, issued.body.access_token);
      const doc = await createDraftDocument(app.ctx, project);
      expect((await withToken.post('planner-integration/statuses', { documentIds: [doc.id] })).status).toBe(
        200,
      );
      await revokeApiClient(app.ctx.pool, doomed.clientId);
      expect((await requestToken({ authorization: basic(doomed.clientId, doomed.secret) })).status).toBe(401);
      const after = await withToken.post('planner-integration/statuses', { documentIds: [doc.id] });
      expect(after.body).toEqual(
        envelope(401, 'Unauthorized', { access_token: 'The access token was revoked.' }),
      );
    });

    it('when the client expires sooner than an hour, then the token expires with it', async () => {
      const brief = await clientWithSecret(project.projectId, ['planner'], 120);
      const response = await requestToken({ authorization: basic(brief.clientId, brief.secret) });
      expect(response.body.expires_in).toBeGreaterThan(100);
      expect(response.body.expires_in).toBeLessThanOrEqual(120);
    });
  });

  describe('POST planner-integration/statuses', () => {
    it('when no token is sent, then 401; without the planner scope, then 403; a text body, 415', async () => {
      expect(
        (await apiClient(app.url).post('planner-integration/statuses', { documentIds: [1] })).status,
      ).toBe(401);
      const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:read', 'enrichment']);
      expect(
        (await apiClient(app.url, token).post('planner-integration/statuses', { documentIds: [1] })).status,
      ).toBe(403);
      expect(
        (await tool.post('planner-integration/statuses', '[1]', { 'content-type': 'text/plain' })).status,
      ).toBe(415);
    });

    it('when documentIds is missing, empty, too long or holds a bad id, then 400 naming the path', async () => {
      expect((await tool.post('planner-integration/statuses', { ids: [1] })).body.error_details).toEqual({
        name: 'ValidationError',
        documentIds: 'is required',
        ids: 'is not allowed',
      });
      expect(
        (await tool.post('planner-integration/statuses', { documentIds: [] })).body.error_details,
      ).toEqual({
        name: 'ValidationError',
        documentIds: 'must have at least 1 item',
      });
      const tooMany = await tool.post('planner-integration/statuses', {
        documentIds: Array.from({ length: 101 }, (_, i) => i + 1),
      });
      expect(tooMany.body.error_details).toEqual({
        name: 'ValidationError',
        documentIds: 'must have at most 100 items',
      });
      const bad = await tool.post('planner-integration/statuses', { documentIds: [1, 'x'] });
      expect(bad.body.error_details['documentIds.1']).toMatch(/^must be a positive integer document id/);
    });

    it('when the integration is not enabled for the project, then 400 ConfigurationError', async () => {
      const off = await createTestProject(app.ctx);
      const client = apiClient(app.url, (await tokenFor(app.ctx, off.projectId, ['planner'])).token);
      const response = await client.post('planner-integration/statuses', { documentIds: [1] });
      expect(response.body).toEqual(envelope(400, 'Bad Request', { name: 'ConfigurationError' }));
    });

    it('when documents are asked for, then each one’s state in the order asked; unknown and other projects’ ids are not-found', async () => {
      const draft = await createDraftDocument(app.ctx, project);
      const live = await createPublishedDraft(app.ctx, project);
      const changed = await createPublishedDraft(app.ctx, project);
      await editor.patch(`documents/${changed.id}/commands`, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'Changed' }],
      });
      const gone = await createPublishedDraft(app.ctx, project);
      await editor.patch(`documents/${gone.id}/commands`, { commands: [{ operation: 'unpublish' }] });
      const other = await createTestProject(app.ctx, { config: PLANNER_ON });
      const foreign = await createPublishedDraft(app.ctx, other);

      const ids = [live.id, draft.id, changed.id, gone.id, foreign.id, 987654321];
      const response = await tool.post('planner-integration/statuses', { documentIds: ids.map(String) });
      expect(response.status).toBe(200);
      const results = response.body.results as { documentId: number; status: string }[];
      expect(results.map((state) => [state.documentId, state.status])).toEqual([
        [live.id, 'published'],
        [draft.id, 'draft'],
        [changed.id, 'published'],
        [gone.id, 'unpublished'],
        [foreign.id, 'not-found'],
        [987654321, 'not-found'],
      ]);
      const liveRow = (await documentQueries(app.ctx.pool).findById(project.projectId, live.id))!;
      expect(results[0]).toEqual({
        documentId: live.id,
        status: 'published',
        publicationId: liveRow.latestPublicationId,
        hasUnpublishedChanges: false,
        version: liveRow.version,
        updatedAt: liveRow.updatedAt.toISOString(),
        firstPublicationDate: liveRow.firstPublicationDate!.toISOString(),
        lastPublicationDate: liveRow.lastPublicationDate!.toISOString(),
        publishSchedule: null,
        unpublishSchedule: null,
        embargo: null,
        elementId: null,
        publication: null,
      });
      expect(results[1]).toMatchObject({ status: 'draft', publicationId: null, firstPublicationDate: null });
      expect(results[2]).toMatchObject({ status: 'published', hasUnpublishedChanges: true });
      expect(results[3]).toMatchObject({ status: 'unpublished', publicationId: null });
      expect(results[4]).toEqual({ documentId: foreign.id, status: 'not-found' });
    });

    it('when an import sends a live document again unchanged, then it has no unpublished changes; changed, it has', async () => {
      // The import's new draft always counted as a change: a nightly sync re-sending the same content made
      // every live document read "changed" (and re-enrich stopped publishing its entities).
      const importOne = async (metadata: Record<string, unknown>, autoPublish: boolean) => {
        const job = await importDocumentsNow(app.ctx, project.projectId, ApiVersion.parse('2026-03')!, {
          systemName: 'nightly-sync',
          documents: [
            { id: 'story-9', contentType: 'regular', content: [], metadata, flags: { autoPublish } },
          ],
        });
        expect(job.state).toBe('success');
        return job.logs[0]!.document_id!;
      };
      const state = async (documentId: number) =>
        (await tool.post('planner-integration/statuses', { documentIds: [documentId] })).body.results[0];

      const documentId = await importOne({ title: 'Synced' }, true);
      expect(await state(documentId)).toMatchObject({ status: 'published', hasUnpublishedChanges: false });
      await importOne({ title: 'Synced' }, false);
      expect(await state(documentId)).toMatchObject({
        status: 'published',
        hasUnpublishedChanges: false,
        version: 2,
      });
      await importOne({ title: 'Synced again, changed' }, false);
      expect(await state(documentId)).toMatchObject({ hasUnpublishedChanges: true, version: 3 });
      await importOne({ title: 'Synced again, changed' }, false);
      expect(await state(documentId)).toMatchObject({ hasUnpublishedChanges: true, version: 4 });
    });

    it('when the version is 2025-11 or older, then a bare array; from 2026-01, {results}', async () => {
      const doc = await createDraftDocument(app.ctx, project);
      const bare = await tool
        .withVersion('2025-11')
        .post('planner-integration/statuses', { documentIds: [doc.id] });
      expect(bare.body).toEqual([expect.objectContaining({ documentId: doc.id, status: 'draft' })]);
      const legacy = await tool
        .withVersion('v1')
        .post('legacy-planner-integration/statuses', { documentIds: [doc.id] });
      expect(legacy.body).toEqual(bare.body);
      const wrapped = await tool
        .withVersion('2026-01')
        .post('planner-integration/statuses', { documentIds: [doc.id] });
      expect(wrapped.body).toEqual({ results: bare.body });
    });
  });

  describe('PUT and DELETE planner-integration/publication', () => {
    it('when no token is sent, then 401; without the planner scope, then 403', async () => {
      const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:write']);
      const statuses = async (client: ReturnType<typeof apiClient>) =>
        [
          await client.put('planner-integration/publication', { documentId: 1 }),
          await client.put('planner-integration/publication/1', {}),
          await client.delete('planner-integration/publication/1'),
        ].map((response) => response.status);
      expect(await statuses(apiClient(app.url))).toEqual([401, 401, 401]);
      expect(await statuses(apiClient(app.url, token))).toEqual([403, 403, 403]);
    });

    it('when the tool follows a publication, then its record is stored as sent and the answer is the state', async () => {
      const doc = await createPublishedDraft(app.ctx, project);
      const record = {
        documentId: doc.id,
        id: 'pub-77',
        status: 'planned',
        platform: { id: 3, name: 'Web' },
      };
      const response = await tool.put('planner-integration/publication', record);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ documentId: doc.id, status: 'published', publication: record });
      const replaced = await tool.put(`planner-integration/publication/${doc.id}`, {
        id: 'pub-77',
        status: 'done',
      });
      expect(replaced.body.publication).toEqual({ id: 'pub-77', status: 'done' });
      const states = await tool.post('planner-integration/statuses', { documentIds: [doc.id] });
      expect(states.body.results[0].publication).toEqual({ id: 'pub-77', status: 'done' });
    });

    it('when the body is malformed or names another document than the path, then 400 naming the path', async () => {
      expect((await tool.put('planner-integration/publication', { status: 'x' })).body.error_details).toEqual(
        {
          name: 'ValidationError',
          documentId: 'is required',
        },
      );
      const bad = await tool.put('planner-integration/publication/5', { documentId: 6, status: '' });
      expect(bad.body.error_details).toEqual({ name: 'ValidationError', status: 'must not be empty' });
      const mismatch = await tool.put('planner-integration/publication/5', { documentId: 6 });
      expect(mismatch.body.error_details).toEqual({
        name: 'ValidationError',
        documentId: 'must be the document of the path (5) when given',
      });
      expect((await tool.put('planner-integration/publication/abc', {})).body.error_details).toEqual({
        name: 'ValidationError',
        documentId: 'must be a positive integer',
      });
      // JSON.parse reads 1e400 as Infinity, which the stored record kept as null.
      const overflow = await tool.put('planner-integration/publication/5', '{"estimate":{"reach":1e400}}');
      expect(overflow.body.error_details).toEqual({
        name: 'ValidationError',
        'estimate.reach': expect.stringMatching(
          /^must be a number of at most 1\.7976931348623157e\+308 in size/,
        ),
      });
      const huge = await tool.put('planner-integration/publication/5', { notes: 'x'.repeat(70 * 1024) });
      expect(huge.body.error_details).toEqual({
        name: 'ValidationError',
        body: 'must be at most 65536 bytes as JSON',
      });
    });

    it('when the document is unknown or another project’s, then 404 and nothing is stored', async () => {
      const other = await createTestProject(app.ctx, { config: PLANNER_ON });
      const foreign = await createDraftDocument(app.ctx, other);
      for (const documentId of [foreign.id, 987654321]) {
        const response = await tool.put(`planner-integration/publication/${documentId}`, { id: 'x' });
        expect(response.body).toEqual(
          envelope(404, 'Not Found', { name: 'NotFound', message: `Document ${documentId} not found` }),
        );
        expect((await tool.delete(`planner-integration/publication/${documentId}`)).status).toBe(404);
      }
      const stored = await app.ctx.pool.query('SELECT 1 FROM planner_publications WHERE document_id = $1', [
        foreign.id,
      ]);
      expect(stored.rowCount).toBe(0);
    });

    it('when the tool stops following, then 204, the record is gone and the document untouched; again, 404', async () => {
      const doc = await createPublishedDraft(app.ctx, project);
      await tool.put(`planner-integration/publication/${doc.id}`, { id: 'p1' });
      const response = await tool.delete(`planner-integration/publication/${doc.id}`);
      expect(response.status).toBe(204);
      const states = await tool.post('planner-integration/statuses', { documentIds: [doc.id] });
      expect(states.body.results[0]).toMatchObject({ status: 'published', publication: null });
      const again = await tool.delete(`planner-integration/publication/${doc.id}`);
      expect(again.body).toEqual(
        envelope(404, 'Not Found', { message: `The publication of document ${doc.id} is not followed` }),
      );
    });

    /** The tool's record of a followed publication as stored, or undefined when it is not followed. */
    const followedRecord = async (documentId: number) =>
      (
        await app.ctx.pool.query<{ record: unknown }>(
          'SELECT record FROM planner_publications WHERE document_id = $1',
          [documentId],
        )
      ).rows[0]?.record;

    const NO_ENTITY_TAG =
      'If-Match cannot hold: a followed publication has no entity tag to match. Send If-Unmodified-Since ' +
      'instead, or If-None-Match: * to write only one that does not exist yet';

    it('when If-Match names an entity tag (say a weak one, as reads carry), then 412 and the record is kept; `*` holds once followed', async () => {
      const doc = await createPublishedDraft(app.ctx, project);
      const path = `planner-integration/publication/${doc.id}`;
      // Not followed yet: any If-Match, `*` too, asks to change only what exists (RFC 9110 §13.1.1).
      for (const ifMatch of ['*', '"1"']) {
        const response = await tool.put(path, { id: 'p0' }, { 'if-match': ifMatch });
        expect(response.body).toEqual({
          status: 412,
          error: 'Precondition Failed',
          error_details: {
            name: 'PreconditionFailed',
            message:
              `If-Match cannot hold: the publication of document ${doc.id} is not followed (it asks to ` +
              'change only what exists)',
          },
        });
      }
      expect(await followedRecord(doc.id)).toBeUndefined();

      const first = await tool.put(path, { id: 'p1' });
      // The answer is no representation a GET gives, so it has no ETag to send back (RFC 9110 §9.3.4).
      expect([first.status, first.headers.get('etag')]).toEqual([200, null]);
      const etag = 'W/"8-M1u4Sc28uxk+zyXJvSTJaEkyIGw"';
      for (const ifMatch of [etag, '"1"', `"x", ${etag}`]) {
        for (const stale of [
          await tool.put(path, { id: 'p2' }, { 'if-match': ifMatch }),
          await tool.put(
            'planner-integration/publication',
            { documentId: doc.id, id: 'p2' },
            { 'if-match': ifMatch },
          ),
          await tool.delete(path, { 'if-match': ifMatch }),
        ]) {
          expect(stale.body).toEqual({
            status: 412,
            error: 'Precondition Failed',
            error_details: { name: 'PreconditionFailed', message: NO_ENTITY_TAG },
          });
        }
      }
      expect(await followedRecord(doc.id)).toEqual({ id: 'p1' });

      const any = await tool.put(path, { id: 'p3' }, { 'if-match': '*' });
      expect([any.status, any.body.publication]).toEqual([200, { id: 'p3' }]);
      expect((await tool.delete(path, { 'if-match': '*' })).status).toBe(204);
      expect(await followedRecord(doc.id)).toBeUndefined();
      // Preconditions are judged on a target that exists (RFC 9110 §13.2.1): an unknown document stays a 404.
      const missing = await tool.put('planner-integration/publication/987654321', {}, { 'if-match': '"1"' });
      expect(missing.status).toBe(404);
      expect((await tool.delete(path, { 'if-match': '"1"' })).status).toBe(404);
    });

    it('when If-None-Match is `*` (start following only), then the first PUT follows and the next is 412, the record kept', async () => {
      const doc = await createPublishedDraft(app.ctx, project);
      const path = `planner-integration/publication/${doc.id}`;
      const created = await tool.put(path, { id: 'first' }, { 'if-none-match': '*' });
      expect([created.status, created.body.publication]).toEqual([200, { id: 'first' }]);
      for (const ifNoneMatch of ['*', '"a", *']) {
        for (const again of [
          await tool.put(path, { id: 'second' }, { 'if-none-match': ifNoneMatch }),
          await tool.put(
            'planner-integration/publication',
            { documentId: doc.id, id: 'second' },
            { 'if-none-match': ifNoneMatch },
          ),
        ]) {
          expect(again.body).toEqual({
            status: 412,
            error: 'Precondition Failed',
            error_details: {
              name: 'PreconditionFailed',
              message:
                'If-None-Match: * cannot hold: the followed publication exists (it asks to change only what does not)',
            },
          });
        }
      }
      expect(await followedRecord(doc.id)).toEqual({ id: 'first' });
      // A list of tags holds: there is no entity tag for it to name.
      const tagged = await tool.put(path, { id: 'third' }, { 'if-none-match': 'W/"x"' });
      expect([tagged.status, tagged.body.publication]).toEqual([200, { id: 'third' }]);
    });

    it('when If-Unmodified-Since is before the record was last written, then 412 and it is kept; from then on it holds', async () => {
      const doc = await createPublishedDraft(app.ctx, project);
      const path = `planner-integration/publication/${doc.id}`;
      await tool.put(path, { id: 'kept' });
      const writtenAt = '2026-01-15T12:00:05.731Z';
      await app.ctx.pool.query('UPDATE planner_publications SET updated_at = $2 WHERE document_id = $1', [
        doc.id,
        writtenAt,
      ]);
      const before = 'Thu, 15 Jan 2026 12:00:04 GMT';
      for (const refused of [
        await tool.put(path, { id: 'no' }, { 'if-unmodified-since': before }),
        await tool.delete(path, { 'if-unmodified-since': before }),
      ]) {
        expect(refused.body).toEqual({
          status: 412,
          error: 'Precondition Failed',
          error_details: {
            name: 'PreconditionFailed',
            message:
              `The followed publication was changed after If-Unmodified-Since (${before}): its updatedAt is ` +
              `${writtenAt}. Read it again (POST planner-integration/statuses)`,
            updatedAt: writtenAt,
          },
        });
      }
      expect(await followedRecord(doc.id)).toEqual({ id: 'kept' });
      // Ignored when it is no HTTP-date; at the second it was written, it holds.
      expect((await tool.put(path, { id: 'yes' }, { 'if-unmodified-since': 'yesterday' })).status).toBe(200);
      await app.ctx.pool.query('UPDATE planner_publications SET updated_at = $2 WHERE document_id = $1', [
        doc.id,
        writtenAt,
      ]);
      const held = await tool.delete(path, { 'if-unmodified-since': 'Thu, 15 Jan 2026 12:00:05 GMT' });
      expect(held.status).toBe(204);
    });

    it('when the tool follows a publication while a config apply re-indexes the document, then the apply does not wait for the tool', async () => {
      const doc = await createPublishedDraft(app.ctx, project);
      await tool.put(`planner-integration/publication/${doc.id}`, { id: 'p-first' });
      // The tool's PUT is held half-way, after it found the document, by a transaction holding its record.
      let bumped: number[] | undefined;
      const put = await commitWhenBlocked(
        app.ctx.pool,
        {
          text: 'SELECT 1 FROM planner_publications WHERE project_id = $1 AND document_id = $2 FOR UPDATE',
          values: [project.projectId, doc.id],
        },
        () => tool.put(`planner-integration/publication/${doc.id}`, { id: 'p-second' }),
        async () => {
          // What an apply of a new project config writes on each published document (its index version),
          // given a few seconds: it waits for nobody but another writer of the document.
          const apply = await app.ctx.pool.connect();
          try {
            await apply.query('BEGIN');
            await apply.query("SET LOCAL lock_timeout = '3s'");
            bumped = await documentQueries(apply).bumpPublishedIndexVersions(project.projectId, [doc.id]);
            await apply.query('COMMIT');
          } catch (error) {
            await apply.query('ROLLBACK');
            throw error;
          } finally {
            apply.release();
          }
        },
      );
      expect(bumped).toEqual([doc.id]);
      expect(put.status).toBe('fulfilled');
      const answer = (put as PromiseFulfilledResult<ApiResponse>).value;
      expect(answer.status).toBe(200);
      expect(answer.body.publication).toEqual({ id: 'p-second' });
    });

    it('when the tool follows a publication while an editor runs a document command on it, then the command does not wait for the tool', async () => {
      const doc = await createPublishedDraft(app.ctx, project);
      await tool.put(`planner-integration/publication/${doc.id}`, { id: 'p-first' });
      let edited: ApiResponse | 'still waiting' | undefined;
      const put = await commitWhenBlocked(
        app.ctx.pool,
        {
          text: 'SELECT 1 FROM planner_publications WHERE project_id = $1 AND document_id = $2 FOR UPDATE',
          values: [project.projectId, doc.id],
        },
        () => tool.put(`planner-integration/publication/${doc.id}`, { id: 'p-second' }),
        async () => {
          edited = await Promise.race([
            editor.patch(`documents/${doc.id}/commands`, {
              commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'Edited' }],
            }),
            new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 3_000)),
          ]);
        },
      );
      expect(edited === 'still waiting' ? edited : edited?.status).toBe(204);
      expect(put.status).toBe('fulfilled');
      expect((put as PromiseFulfilledResult<ApiResponse>).value.body).toMatchObject({
        documentId: doc.id,
        publication: { id: 'p-second' },
      });
    });

    it('when the integration is off, then 400 ConfigurationError and nothing is stored', async () => {
      const off = await createTestProject(app.ctx);
      const doc = await createDraftDocument(app.ctx, off);
      const client = apiClient(app.url, (await tokenFor(app.ctx, off.projectId, ['planner'])).token);
      for (const response of [
        await client.put('planner-integration/publication', { documentId: doc.id }),
        await client.put(`planner-integration/publication/${doc.id}`, {}),
        await client.delete(`planner-integration/publication/${doc.id}`),
      ]) {
        expect(response.body).toEqual(envelope(400, 'Bad Request', { name: 'ConfigurationError' }));
      }
      expect(
        (await app.ctx.pool.query('SELECT 1 FROM planner_publications WHERE document_id = $1', [doc.id]))
          .rowCount,
      ).toBe(0);
    });
  });

  describe('versions', () => {
    it('when legacy-planner-integration is used in v1, beta or 2025-03, then it works like planner-integration', async () => {
      const doc = await createDraftDocument(app.ctx, project);
      for (const version of ['v1', 'beta', '2025-03']) {
        expect((await requestToken({ version })).status).toBe(200);
        const legacy = tool.withVersion(version);
        expect((await legacy.put(`legacy-planner-integration/publication/${doc.id}`, {})).status).toBe(200);
        expect(
          (await legacy.put('legacy-planner-integration/publication', { documentId: doc.id })).status,
        ).toBe(200);
        expect((await legacy.delete(`legacy-planner-integration/publication/${doc.id}`)).status).toBe(204);
        expect((await legacy.post('planner-integration/statuses', { documentIds: [doc.id] })).status).toBe(
          200,
        );
      }
    });

    it('when legacy-planner-integration is used from 2025-05 on, then the plain 404 of an unknown route', async () => {
      for (const version of ['2025-05', '2025-09', '2026-03']) {
        const base = `/api/${version}/legacy-planner-integration`;
        const token = await fetch(`${app.url}${base}/oauth/token`, { method: 'POST' });
        expect(token.status).toBe(404);
        expect(await token.json()).toEqual({
          status: 404,
          error: 'Not Found',
          error_details: { url: `${base}/oauth/token` },
        });
        const client = tool.withVersion(version);
        for (const response of [
          await client.post('legacy-planner-integration/statuses', { documentIds: [1] }),
          await client.put('legacy-planner-integration/publication', { documentId: 1 }),
          await client.put('legacy-planner-integration/publication/1', {}),
          await client.delete('legacy-planner-integration/publication/1'),
        ]) {
          expect(response.status).toBe(404);
          expect(Object.keys(response.body.error_details)).toEqual(['url']);
        }
      }
    });
  });

  it('end to end: a planning tool creates an element, edits it, the document is published through commands, the tool sees the publication', async () => {
    // The tool logs in with its client credentials.
    const login = await requestToken();
    const planning = apiClient(app.url, login.body.access_token);

    const created = await planning.post('planner/element', {
      id: `story-e2e-${Date.now()}`,
      title: 'Storm warning',
    });
    expect(created.status).toBe(201);
    const documentId = created.body.id as number;
    const followed = await planning.put(`planner-integration/publication/${documentId}`, {
      id: 'web-1',
      status: 'planned',
    });
    expect(followed.body).toMatchObject({
      documentId,
      status: 'draft',
      publicationId: null,
      elementId: expect.any(String),
    });

    const edited = await planning.put(`planner/element/${documentId}`, {
      title: 'Storm warning for the coast',
      metadata: { flag: 'weather' },
    });
    expect(edited.status).toBe(200);

    // The newsroom writes and publishes it through document commands.
    const published = await editor.patch(`documents/${documentId}/commands`, {
      commands: [
        { operation: 'setMetadataProperty', propertyName: 'description', value: 'Gusts up to 120 km/h' },
        { operation: 'publish' },
      ],
    });
    expect(published.status).toBe(204);
    const live = await editor.get(`documents/${documentId}/latestPublication`);
    expect(live.body.metadata).toEqual({
      title: 'Storm warning for the coast',
      flag: 'weather',
      description: 'Gusts up to 120 km/h',
    });

    // The tool sees the publication.
    const states = await planning.post('planner-integration/statuses', { documentIds: [documentId] });
    expect(states.body.results).toEqual([
      expect.objectContaining({
        documentId,
        status: 'published',
        publicationId: live.body.systemdata.publicationId,
        hasUnpublishedChanges: false,
        lastPublicationDate: live.body.systemdata.lastPublicationDate,
        publication: { id: 'web-1', status: 'planned' },
      }),
    ]);
  });
});
