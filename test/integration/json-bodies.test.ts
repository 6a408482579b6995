import { documentQueries } from '../../src/db/queries/documents';
import { MAX_BODY_DEPTH } from '../../src/domain/json-limits';
import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

/** `depth` arrays inside each other, as JSON text (no recursion needed to build or send it). */
const nestedArraysJson = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

/**
 * Every JSON body is walked once, before any validation: too deep, a `__proto__` key, a NUL or an unpaired
 * surrogate in a string is a 400 naming the path, never a stack overflow or a silently dropped key.
 */
describe('JSON request bodies', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let project: { projectId: number; channelId: number };
  let token: string;

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx);
    ({ token } = await tokenFor(app.ctx, project.projectId));
    api = apiClient(app.url, token);
  });
  afterAll(async () => {
    await app.close();
  });

  const draft = () => createDraftDocument(app.ctx, project);
  const load = async (id: number) => (await documentQueries(app.ctx.pool).findById(project.projectId, id))!;
  const setMetadata = (value: string) =>
    `{"commands":[{"operation":"setMetadataProperty","propertyName":"deep","value":${value}}]}`;

  it('when no token is sent, then a deep body is refused at parsing like malformed JSON, before authentication', async () => {
    const doc = await draft();
    const anonymous = apiClient(app.url);
    const malformed = await anonymous.patch(`documents/${doc.id}/commands`, '{"commands":');
    const deep = await anonymous.patch(`documents/${doc.id}/commands`, setMetadata(nestedArraysJson(5000)));
    expect([malformed.status, deep.status]).toEqual([400, 400]);
    expect((await anonymous.patch(`documents/${doc.id}/commands`, setMetadata('1'))).status).toBe(401);
  });

  describe('when a body nests deeper than the limit', () => {
    it('then PATCH commands with a value of 5,000 nested arrays is a 400 naming the path and the limit, and nothing changes', async () => {
      const doc = await draft();
      const response = await api.patch(`documents/${doc.id}/commands`, setMetadata(nestedArraysJson(5000)));
      expect(response.status).toBe(400);
      const path = ['commands', 0, 'value', ...Array<number>(MAX_BODY_DEPTH - 3).fill(0)].join('.');
      expect(response.body).toEqual({
        status: 400,
        error: 'Bad Request',
        error_details: {
          name: 'ValidationError',
          [path]: `is nested more than ${MAX_BODY_DEPTH} levels deep; objects and arrays in a request body may nest at most ${MAX_BODY_DEPTH} levels`,
        },
      });
      expect((await load(doc.id)).version).toBe(doc.version);
    });

    it('then the same holds for import metadata and projectConfig, and the process keeps answering', async () => {
      const deepImport = await api.post(
        'import/documents',
        `{"systemName":"wire","documents":[{"id":"a","contentType":"regular","metadata":{"x":${nestedArraysJson(2000)}}}]}`,
      );
      expect(deepImport.status).toBe(400);
      expect(Object.keys(deepImport.body.error_details)[1]).toMatch(/^documents\.0\.metadata\.x\.0\.0/);
      const config = apiClient(
        app.url,
        (await tokenFor(app.ctx, project.projectId, ['public-api:config:write'])).token,
      );
      const deepConfig = await config.post(
        'projectConfig',
        `{"plan":true,"channelConfig":${nestedArraysJson(100_000)}}`,
      );
      expect(deepConfig.status).toBe(400);
      expect((await api.get('health')).status).toBe(200);
    });

    it('then a body exactly at the limit passes the walk and meets ordinary validation', async () => {
      const doc = await draft();
      // {commands:[{value: ...}]} is 3 levels; 97 more arrays make exactly the limit.
      const atLimit = await api.patch(
        `documents/${doc.id}/commands`,
        setMetadata(nestedArraysJson(MAX_BODY_DEPTH - 3)).replace('"propertyName":"deep",', ''),
      );
      expect(atLimit.status).toBe(400);
      expect(atLimit.body.error_details).toEqual({
        name: 'ValidationError',
        'commands.0.propertyName': 'is required',
      });
    });
  });

  describe('when a body has a __proto__ key', () => {
    it('then a command value with one is a 400 naming its path instead of dropping it silently', async () => {
      const doc = await draft();
      const response = await api.patch(
        `documents/${doc.id}/commands`,
        setMetadata('{"kept":1,"nested":{"__proto__":{"polluted":true}}}'),
      );
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual({
        name: 'ValidationError',
        'commands.0.value.nested.__proto__': "'__proto__' is not allowed as a key",
      });
      expect((await load(doc.id)).metadata).toEqual(doc.metadata);
    });

    it('then import metadata with one is a 400 and no job is stored', async () => {
      const jobs = async () =>
        (
          await app.ctx.pool.query('SELECT count(*)::int AS n FROM import_jobs WHERE project_id = $1', [
            project.projectId,
          ])
        ).rows[0].n as number;
      const before = await jobs();
      const response = await api.post(
        'import/documents',
        '{"systemName":"wire","documents":[{"id":"a","contentType":"regular","metadata":{"__proto__":{"title":"x"}}}]}',
      );
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual({
        name: 'ValidationError',
        'documents.0.metadata.__proto__': "'__proto__' is not allowed as a key",
      });
      expect(await jobs()).toBe(before);
    });
  });

  describe('when a string cannot be stored in Postgres', () => {
    it('then a NUL character in a command value is a 400 naming the path, not a 500 from jsonb', async () => {
      const doc = await draft();
      const response = await api.patch(
        `documents/${doc.id}/commands`,
        setMetadata('{"text":["ok","a\\u0000b"]}'),
      );
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual({
        name: 'ValidationError',
        'commands.0.value.text.1': 'must not contain the NUL character (U+0000)',
      });
    });

    it('then a NUL in a key or an unpaired surrogate in a delivery report is a 400 naming the path', async () => {
      const doc = await draft();
      const key = await api.patch(`documents/${doc.id}/commands`, setMetadata('{"a\\u0000":1}'));
      expect(key.status).toBe(400);
      expect(key.body.error_details).toEqual({
        name: 'ValidationError',
        'commands.0.value.a\\u0000': 'the key must not contain the NUL character (U+0000)',
      });
      const surrogate = await api.post(
        `documents/${doc.id}/addDeliveryStatus`,
        '{"publicationId":1,"deliveryHandle":"web \\ud800","status":"success"}',
      );
      expect(surrogate.status).toBe(400);
      expect(surrogate.body.error_details).toEqual({
        name: 'ValidationError',
        deliveryHandle: 'must be valid Unicode: it contains an unpaired surrogate',
      });
    });
  });

  describe('when the body is not valid UTF-8', () => {
    const prefix = '{"commands":[{"operation":"setMetadataProperty","propertyName":"deep","value":"caf';
    const sendBytes = (id: number, bytes: number[]) =>
      fetch(`${app.url}/api/2026-03/documents/${id}/commands`, {
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
        body: Buffer.concat([Buffer.from(prefix), Buffer.from(bytes), Buffer.from('"}]}')]),
      });

    it('then bytes that decode to no text (Latin-1 é, an overlong /, a surrogate, 0xFF) are a 400 naming where, not U+FFFD stored in their place', async () => {
      const doc = await draft();
      for (const bytes of [[0xe9], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff], [0xe2, 0x9c]]) {
        const response = await sendBytes(doc.id, bytes);
        const hex = bytes.map((byte) => byte.toString(16).toUpperCase().padStart(2, '0'));
        const text = await response.text();
        expect({ bytes: hex, status: response.status, body: text && (JSON.parse(text) as unknown) }).toEqual({
          bytes: hex,
          status: 400,
          body: {
            status: 400,
            error: 'Bad Request',
            error_details: {
              name: 'ValidationError',
              message: expect.stringMatching(
                new RegExp(
                  `^The request body is not valid UTF-8: the byte 0x${hex[0]} at offset ${prefix.length} `,
                ),
              ) as unknown,
            },
          },
        });
      }
      expect((await load(doc.id)).metadata).not.toHaveProperty('deep');
    });

    it('then text in any script, and characters beyond the BMP, are still stored as sent', async () => {
      const doc = await draft();
      const text = 'é ✓ 漢字 😀';
      const response = await sendBytes(doc.id, [...Buffer.from(text)]);
      expect(response.status).toBe(204);
      expect((await load(doc.id)).metadata).toMatchObject({ deep: `caf${text}` });
    });
  });
});
