import { documentQueries } from '../../src/db/queries/documents';
import { startTestApp, type TestApp } from '../helpers/app';
import { buildContent, createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';

describe('PATCH documents/{documentId}/commands', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let project: { projectId: number; channelId: number };
  let clientId: string;

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx);
    const client = await tokenFor(app.ctx, project.projectId);
    clientId = client.clientId;
    api = apiClient(app.url, client.token);
  });
  afterAll(async () => {
    await app.close();
  });

  const draft = () => createDraftDocument(app.ctx, project);
  const published = () => createPublishedDraft(app.ctx, project);
  const load = async (id: number) => (await documentQueries(app.ctx.pool).findById(project.projectId, id))!;
  const commands = (id: number, body: unknown, client = api) =>
    client.patch(`documents/${id}/commands`, body);
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  const countRows = async (sql: string, id: number) =>
    Number((await app.ctx.pool.query<{ n: string }>(sql, [id])).rows[0]!.n);
  const eventCount = (id: number) =>
    countRows('SELECT count(*) AS n FROM publication_events WHERE document_id = $1', id);
  const transactionCount = (id: number) =>
    countRows('SELECT count(*) AS n FROM document_command_transactions WHERE document_id = $1', id);
  const publicationCount = (id: number) =>
    countRows('SELECT count(*) AS n FROM publications WHERE document_id = $1', id);
  const jobCount = (queue: string, id: number) =>
    countRows(
      `SELECT count(*) AS n FROM pgboss.job WHERE name = '${queue}' AND (data->>'documentId')::bigint = $1`,
      id,
    );

  describe('access and input', () => {
    it('when no token or a bad token is sent, then 401; without public-api:write, then 403', async () => {
      const doc = await draft();
      const body = { commands: [{ operation: 'publish' }] };
      expect((await commands(doc.id, body, apiClient(app.url))).status).toBe(401);
      expect((await commands(doc.id, body, apiClient(app.url, 'a.b.c'))).status).toBe(401);
      const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:read']);
      const forbidden = await commands(doc.id, body, apiClient(app.url, token));
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error_details).toEqual({
        access_token: 'The request requires higher privileges',
      });
      expect((await load(doc.id)).latestPublicationId).toBeNull();
    });

    it('when an operation is unknown, then 400 keyed commands.<index>.operation', async () => {
      const doc = await draft();
      const response = await commands(doc.id, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'x' },
          { operation: 'explode' },
        ],
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ status: 400, error: 'Bad Request' });
      expect(response.body.error_details['commands.1.operation']).toMatch(/must be one of/);
      expect((await load(doc.id)).version).toBe(doc.version);
    });

    it('when the body, a field or the documentId is invalid, then 400 naming the path', async () => {
      const doc = await draft();
      const missing = await commands(doc.id, { commands: [{ operation: 'setMetadataProperty', value: 1 }] });
      expect(missing.status).toBe(400);
      expect(missing.body.error_details).toHaveProperty(['commands.0.propertyName']);
      const empty = await commands(doc.id, { commands: [] });
      expect(empty.status).toBe(400);
      expect(empty.body.error_details).toHaveProperty(['commands']);
      const notANumber = await api.patch('documents/abc/commands', { commands: [{ operation: 'publish' }] });
      expect(notANumber.status).toBe(400);
      expect(notANumber.body.error_details).toHaveProperty(['documentId']);
    });

    it('when the document does not exist or belongs to another project, then 404 NotFound', async () => {
      const unknown = await commands(999_999_999, { commands: [{ operation: 'publish' }] });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error_details).toMatchObject({ name: 'NotFound' });
      const other = await createTestProject(app.ctx);
      const foreign = await createDraftDocument(app.ctx, other);
      const response = await commands(foreign.id, { commands: [{ operation: 'publish' }] });
      expect(response.status).toBe(404);
      expect((await load(foreign.id).catch(() => undefined))?.latestPublicationId ?? null).toBeNull();
    });

    it('when a 2025-07 operation is sent on 2025-05, then 400 naming commands.<index>.operation', async () => {
      const doc = await draft();
      const older = api.withVersion('2025-05');
      for (const command of [
        { operation: 'setEmbargo', reason: 'legal' },
        { operation: 'removeEmbargo' },
        { operation: 'addPublishSchedule', date: inAnHour() },
        { operation: 'cancelPublishSchedule' },
        { operation: 'addUnpublishSchedule', date: inAnHour() },
        { operation: 'cancelUnpublishSchedule' },
      ]) {
        const response = await commands(doc.id, { commands: [command] }, older);
        expect(response.status).toBe(400);
        expect(response.body.error_details['commands.0.operation']).toMatch(
          /not available in API version 2025-05/,
        );
      }
      const accepted = await commands(
        doc.id,
        { commands: [{ operation: 'setEmbargo', reason: 'legal' }] },
        api.withVersion('2025-07'),
      );
      expect(accepted.status).toBe(204);
    });

    it('when preserveUpdatedAt is sent before 2026-03, then 400 on preserveUpdatedAt', async () => {
      const doc = await draft();
      const response = await commands(
        doc.id,
        { preserveUpdatedAt: true, commands: [{ operation: 'publish' }] },
        api.withVersion('2026-01'),
      );
      expect(response.status).toBe(400);
      expect(response.body.error_details.preserveUpdatedAt).toMatch(/only from 2026-03/);
      expect((await load(doc.id)).latestPublicationId).toBeNull();
    });

    it('when version or preserveUpdatedAt comes as a query parameter, then 400 naming it and nothing is written', async () => {
      const doc = await draft();
      const body = { commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'lost' }] };
      for (const query of [`version=${doc.version + 5}`, 'preserveUpdatedAt=true']) {
        const response = await api.patch(`documents/${doc.id}/commands?${query}`, body);
        expect(response.status).toBe(400);
        const name = query.split('=')[0]!;
        expect(response.body).toEqual(
          envelope(400, 'Bad Request', { name: 'ValidationError', [name]: 'is not allowed' }),
        );
      }
      const after = await load(doc.id);
      expect(after.version).toBe(doc.version);
      expect(after.metadata.title).toBe('A draft');
    });

    it('when commands are sent on v1, then they run (the endpoint exists in every version)', async () => {
      const doc = await draft();
      const response = await commands(
        doc.id,
        { commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'v1' }] },
        api.withVersion('v1'),
      );
      expect(response.status).toBe(204);
      expect((await load(doc.id)).metadata.title).toBe('v1');
    });
  });

  describe('draft operations', () => {
    it('when setMetadataProperty runs, then the draft has the value, version + 1 and a new updatedAt; null removes it', async () => {
      const doc = await draft();
      const response = await commands(doc.id, {
        version: doc.version,
        commands: [
          {
            operation: 'setMetadataProperty',
            propertyName: 'title',
            value: 'New title',
            oldValue: 'A draft',
          },
          { operation: 'setMetadataProperty', propertyName: 'description', value: 'Text' },
        ],
      });
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      const after = await load(doc.id);
      expect(after.metadata).toEqual({ title: 'New title', description: 'Text' });
      expect(after.version).toBe(doc.version + 1);
      expect(after.updatedAt.getTime()).toBeGreaterThan(doc.updatedAt.getTime());
      await commands(doc.id, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'description', value: null }],
      });
      expect((await load(doc.id)).metadata).toEqual({ title: 'New title' });
    });

    it('when setMetadataProperty sets a document reference, then the draft references are stored', async () => {
      const target = await draft();
      const doc = await draft();
      const value = { $ref: 'document', reference: { id: String(target.id) } };
      expect(
        (
          await commands(doc.id, {
            commands: [{ operation: 'setMetadataProperty', propertyName: 'related', value }],
          })
        ).status,
      ).toBe(204);
      const refs = await app.ctx.pool.query(
        `SELECT target_id FROM document_references WHERE source_document_id = $1 AND source_kind = 'draft' AND location = 'metadata'`,
        [doc.id],
      );
      expect(refs.rows).toEqual([{ target_id: String(target.id) }]);
    });

    it('when setEditableDirective and removeComponent run, then the content changes accordingly', async () => {
      const doc = await draft();
      const response = await commands(doc.id, {
        commands: [
          {
            operation: 'setEditableDirective',
            componentId: 'doc-para',
            directiveName: 'text',
            value: 'Changed',
          },
          { operation: 'removeComponent', componentId: 'doc-title' },
        ],
      });
      expect(response.status).toBe(204);
      const after = await load(doc.id);
      expect(after.content.map((c) => c.id)).toEqual(['doc-para', 'doc-link', 'doc-embed', 'doc-styled']);
      expect(after.content[0]!.content).toEqual({ text: 'Changed' });
    });

    it('when setComponentCondition, setComponentStyle and setStyleDirective run, then conditions and styles change', async () => {
      const doc = await draft();
      const dateTime = { gte: '2025-01-01T00:00:00Z', lt: '2030-01-01T00:00:00Z' };
      const response = await commands(doc.id, {
        commands: [
          {
            operation: 'setComponentCondition',
            componentId: 'doc-para',
            conditionName: 'dateTime',
            value: dateTime,
          },
          {
            operation: 'setComponentCondition',
            componentId: 'doc-para',
            conditionName: 'brands',
            value: ['de'],
          },
          {
            operation: 'setComponentStyle',
            componentId: 'doc-styled',
            propertyName: 'margin',
            value: 'large',
            oldValue: 'small',
          },
          {
            operation: 'setStyleDirective',
            componentId: 'doc-styled',
            directiveName: 'appearance',
            propertyName: 'color',
            value: 'blue',
            oldValue: 'red',
          },
        ],
      });
      expect(response.status).toBe(204);
      const after = await load(doc.id);
      const para = after.content.find((c) => c.id === 'doc-para')!;
      expect(para.conditions).toEqual({ dateTime, brands: ['de'] });
      const styled = after.content.find((c) => c.id === 'doc-styled')!;
      expect(styled.styles).toEqual({ margin: 'large' });
      expect(styled.content).toMatchObject({ appearance: { color: 'blue' } });
    });

    it('when setLinkDirective sets a document link, then the link and a draft link reference are stored', async () => {
      const target = await draft();
      const doc = await draft();
      const value = { $ref: 'document', reference: { id: String(target.id) }, target: '_blank' };
      const response = await commands(doc.id, {
        commands: [
          {
            operation: 'setLinkDirective',
            componentId: 'doc-link',
            directiveName: 'link',
            value,
            oldValue: { href: 'https://example.com' },
          },
        ],
      });
      expect(response.status).toBe(204);
      const link = (await load(doc.id)).content.find((c) => c.id === 'doc-link')!;
      expect(link.content).toMatchObject({ link: value });
      const refs = await app.ctx.pool.query(
        `SELECT target_id, location FROM document_references WHERE source_document_id = $1 AND source_kind = 'draft'`,
        [doc.id],
      );
      expect(refs.rows).toContainEqual({ target_id: String(target.id), location: 'link-directive' });
    });

    it('when setLinkDirective links a document of another project or no document, then 400 and nothing is written', async () => {
      const otherProject = await createTestProject(app.ctx);
      const foreign = await createDraftDocument(app.ctx, otherProject);
      const doc = await draft();
      const linkTo = (id: string) => ({
        commands: [
          {
            operation: 'setLinkDirective',
            componentId: 'doc-link',
            directiveName: 'link',
            value: { $ref: 'document', reference: { id }, href: '/x' },
          },
          { operation: 'publish' },
        ],
      });
      for (const id of [String(foreign.id), 'abc', '99999999999999999999']) {
        const response = await commands(doc.id, linkTo(id));
        expect(response.body).toEqual(
          envelope(400, 'Bad Request', {
            message: `Command at index 0 failed: the link's document '${id}' is not a document of this project`,
            commandIndex: 0,
          }),
        );
      }
      const after = await load(doc.id);
      expect([after.version, after.latestPublicationId, after.content]).toEqual([
        doc.version,
        null,
        doc.content,
      ]);
      const refs = await app.ctx.pool.query(
        'SELECT count(*)::int AS n FROM document_references WHERE source_document_id = $1 AND target_id = $2',
        [doc.id, String(foreign.id)],
      );
      expect(refs.rows[0].n).toBe(0);
      expect((await commands(doc.id, linkTo(String(doc.id)))).status).toBe(204);
    });

    it("when setIncludeDirective's params or setMetadataProperty's value reference a document of another project or no document, then 400 naming where and nothing is written", async () => {
      const otherProject = await createTestProject(app.ctx);
      const foreign = await createPublishedDraft(app.ctx, otherProject);
      const doc = await draft();
      const ref = (id: string) => ({ $ref: 'document', reference: { id } });
      const include = (params: Record<string, unknown>) => ({
        operation: 'setIncludeDirective',
        componentId: 'doc-embed',
        directiveName: 'teaser',
        value: { params },
      });
      const metadata = (value: unknown) => ({
        operation: 'setMetadataProperty',
        propertyName: 'related',
        value,
      });
      for (const id of [String(foreign.id), 'abc', '99999999999999999999']) {
        const cases = [
          [include({ article: ref(id) }), `the include's document '${id}' (params.article) is not`],
          [
            include({ more: { $ref: 'documents', references: [{ id: String(doc.id) }, { id }] } }),
            `the include's document '${id}' (params.more) is not`,
          ],
          [metadata(ref(id)), `the document '${id}' (metadata property 'related') is not`],
          [metadata({ authors: [ref(id)] }), `the document '${id}' (metadata property 'related') is not`],
        ] as const;
        for (const [command, message] of cases) {
          const response = await commands(doc.id, { commands: [command, { operation: 'publish' }] });
          expect(response.body).toEqual(
            envelope(400, 'Bad Request', {
              message: `Command at index 0 failed: ${message} a document of this project`,
              commandIndex: 0,
            }),
          );
        }
      }
      const after = await load(doc.id);
      expect([after.version, after.latestPublicationId, after.content, after.metadata]).toEqual([
        doc.version,
        null,
        doc.content,
        doc.metadata,
      ]);
      const refs = await app.ctx.pool.query(
        'SELECT count(*)::int AS n FROM document_references WHERE source_document_id = $1',
        [doc.id],
      );
      expect(refs.rows[0].n).toBe(0);
      // The project's own documents are taken.
      const own = await commands(doc.id, {
        commands: [include({ article: ref(String(doc.id)) }), metadata(ref(String(doc.id)))],
      });
      expect(own.status).toBe(204);
    });

    it("when setComponentCondition's brands or the category metadata name a handle or id the project config does not have, then 400 naming it and nothing is written; values stored before are kept", async () => {
      // The project config has the brands ch, de and the categories news, politics, sport. The draft was
      // imported when 'old' was a brand and 'gone' a category.
      const content = buildContent().map((component) =>
        component.id === 'doc-para' ? { ...component, conditions: { brands: ['old'] } } : component,
      );
      const doc = await createDraftDocument(app.ctx, {
        ...project,
        metadata: { title: 'A draft', category: { id: 'gone' } },
        content,
      });
      const brands = (value: unknown) => ({
        operation: 'setComponentCondition',
        componentId: 'doc-para',
        conditionName: 'brands',
        value,
      });
      const category = (value: unknown) => ({
        operation: 'setMetadataProperty',
        propertyName: 'category',
        value,
      });
      const cases = [
        [brands(['de', 'dee']), "the brand 'dee' is not a brand of this project (it has: ch, de)"],
        [
          category({ id: 'sports' }),
          "the category 'sports' (metadata property 'category') is not a category of this project",
        ],
        [
          category('sports'),
          "the category 'sports' (metadata property 'category') is not a category of this project",
        ],
      ] as const;
      for (const [command, why] of cases) {
        const response = await commands(doc.id, {
          commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'New' }, command],
        });
        expect(response.body).toEqual(
          envelope(400, 'Bad Request', { message: `Command at index 1 failed: ${why}`, commandIndex: 1 }),
        );
      }
      const unchanged = await load(doc.id);
      expect([unchanged.version, unchanged.metadata, unchanged.content]).toEqual([
        doc.version,
        doc.metadata,
        doc.content,
      ]);
      // What the document already carries may be sent back with it; the project's own values are taken.
      const ok = await commands(doc.id, {
        commands: [brands(['old', 'ch']), category({ id: 'gone', label: 'Gone' }), { operation: 'publish' }],
      });
      expect(ok.status).toBe(204);
      const kept = await load(doc.id);
      expect(kept.content.find((c) => c.id === 'doc-para')!.conditions).toEqual({ brands: ['old', 'ch'] });
      expect(kept.metadata.category).toEqual({ id: 'gone', label: 'Gone' });
      const changed = await commands(doc.id, { commands: [brands(['de']), category({ id: 'sport' })] });
      expect(changed.status).toBe(204);
      const after = await load(doc.id);
      expect(after.content.find((c) => c.id === 'doc-para')!.conditions).toEqual({ brands: ['de'] });
      expect(after.metadata.category).toEqual({ id: 'sport' });
    });

    it("when setMetadataProperty's value or setIncludeDirective's params reference a media entry of another project or none, then 400 naming where and nothing is written", async () => {
      const otherProject = await createTestProject(app.ctx);
      const addEntry = (projectId: number, id: string) =>
        app.ctx.pool.query(
          `INSERT INTO media_entries (project_id, id, media_type) VALUES ($1, $2, 'image')`,
          [projectId, id],
        );
      const suffix = Date.now().toString(36);
      const ownId = `own-${suffix}`;
      const foreignId = `foreign-${suffix}`;
      await addEntry(project.projectId, ownId);
      await addEntry(otherProject.projectId, foreignId);
      const doc = await draft();
      const media = (id: string) => ({ $ref: 'mediaLibrary', reference: { id } });
      const metadata = (value: unknown) => ({
        operation: 'setMetadataProperty',
        propertyName: 'picture',
        value,
      });
      const include = (params: Record<string, unknown>) => ({
        operation: 'setIncludeDirective',
        componentId: 'doc-embed',
        directiveName: 'teaser',
        value: { params },
      });
      for (const id of [foreignId, 'no-such-entry', 'not an id/..']) {
        const cases = [
          [metadata(media(id)), `the media entry '${id}' (metadata property 'picture')`],
          [metadata({ teaser: { mediaId: id } }), `the media entry '${id}' (metadata property 'picture')`],
          [include({ image: media(id) }), `the include's media entry '${id}' (params.image)`],
        ] as const;
        for (const [command, what] of cases) {
          const response = await commands(doc.id, { commands: [command, { operation: 'publish' }] });
          expect(response.body).toEqual(
            envelope(400, 'Bad Request', {
              message: `Command at index 0 failed: ${what} is not a media library entry of this project`,
              commandIndex: 0,
            }),
          );
        }
      }
      const after = await load(doc.id);
      expect([after.version, after.latestPublicationId, after.metadata]).toEqual([
        doc.version,
        null,
        doc.metadata,
      ]);
      // The project's own entry is taken, and once published its incoming references know the document.
      const own = await commands(doc.id, {
        commands: [metadata(media(ownId)), include({ image: media(ownId) }), { operation: 'publish' }],
      });
      expect(own.status).toBe(204);
      const incoming = await api.get(`mediaLibrary/${ownId}/incomingDocumentReferences`);
      expect(incoming.status).toBe(200);
      expect(JSON.stringify(incoming.body)).toContain(String(doc.id));
    });

    it('when a document or media entry the draft references is gone, then the draft sent back with an edit is taken; a reference the request adds to a missing one is still 400 naming it', async () => {
      const target = await draft();
      const mediaId = `gone-${Date.now().toString(36)}`;
      await app.ctx.pool.query(
        `INSERT INTO media_entries (project_id, id, media_type) VALUES ($1, $2, 'image')`,
        [project.projectId, mediaId],
      );
      const doc = await draft();
      const targetRef = { $ref: 'document', reference: { id: String(target.id) } };
      const mediaRef = { $ref: 'mediaLibrary', reference: { id: mediaId } };
      // What an editor sends for every reference of the draft when it saves the whole of it.
      const references = [
        {
          operation: 'setLinkDirective',
          componentId: 'doc-link',
          directiveName: 'link',
          value: { ...targetRef, href: '/b' },
        },
        {
          operation: 'setIncludeDirective',
          componentId: 'doc-embed',
          directiveName: 'teaser',
          value: { params: { article: targetRef, image: mediaRef } },
        },
        { operation: 'setMetadataProperty', propertyName: 'related', value: targetRef },
        { operation: 'setMetadataProperty', propertyName: 'picture', value: mediaRef },
      ];
      expect((await commands(doc.id, { commands: references })).status).toBe(204);
      // No API deletes a document or a media entry; they go the way an operator would remove them.
      await app.ctx.pool.query('DELETE FROM documents WHERE id = $1', [target.id]);
      await app.ctx.pool.query('DELETE FROM media_entries WHERE project_id = $1 AND id = $2', [
        project.projectId,
        mediaId,
      ]);
      const stored = await load(doc.id);
      const typo = (text: string) => ({
        operation: 'setEditableDirective',
        componentId: 'doc-para',
        directiveName: 'text',
        value: text,
      });

      // The whole draft sent back with a typo fixed: its references are the stored ones, gone or not.
      const resent = await commands(doc.id, {
        version: stored.version,
        commands: [...references, typo('First, fixed')],
      });
      expect(resent.status).toBe(204);
      const fixed = await load(doc.id);
      expect(fixed.version).toBe(stored.version + 1);
      expect(fixed.content.find((c) => c.id === 'doc-para')!.content).toEqual({ text: 'First, fixed' });
      expect([fixed.metadata, fixed.content.filter((c) => c.id !== 'doc-para')]).toEqual([
        stored.metadata,
        stored.content.filter((c) => c.id !== 'doc-para'),
      ]);

      // A reference the request adds to a document or entry the project lacks is refused, the edit with it.
      const missingDocument = '99999999';
      const missingMedia = `never-${mediaId}`;
      const cases = [
        [
          {
            operation: 'setMetadataProperty',
            propertyName: 'more',
            value: { ...targetRef, reference: { id: missingDocument } },
          },
          `the document '${missingDocument}' (metadata property 'more') is not a document of this project`,
        ],
        [
          {
            operation: 'setIncludeDirective',
            componentId: 'doc-embed',
            directiveName: 'teaser',
            value: {
              params: {
                article: targetRef,
                image: { $ref: 'mediaLibrary', reference: { id: missingMedia } },
              },
            },
          },
          `the include's media entry '${missingMedia}' (params.image) is not a media library entry of this project`,
        ],
      ] as const;
      for (const [command, why] of cases) {
        const response = await commands(doc.id, { commands: [...references, typo('Second'), command] });
        expect(response.body).toEqual(
          envelope(400, 'Bad Request', { message: `Command at index 5 failed: ${why}`, commandIndex: 5 }),
        );
      }
      const unchanged = await load(doc.id);
      expect([unchanged.version, unchanged.metadata, unchanged.content]).toEqual([
        fixed.version,
        fixed.metadata,
        fixed.content,
      ]);

      // The check is of ids: one the stored draft references already may be used in another place too.
      const moved = await commands(doc.id, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'seeAlso', value: mediaRef }],
      });
      expect(moved.status).toBe(204);
      // Once no longer referenced, a gone entry is a new reference again, and refused.
      const dropped = await commands(doc.id, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'seeAlso', value: null },
          { operation: 'setMetadataProperty', propertyName: 'picture', value: null },
          {
            operation: 'setIncludeDirective',
            componentId: 'doc-embed',
            directiveName: 'teaser',
            value: { params: { article: targetRef } },
          },
        ],
      });
      expect(dropped.status).toBe(204);
      const readded = await commands(doc.id, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'picture', value: mediaRef }],
      });
      expect(readded.body).toEqual(
        envelope(400, 'Bad Request', {
          message: `Command at index 0 failed: the media entry '${mediaId}' (metadata property 'picture') is not a media library entry of this project`,
          commandIndex: 0,
        }),
      );
    });

    it('when setIncludeDirective sends params and overrides, then both are stored; params alone removes the overrides', async () => {
      const doc = await draft();
      const override = { id: 'o1', content: { title: 'Other' }, originalSnapshot: {}, contentProperties: {} };
      expect(
        (
          await commands(doc.id, {
            commands: [
              {
                operation: 'setIncludeDirective',
                componentId: 'doc-embed',
                directiveName: 'teaser',
                value: { params: { size: 'small' }, overrides: [override] },
              },
            ],
          })
        ).status,
      ).toBe(204);
      let embed = (await load(doc.id)).content.find((c) => c.id === 'doc-embed')!;
      expect(embed.content).toEqual({
        teaser: { service: 'teaser', params: { size: 'small' }, overrides: [override] },
      });

      expect(
        (
          await commands(doc.id, {
            commands: [
              {
                operation: 'setIncludeDirective',
                componentId: 'doc-embed',
                directiveName: 'teaser',
                value: { params: { size: 'xl' } },
              },
            ],
          })
        ).status,
      ).toBe(204);
      embed = (await load(doc.id)).content.find((c) => c.id === 'doc-embed')!;
      expect(embed.content).toEqual({ teaser: { service: 'teaser', params: { size: 'xl' } } });
    });

    it('when setIncludeDirective sends overrides without params, then 400 and nothing changes', async () => {
      const doc = await draft();
      const override = { id: 'o1', content: {}, originalSnapshot: {}, contentProperties: {} };
      const response = await commands(doc.id, {
        commands: [
          {
            operation: 'setIncludeDirective',
            componentId: 'doc-embed',
            directiveName: 'teaser',
            value: { overrides: [override] },
          },
        ],
      });
      expect(response.status).toBe(400);
      expect(response.body.error_details).toHaveProperty(['commands.0.value.overrides']);
      expect((await load(doc.id)).version).toBe(doc.version);
    });

    it('when a command names a component that does not exist, then 400 "Command at index N failed" with commandIndex', async () => {
      const doc = await draft();
      const response = await commands(doc.id, {
        commands: [{ operation: 'removeComponent', componentId: 'doc-nope' }],
      });
      expect(response.status).toBe(400);
      expect(response.body.error_details).toMatchObject({ commandIndex: 0 });
      expect(response.body.error_details.message).toMatch(/^Command at index 0 failed: /);
    });

    it('when setStyleDirective properties would make the style an include or an image, then 400 and no reference is stored', async () => {
      const doc = await draft();
      const style = (propertyName: string, value: unknown) => ({
        operation: 'setStyleDirective',
        componentId: 'doc-styled',
        directiveName: 'appearance',
        propertyName,
        value,
      });
      for (const [propertyName, value, kind] of [
        ['service', 'teaser', 'an include'],
        ['mediaId', 'no-such-entry', 'an image'],
      ] as const) {
        const response = await commands(doc.id, {
          commands: [
            style('params', { article: { $ref: 'document', reference: { id: '99999999' } } }),
            style(propertyName, value),
            { operation: 'publish' },
          ],
        });
        expect(response.body).toEqual(
          envelope(400, 'Bad Request', {
            message:
              `Command at index 1 failed: property '${propertyName}' would make directive 'appearance' read as ` +
              `${kind}, not a style`,
            commandIndex: 1,
          }),
        );
      }
      const after = await load(doc.id);
      expect([after.version, after.latestPublicationId, after.content]).toEqual([
        doc.version,
        null,
        doc.content,
      ]);
      const refs = await app.ctx.pool.query(
        'SELECT count(*)::int AS n FROM document_references WHERE source_document_id = $1',
        [doc.id],
      );
      expect(refs.rows[0].n).toBe(0);
    });

    it('when setLinkDirective names a style directive, then 400 and the style stays as it was', async () => {
      const doc = await draft();
      const response = await commands(doc.id, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'changed' },
          {
            operation: 'setLinkDirective',
            componentId: 'doc-styled',
            directiveName: 'appearance',
            value: { href: 'https://example.com' },
          },
        ],
      });
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual({
        name: 'ValidationError',
        message: "Command at index 1 failed: directive 'appearance' is not a link directive",
        commandIndex: 1,
      });
      const after = await load(doc.id);
      expect(after.version).toBe(doc.version);
      expect(after.metadata).toEqual(doc.metadata);
      expect(after.content).toEqual(doc.content);
    });
  });

  describe('conflicts and atomicity', () => {
    it('when version is outdated, then 409 with expectedVersion and currentVersion, and nothing changes', async () => {
      const doc = await draft();
      const response = await commands(doc.id, {
        version: doc.version + 5,
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'no' }],
      });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        status: 409,
        error: 'Conflict',
        error_details: {
          name: 'Conflict',
          message: 'The document you tried to update is outdated',
          expectedVersion: doc.version + 5,
          currentVersion: doc.version,
        },
      });
      expect((await load(doc.id)).metadata.title).toBe('A draft');
    });

    it("when If-Match names an entity tag (say latestDraft's), then 412 and nothing is written; `*` holds", async () => {
      const doc = await draft();
      const body = { commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'no' }] };
      const etag = (await api.get(`documents/${doc.id}/latestDraft`)).headers.get('etag')!;
      for (const ifMatch of [etag, '"1"', `"x", ${etag}`]) {
        const response = await api.patch(`documents/${doc.id}/commands`, body, { 'if-match': ifMatch });
        expect(response.body).toEqual({
          status: 412,
          error: 'Precondition Failed',
          error_details: {
            name: 'PreconditionFailed',
            message:
              'If-Match cannot hold: a document has no entity tag to match. Send the version the change is ' +
              "based on (latestDraft's systemdata.version) in the body (`version`) instead",
            currentVersion: doc.version,
          },
        });
      }
      const after = await load(doc.id);
      expect([after.version, after.metadata.title]).toEqual([doc.version, 'A draft']);
      expect(await transactionCount(doc.id)).toBe(0);

      // Preconditions are judged on a document that exists (RFC 9110 §13.2.1): an unknown one stays a 404.
      const missing = await api.patch('documents/999999999/commands', body, { 'if-match': '"1"' });
      expect(missing.status).toBe(404);
      const any = await api.patch(`documents/${doc.id}/commands`, body, { 'if-match': '*' });
      expect(any.status).toBe(204);
    });

    it('when If-Unmodified-Since is before the document last changed, then 412 and nothing is written; at its updatedAt it holds', async () => {
      const doc = await draft();
      const body = { commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'no' }] };
      const updatedAt = (await load(doc.id)).updatedAt;
      const httpDate = (ms: number) => new Date(ms).toUTCString();
      const before = httpDate(updatedAt.getTime() - 60_000);
      const response = await api.patch(`documents/${doc.id}/commands`, body, {
        'if-unmodified-since': before,
      });
      expect(response.body).toEqual({
        status: 412,
        error: 'Precondition Failed',
        error_details: {
          name: 'PreconditionFailed',
          message:
            `The document was changed after If-Unmodified-Since (${before}): its updatedAt is ` +
            `${updatedAt.toISOString()}. Read it again (latestDraft), or send the version the change is based ` +
            'on in the body (`version`)',
          currentVersion: doc.version,
          updatedAt: updatedAt.toISOString(),
        },
      });
      const after = await load(doc.id);
      expect([after.version, after.metadata.title]).toEqual([doc.version, 'A draft']);
      expect(await transactionCount(doc.id)).toBe(0);

      // Ignored (RFC 9110 §13.1.4) when it is no HTTP-date, or when If-Match is sent (`*` holds).
      const ignored: Record<string, string>[] = [
        { 'if-unmodified-since': 'yesterday' },
        { 'if-match': '*', 'if-unmodified-since': before },
      ];
      for (const headers of ignored) {
        expect((await api.patch(`documents/${doc.id}/commands`, body, headers)).status).toBe(204);
      }
      // The updatedAt a client read, cut to the second as an HTTP-date is, holds until the next change.
      const read = (await load(doc.id)).updatedAt;
      const held = await api.patch(
        `documents/${doc.id}/commands`,
        { commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'yes' }] },
        { 'if-unmodified-since': httpDate(read.getTime()) },
      );
      expect(held.status).toBe(204);
      expect((await load(doc.id)).metadata.title).toBe('yes');
      const missing = await api.patch('documents/999999999/commands', body, {
        'if-unmodified-since': before,
      });
      expect(missing.status).toBe(404);
    });

    it('when If-None-Match is `*` (change only what does not exist), then 412 and nothing is written; a tag list holds', async () => {
      const doc = await draft();
      const body = { commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'no' }] };
      for (const ifNoneMatch of ['*', '"a", *']) {
        const response = await api.patch(`documents/${doc.id}/commands`, body, {
          'if-none-match': ifNoneMatch,
        });
        expect(response.body).toEqual({
          status: 412,
          error: 'Precondition Failed',
          error_details: {
            name: 'PreconditionFailed',
            message:
              'If-None-Match: * cannot hold: the document exists (it asks to change only what does not)',
            currentVersion: doc.version,
          },
        });
      }
      expect((await load(doc.id)).metadata.title).toBe('A draft');
      expect(await transactionCount(doc.id)).toBe(0);
      const tagged = await api.patch(`documents/${doc.id}/commands`, body, { 'if-none-match': 'W/"x"' });
      expect(tagged.status).toBe(204);
    });

    it('when an oldValue differs from the current value, then 409 "Cannot update outdated value" with commandIndex', async () => {
      const doc = await draft();
      const response = await commands(doc.id, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'description', value: 'a' },
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'b', oldValue: 'not the title' },
        ],
      });
      expect(response.status).toBe(409);
      expect(response.body.error_details).toEqual({
        name: 'Conflict',
        message: 'Cannot update outdated value',
        commandIndex: 1,
      });
      expect((await load(doc.id)).metadata).toEqual({ title: 'A draft' });
    });

    it('when isPublished or isPublishedAndHasNoChanges fails, then 409 "Precondition failed" and nothing changes', async () => {
      const doc = await draft();
      const notPublished = await commands(doc.id, {
        preconditions: [{ type: 'isPublished', value: true }],
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'x' }],
      });
      expect(notPublished.status).toBe(409);
      expect(notPublished.body.error_details).toEqual({
        name: 'Conflict',
        message: "Precondition failed: 'isPublished'",
      });

      const pub = await published();
      await commands(pub.id, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'changed' }],
      });
      const changed = await commands(pub.id, {
        preconditions: [{ type: 'isPublishedAndHasNoChanges', value: true }],
        commands: [{ operation: 'publish' }],
      });
      expect(changed.status).toBe(409);
      expect(changed.body.error_details).toEqual({
        name: 'Conflict',
        message: "Precondition failed: 'isPublishedAndHasNoChanges'",
      });
      const ok = await commands(pub.id, {
        preconditions: [
          { type: 'isPublished', value: true },
          { type: 'isPublishedAndHasNoChanges', value: false },
        ],
        commands: [{ operation: 'publish' }],
      });
      expect(ok.status).toBe(204);
    });

    it('when isPublishedAndHasNoChanges is sent without a value (the vendor reference form), then it asserts the document is live and unchanged', async () => {
      const pub = await published();
      const clean = await commands(pub.id, {
        preconditions: [{ type: 'isPublishedAndHasNoChanges' }],
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'edited' }],
      });
      expect(clean.status).toBe(204);
      const edited = await commands(pub.id, {
        preconditions: [{ type: 'isPublishedAndHasNoChanges' }],
        commands: [{ operation: 'publish' }],
      });
      expect(edited.status).toBe(409);
      expect(edited.body.error_details).toEqual({
        name: 'Conflict',
        message: "Precondition failed: 'isPublishedAndHasNoChanges'",
      });
      expect((await load(pub.id)).publishedVersion).toBe(pub.version);
      // isPublished still says which state it asserts.
      const bare = await commands(pub.id, {
        preconditions: [{ type: 'isPublished' }],
        commands: [{ operation: 'publish' }],
      });
      expect(bare.status).toBe(400);
      expect(bare.body.error_details).toEqual({
        name: 'ValidationError',
        'preconditions.0.value': 'is required for isPublished',
      });
    });

    it('when a published document only gets a schedule, an embargo or a value it already has, then it still has no unpublished changes', async () => {
      const pub = await published();
      const unchanged = [
        { operation: 'addUnpublishSchedule', date: inAnHour() },
        { operation: 'setEmbargo', reason: 'legal', until: inAnHour() },
        { operation: 'setMetadataProperty', propertyName: 'title', value: pub.metadata.title },
      ];
      for (const command of unchanged) {
        expect((await commands(pub.id, { commands: [command] })).status).toBe(204);
      }
      const stillLive = await commands(pub.id, {
        preconditions: [{ type: 'isPublishedAndHasNoChanges', value: true }],
        commands: [{ operation: 'removeEmbargo' }],
      });
      expect(stillLive.status).toBe(204);
      const row = await load(pub.id);
      expect(row.version).toBe(pub.version + 4);
      expect(row.publishedVersion).toBe(row.version);

      await commands(pub.id, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'edited' }],
      });
      const edited = await commands(pub.id, {
        preconditions: [{ type: 'isPublishedAndHasNoChanges', value: true }],
        commands: [{ operation: 'cancelUnpublishSchedule' }],
      });
      expect(edited.status).toBe(409);
      // Once changed, a later schedule does not make the draft look published again.
      await commands(pub.id, { commands: [{ operation: 'cancelUnpublishSchedule' }] });
      expect((await load(pub.id)).publishedVersion).toBe(row.version);
    });

    it('when later requests put back exactly what is published, then the document has no unpublished changes again', async () => {
      const pub = await published();
      const hasNoChanges = (id: number) =>
        commands(id, {
          preconditions: [{ type: 'isPublishedAndHasNoChanges', value: true }],
          commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: pub.metadata.title }],
        });
      const edit = (value: string) => ({
        operation: 'setEditableDirective',
        componentId: 'doc-para',
        directiveName: 'text',
        value,
      });
      await commands(pub.id, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'edited' },
          edit('Second'),
        ],
      });
      expect((await hasNoChanges(pub.id)).status).toBe(409);

      // Undone in two steps: the title first (the text still differs), then the text.
      await commands(pub.id, {
        commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: pub.metadata.title }],
      });
      expect((await hasNoChanges(pub.id)).status).toBe(409);
      await commands(pub.id, { commands: [edit('First')] });
      expect((await hasNoChanges(pub.id)).status).toBe(204);
      const row = await load(pub.id);
      expect(row.publishedVersion).toBe(row.version);
      expect([row.metadata, row.content]).toEqual([pub.metadata, pub.content]);
      expect(await publicationCount(pub.id)).toBe(1);
    });

    it('when the third command of a batch fails, then the document, its version, events and jobs are untouched', async () => {
      const doc = await published();
      const before = await load(doc.id);
      const eventsBefore = await eventCount(doc.id);
      const publicationsBefore = await publicationCount(doc.id);
      const transactionsBefore = await transactionCount(doc.id);
      const response = await commands(doc.id, {
        version: before.version,
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'first' },
          { operation: 'publish' },
          {
            operation: 'setEditableDirective',
            componentId: 'doc-missing',
            directiveName: 'text',
            value: 'x',
          },
        ],
      });
      expect(response.status).toBe(400);
      expect(response.body.error_details).toMatchObject({ commandIndex: 2 });
      const after = await load(doc.id);
      expect(after.version).toBe(before.version);
      expect(after.metadata).toEqual(before.metadata);
      expect(after.updatedAt).toEqual(before.updatedAt);
      expect(after.latestPublicationId).toBe(before.latestPublicationId);
      expect(await eventCount(doc.id)).toBe(eventsBefore);
      expect(await publicationCount(doc.id)).toBe(publicationsBefore);
      expect(await transactionCount(doc.id)).toBe(transactionsBefore);
    });

    it('when a request succeeds, then one command transaction records the client, the commands and the versions', async () => {
      const doc = await draft();
      const sent = [
        { operation: 'setMetadataProperty', propertyName: 'title', value: 'recorded' },
        { operation: 'publish' },
      ];
      const response = await commands(doc.id, {
        version: doc.version,
        preconditions: [{ type: 'isPublished', value: false }],
        commands: sent,
      });
      expect(response.status).toBe(204);
      const { rows } = await app.ctx.pool.query(
        `SELECT client_id, version_before, version_after, commands, preconditions, preserve_updated_at
         FROM document_command_transactions WHERE document_id = $1`,
        [doc.id],
      );
      expect(rows).toEqual([
        {
          client_id: clientId,
          version_before: doc.version,
          version_after: doc.version + 1,
          commands: sent,
          preconditions: [{ type: 'isPublished', value: false }],
          preserve_updated_at: false,
        },
      ]);
    });

    it('when 20 requests carry the same version at once, then exactly one 204, nineteen 409s, and the winner’s change stays', async () => {
      const doc = await draft();
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          commands(doc.id, {
            version: doc.version,
            commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: `writer ${i}` }],
          }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 204)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(19);
      const winner = statuses.indexOf(204);
      const after = await load(doc.id);
      expect(after.metadata.title).toBe(`writer ${winner}`);
      expect(after.version).toBe(doc.version + 1);
      expect(await transactionCount(doc.id)).toBe(1);
      for (const loser of responses.filter((r) => r.status === 409)) {
        expect(loser.body.error_details).toMatchObject({
          expectedVersion: doc.version,
          currentVersion: doc.version + 1,
        });
      }
    });
  });

  describe('publishing', () => {
    it('when a command writes a directive its design does not declare, or of another kind, then 400 and nothing is published', async () => {
      // TEST_DESIGN: an image component has an image directive and an editable caption.
      const doc = await createDraftDocument(app.ctx, {
        ...project,
        content: [
          { id: 'doc-img', component: 'image', identifier: 'test-design.image', content: { caption: 'C' } },
        ],
      });
      const attempts = [
        { operation: 'setEditableDirective', componentId: 'doc-img', directiveName: 'image', value: 'x' },
        {
          operation: 'setLinkDirective',
          componentId: 'doc-img',
          directiveName: 'credit',
          value: { href: '/a' },
        },
      ];
      const answers = [];
      for (const attempt of attempts) {
        answers.push(await commands(doc.id, { commands: [attempt, { operation: 'publish' }] }));
      }
      expect(answers.map((answer) => answer.body)).toEqual([
        envelope(400, 'Bad Request', {
          message:
            "Command at index 0 failed: component 'doc-img' (image) of design test-design@1.0.0 has no " +
            "editable directive 'image': it is an image directive",
          commandIndex: 0,
        }),
        envelope(400, 'Bad Request', {
          message:
            "Command at index 0 failed: component 'doc-img' (image) of design test-design@1.0.0 has no " +
            "link directive 'credit': it declares image, caption",
          commandIndex: 0,
        }),
      ]);
      const after = await load(doc.id);
      expect([after.version, after.latestPublicationId, after.content]).toEqual([
        doc.version,
        null,
        doc.content,
      ]);
      expect(await publicationCount(doc.id)).toBe(0);

      const caption = await commands(doc.id, {
        commands: [
          {
            operation: 'setEditableDirective',
            componentId: 'doc-img',
            directiveName: 'caption',
            value: 'New',
          },
          { operation: 'publish' },
        ],
      });
      expect(caption.status).toBe(204);
    });

    it('when publish runs, then a publication of the current draft, both dates, a publish event and an index job exist', async () => {
      const doc = await draft();
      const response = await commands(doc.id, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'Published title' },
          { operation: 'publish' },
        ],
      });
      expect(response.status).toBe(204);
      const after = await load(doc.id);
      expect(after.latestPublicationId).not.toBeNull();
      expect(after.publishedVersion).toBe(after.version);
      expect(after.version).toBe(doc.version + 1);
      expect(after.firstPublicationDate).not.toBeNull();
      expect(after.lastPublicationDate).toEqual(after.firstPublicationDate);
      const publication = await app.ctx.pool.query(
        'SELECT metadata, document_version FROM publications WHERE id = $1',
        [after.latestPublicationId],
      );
      expect(publication.rows[0]).toEqual({
        metadata: { title: 'Published title' },
        document_version: after.version,
      });
      const events = await app.ctx.pool.query(
        'SELECT event_type, publication_id FROM publication_events WHERE document_id = $1',
        [doc.id],
      );
      expect(events.rows).toEqual([{ event_type: 'publish', publication_id: after.latestPublicationId }]);
      expect(await jobCount('index-document', doc.id)).toBe(1);
    });

    it('when published again, then firstPublicationDate stays, lastPublicationDate moves and an update event is written', async () => {
      const doc = await published();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await commands(doc.id, { commands: [{ operation: 'publish' }] })).status).toBe(204);
      const after = await load(doc.id);
      expect(after.firstPublicationDate).toEqual(doc.firstPublicationDate);
      expect(after.lastPublicationDate!.getTime()).toBeGreaterThan(doc.lastPublicationDate!.getTime());
      expect(after.latestPublicationId).not.toBe(doc.latestPublicationId);
      const events = await app.ctx.pool.query(
        'SELECT event_type FROM publication_events WHERE document_id = $1 ORDER BY id',
        [doc.id],
      );
      expect(events.rows.map((r: { event_type: string }) => r.event_type)).toEqual(['publish', 'update']);
      // The earlier publication is an immutable snapshot.
      await expect(
        app.ctx.pool.query('UPDATE publications SET metadata = $2 WHERE id = $1', [
          doc.latestPublicationId,
          {},
        ]),
      ).rejects.toThrow(/immutable/);
    });

    it('when preserveUpdatedAt is true with publish, then updatedAt is kept and lastPublicationDate is that updatedAt', async () => {
      const doc = await draft();
      const response = await commands(doc.id, {
        preserveUpdatedAt: true,
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'quiet' },
          { operation: 'publish' },
        ],
      });
      expect(response.status).toBe(204);
      const after = await load(doc.id);
      expect(after.metadata.title).toBe('quiet');
      expect(after.version).toBe(doc.version + 1);
      expect(after.updatedAt).toEqual(doc.updatedAt);
      expect(after.lastPublicationDate).toEqual(doc.updatedAt);
    });

    it('when a first publish has preserveUpdatedAt, then its first publication date is the kept updatedAt too, never after the last', async () => {
      const doc = await draft();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const response = await commands(doc.id, {
        preserveUpdatedAt: true,
        commands: [{ operation: 'publish' }],
      });
      expect(response.status).toBe(204);
      const after = await load(doc.id);
      expect([after.firstPublicationDate, after.lastPublicationDate]).toEqual([doc.updatedAt, doc.updatedAt]);
      const view = await api.get(`documents/${doc.id}/latestPublication`);
      expect(view.body.systemdata).toMatchObject({
        firstPublicationDate: doc.updatedAt.toISOString(),
        visiblePublicationDate: doc.updatedAt.toISOString(),
        lastPublicationDate: doc.updatedAt.toISOString(),
      });
      // Published before, it keeps the first publication date it has.
      await commands(doc.id, { commands: [{ operation: 'publish' }] });
      const again = await commands(doc.id, { preserveUpdatedAt: true, commands: [{ operation: 'publish' }] });
      expect(again.status).toBe(204);
      expect((await load(doc.id)).firstPublicationDate).toEqual(doc.updatedAt);
    });

    it('when unpublish runs, then the document has no publication, an unpublish event and an index job', async () => {
      const doc = await published();
      const response = await commands(doc.id, { commands: [{ operation: 'unpublish' }] });
      expect(response.status).toBe(204);
      const after = await load(doc.id);
      expect(after.latestPublicationId).toBeNull();
      const events = await app.ctx.pool.query(
        'SELECT event_type, publication_id FROM publication_events WHERE document_id = $1 ORDER BY id',
        [doc.id],
      );
      expect(events.rows.at(-1)).toEqual({
        event_type: 'unpublish',
        publication_id: doc.latestPublicationId,
      });
      expect(await jobCount('index-document', doc.id)).toBe(2);
    });

    it('when unpublish runs on a document that is not published, then 400 and nothing is written', async () => {
      const doc = await draft();
      const response = await commands(doc.id, { commands: [{ operation: 'unpublish' }] });
      expect(response.status).toBe(400);
      expect(response.body.error_details.message).toMatch(/not published/);
      expect(await eventCount(doc.id)).toBe(0);
    });

    it('when one request publishes twice (or a hundred times), then one publication and one event', async () => {
      const doc = await draft();
      const twice = await commands(doc.id, {
        commands: [
          { operation: 'publish' },
          { operation: 'addUnpublishSchedule', date: inAnHour() },
          { operation: 'publish' },
        ],
      });
      expect(twice.status).toBe(204);
      expect([await publicationCount(doc.id), await eventCount(doc.id)]).toEqual([1, 1]);
      const many = await commands(doc.id, {
        commands: Array.from({ length: 100 }, () => ({ operation: 'publish' })),
      });
      expect(many.status).toBe(204);
      expect([await publicationCount(doc.id), await eventCount(doc.id)]).toEqual([2, 2]);
      // An unpublish between them makes each a change of its own.
      const back = await commands(doc.id, {
        commands: [{ operation: 'unpublish' }, { operation: 'publish' }],
      });
      expect(back.status).toBe(204);
      expect([await publicationCount(doc.id), await eventCount(doc.id)]).toEqual([3, 4]);
    });

    it('when an edit follows the publish in one request, then 400 naming it and neither is written; in two requests the edit stays a draft change', async () => {
      const doc = await published();
      const publishThenEdit = {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'Live title' },
          { operation: 'publish' },
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'Next week’s title' },
        ],
      };
      const refused = await commands(doc.id, publishThenEdit);
      expect(refused.status).toBe(400);
      expect(refused.body.error_details).toEqual({
        name: 'ValidationError',
        message:
          'Command at index 2 failed: it changes the draft after the publish at index 1, which would publish ' +
          'the change too: send it before the publish or in a later request',
        commandIndex: 2,
      });
      expect(await publicationCount(doc.id)).toBe(1);
      expect((await load(doc.id)).version).toBe(doc.version);

      expect((await commands(doc.id, { commands: publishThenEdit.commands.slice(0, 2) })).status).toBe(204);
      expect((await commands(doc.id, { commands: publishThenEdit.commands.slice(2) })).status).toBe(204);
      const live = await api.get(`documents/${doc.id}/latestPublication?fields=metadata`);
      expect(live.body.metadata.title).toBe('Live title');
      const draftView = await api.get(`documents/${doc.id}/latestDraft?fields=metadata`);
      expect(draftView.body.metadata.title).toBe('Next week’s title');
    });
  });

  describe('embargo and schedules', () => {
    it('when an embargo is set, then publish is refused with 409 saying so; after removeEmbargo it publishes', async () => {
      const doc = await draft();
      const until = inAnHour();
      expect(
        (await commands(doc.id, { commands: [{ operation: 'setEmbargo', reason: 'court order', until }] }))
          .status,
      ).toBe(204);
      let row = await load(doc.id);
      expect(row.embargoSet).toBe(true);
      expect(row.embargoReason).toBe('court order');
      expect(row.embargoUntil!.toISOString()).toBe(until);

      const blocked = await commands(doc.id, { commands: [{ operation: 'publish' }] });
      expect(blocked.status).toBe(409);
      expect(blocked.body.error_details).toEqual({
        name: 'Conflict',
        message: `The document is under embargo until ${until} (court order)`,
      });
      expect((await load(doc.id)).latestPublicationId).toBeNull();

      expect(
        (await commands(doc.id, { commands: [{ operation: 'removeEmbargo' }, { operation: 'publish' }] }))
          .status,
      ).toBe(204);
      row = await load(doc.id);
      expect(row.embargoSet).toBe(false);
      expect(row.latestPublicationId).not.toBeNull();
    });

    it('when an embargo has no until, then publish is refused until it is removed', async () => {
      const doc = await draft();
      await commands(doc.id, { commands: [{ operation: 'setEmbargo', reason: 'legal' }] });
      const blocked = await commands(doc.id, { commands: [{ operation: 'publish' }] });
      expect(blocked.status).toBe(409);
      expect(blocked.body.error_details.message).toBe(
        'The document is under embargo until it is removed (legal)',
      );
    });

    it('when removeEmbargo runs without an embargo, or an embargo ends in the past, then 400', async () => {
      const doc = await draft();
      const remove = await commands(doc.id, { commands: [{ operation: 'removeEmbargo' }] });
      expect(remove.status).toBe(400);
      const past = await commands(doc.id, {
        commands: [{ operation: 'setEmbargo', reason: 'x', until: '2020-01-01T00:00:00Z' }],
      });
      expect(past.status).toBe(400);
      expect(past.body.error_details).toHaveProperty(['commands.0.until']);
    });

    it('when an embargo reason is longer than 200 characters, then 400 on commands.<index>.reason and nothing is written; 200 emoji are taken', async () => {
      const doc = await draft();
      const long = await commands(doc.id, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'embargoed' },
          { operation: 'setEmbargo', reason: 'x'.repeat(201) },
        ],
      });
      expect({ status: long.status, body: long.body }).toEqual({
        status: 400,
        body: envelope(400, 'Bad Request', {
          name: 'ValidationError',
          'commands.1.reason': 'must be at most 200 characters long',
        }),
      });
      const row = await load(doc.id);
      expect([row.version, row.embargoSet, row.embargoReason]).toEqual([doc.version, false, null]);

      // Characters are code points: 200 emoji are 400 UTF-16 code units and still within the limit.
      const emoji = '📰'.repeat(200);
      expect(
        (await commands(doc.id, { commands: [{ operation: 'setEmbargo', reason: emoji }] })).status,
      ).toBe(204);
      expect((await load(doc.id)).embargoReason).toBe(emoji);
    });

    it('when a publish and an unpublish schedule are added, then both dates are stored and one job each waits for its date', async () => {
      const doc = await published();
      const publishAt = inAnHour();
      const unpublishAt = new Date(Date.now() + 7_200_000).toISOString();
      const response = await commands(doc.id, {
        commands: [
          { operation: 'addPublishSchedule', date: publishAt },
          { operation: 'addUnpublishSchedule', date: unpublishAt },
        ],
      });
      expect(response.status).toBe(204);
      const row = await load(doc.id);
      expect(row.publishScheduleAt!.toISOString()).toBe(publishAt);
      expect(row.unpublishScheduleAt!.toISOString()).toBe(unpublishAt);
      const jobs = await app.ctx.pool.query(
        `SELECT name, data->>'at' AS at, start_after FROM pgboss.job WHERE (data->>'documentId')::bigint = $1 AND name LIKE 'scheduled-%' ORDER BY name`,
        [doc.id],
      );
      expect(
        jobs.rows.map((j: { name: string; at: string; start_after: Date }) => [
          j.name,
          j.at,
          j.start_after.toISOString(),
        ]),
      ).toEqual([
        ['scheduled-publish', publishAt, publishAt],
        ['scheduled-unpublish', unpublishAt, unpublishAt],
      ]);
    });

    it('when schedules are cancelled, then both dates are cleared; cancelling a missing schedule is 400', async () => {
      const doc = await draft();
      await commands(doc.id, {
        commands: [
          { operation: 'addPublishSchedule', date: inAnHour() },
          { operation: 'addUnpublishSchedule', date: inAnHour() },
        ],
      });
      const response = await commands(doc.id, {
        commands: [{ operation: 'cancelPublishSchedule' }, { operation: 'cancelUnpublishSchedule' }],
      });
      expect(response.status).toBe(204);
      const row = await load(doc.id);
      expect(row.publishScheduleAt).toBeNull();
      expect(row.unpublishScheduleAt).toBeNull();
      expect((await commands(doc.id, { commands: [{ operation: 'cancelPublishSchedule' }] })).status).toBe(
        400,
      );
      expect((await commands(doc.id, { commands: [{ operation: 'cancelUnpublishSchedule' }] })).status).toBe(
        400,
      );
    });

    it('when a schedule date is in the past or not a date-time, then 400 on commands.<index>.date', async () => {
      const doc = await draft();
      const past = await commands(doc.id, {
        commands: [{ operation: 'addPublishSchedule', date: '2020-01-01T00:00:00Z' }],
      });
      expect(past.status).toBe(400);
      expect(past.body.error_details['commands.0.date']).toMatch(/future/);
      const bad = await commands(doc.id, {
        commands: [{ operation: 'addUnpublishSchedule', date: 'tomorrow' }],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error_details).toHaveProperty(['commands.0.date']);
      expect((await load(doc.id)).publishScheduleAt).toBeNull();
    });

    it('when a schedule or embargo date falls after 9999 in UTC, then 400 on its path and nothing is written', async () => {
      // 9999-12-31T23:59:59-18:00 is 10000-01-01T17:59:59Z: Postgres refused the expanded year (+010000-...)
      // that toISOString writes for it, a 500.
      const late = '9999-12-31T23:59:59-18:00';
      const doc = await draft();
      for (const [command, path] of [
        [{ operation: 'addPublishSchedule', date: late }, 'commands.1.date'],
        [{ operation: 'addUnpublishSchedule', date: late }, 'commands.1.date'],
        [{ operation: 'setEmbargo', reason: 'r', until: late }, 'commands.1.until'],
      ] as const) {
        const answer = await commands(doc.id, {
          commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'late' }, command],
        });
        expect({ status: answer.status, details: answer.body.error_details }).toEqual({
          status: 400,
          details: { name: 'ValidationError', [path]: expect.stringContaining('9999-12-31T23:59:59.999Z') },
        });
      }
      const row = await load(doc.id);
      expect([row.version, row.publishScheduleAt, row.unpublishScheduleAt, row.embargoSet]).toEqual([
        doc.version,
        null,
        null,
        false,
      ]);
      const latest = await commands(doc.id, {
        commands: [{ operation: 'addPublishSchedule', date: '9999-12-31T23:59:59.999Z' }],
      });
      expect(latest.status).toBe(204);
    });
  });
});
