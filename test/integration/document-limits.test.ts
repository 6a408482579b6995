import { documentQueries } from '../../src/db/queries/documents';
import { DOCUMENT_LIMITS, MAX_BODY_DEPTH } from '../../src/domain/json-limits';
import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually, type ApiResponse } from '../helpers/http';
import { nestedArrays } from '../helpers/json';

const metadataDepth = DOCUMENT_LIMITS.metadata.maxDepth;

/**
 * A document's metadata and content are bounded when they are written (document commands, POST
 * import/documents, the CLI import, which shares the import runner), so nothing can be published that
 * Elasticsearch would refuse to index.
 */
describe('document limits at write time', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let project: { projectId: number; channelId: number };

  beforeAll(async () => {
    app = await startTestApp({ workers: true });
    project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId)).token);
  });
  afterAll(async () => {
    await app.close();
  });

  const load = async (id: number) => (await documentQueries(app.ctx.pool).findById(project.projectId, id))!;

  describe('PATCH documents/{id}/commands', () => {
    it('when setMetadataProperty sets a value nested 1,200 deep and publishes, then 400 and nothing is published', async () => {
      const doc = await createDraftDocument(app.ctx, project);
      const response = await api.patch(`documents/${doc.id}/commands`, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'deep', value: nestedArrays(1200) },
          { operation: 'publish' },
        ],
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.error_details)).toEqual([
        'name',
        ['commands', 0, 'value', ...Array<number>(MAX_BODY_DEPTH - 3).fill(0)].join('.'),
      ]);
      const row = await load(doc.id);
      expect([row.version, row.latestPublicationId]).toEqual([doc.version, null]);
    });

    it('when a value fits the body but would nest the metadata beyond its limit, then 400 blames the command and names the path', async () => {
      const doc = await createDraftDocument(app.ctx, project);
      const response = await api.patch(`documents/${doc.id}/commands`, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'Fine' },
          { operation: 'setMetadataProperty', propertyName: 'deep', value: nestedArrays(metadataDepth) },
          { operation: 'publish' },
        ],
      });
      const path = ['metadata', 'deep', ...Array<number>(metadataDepth - 1).fill(0)].join('.');
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual({
        name: 'ValidationError',
        message: `Command at index 1 failed: ${path} is nested more than ${metadataDepth} levels deep; objects and arrays in a document's metadata may nest at most ${metadataDepth} levels`,
        commandIndex: 1,
        path,
      });
      const row = await load(doc.id);
      expect([row.version, row.latestPublicationId]).toEqual([doc.version, null]);
    });

    it('when the same value is one level shallower, then it is stored and published', async () => {
      const doc = await createDraftDocument(app.ctx, project);
      const response = await api.patch(`documents/${doc.id}/commands`, {
        commands: [
          { operation: 'setMetadataProperty', propertyName: 'deep', value: nestedArrays(metadataDepth - 1) },
          { operation: 'publish' },
        ],
      });
      expect(response.status).toBe(204);
      expect((await load(doc.id)).latestPublicationId).not.toBeNull();
    });

    it('when requests grow the metadata beyond its size one by one, then the one that crosses the limit is a 400', async () => {
      const doc = await createDraftDocument(app.ctx, project);
      const chunk = 'x'.repeat(DOCUMENT_LIMITS.metadata.maxBytes / 4);
      const set = (propertyName: string) =>
        api.patch(`documents/${doc.id}/commands`, {
          commands: [{ operation: 'setMetadataProperty', propertyName, value: chunk }],
        });
      for (const name of ['a', 'b', 'c']) expect((await set(name)).status).toBe(204);
      const crossing = await set('d');
      expect(crossing.status).toBe(400);
      expect(crossing.body.error_details).toMatchObject({ commandIndex: 0, path: 'metadata' });
      expect(crossing.body.error_details.message).toMatch(/may be at most 524,288 bytes \(512 KiB\)$/);
    });
  });

  describe('POST import/documents', () => {
    async function importAndWait(body: unknown): Promise<ApiResponse> {
      const started = await api.post('import/documents', body);
      expect(started.status).toBe(200);
      return eventually(async () => {
        const status = await api.get(`import/documents/status?id=${started.body.id}`);
        return status.body?.finished ? status : undefined;
      }, 20_000);
    }

    it('when one document nests its content too deep, then that document fails in the log naming the path and the others are imported', async () => {
      const image = {
        id: 'i',
        component: 'image',
        identifier: 'test-design.image',
        content: { x: nestedArrays(70) },
      };
      const done = await importAndWait({
        systemName: 'limits',
        documents: [
          { id: 'ok', contentType: 'regular', metadata: { title: 'Fine' } },
          {
            id: 'deep',
            contentType: 'regular',
            content: [{ id: 'c', component: 'container', containers: { main: [image] } }],
          },
          { id: 'deep-metadata', contentType: 'regular', metadata: { deep: nestedArrays(metadataDepth) } },
        ],
      });
      expect(done.body.state).toBe('success');
      const [ok, deep, deepMetadata] = done.body.logs;
      expect(ok).toMatchObject({ state: 'imported', external_id: 'ok' });
      expect(deep).toMatchObject({ state: 'failed', external_id: 'deep', document_id: null });
      expect(deep.reason).toMatch(
        /^content\.0\.containers\.main\.0\.content\.x(\.0)+ is nested more than 64 levels deep; objects and arrays in a document's content may nest at most 64 levels$/,
      );
      expect(deepMetadata.reason).toMatch(/^metadata\.deep(\.0)+ is nested more than 64 levels deep/);
      const stored = await app.ctx.pool.query(
        `SELECT external_id FROM documents WHERE project_id = $1 AND system_name = 'limits'`,
        [project.projectId],
      );
      expect(stored.rows).toEqual([{ external_id: 'ok' }]);
    });
  });
});
