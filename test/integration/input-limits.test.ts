import { MAX_SHOWN_CHARACTERS } from '../../src/domain/shown-input';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDraft } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

/** Four bytes of UTF-8, one character, two UTF-16 code units of a JS string. */
const EMOJI = '\u{1F4F0}';

/** A key of 100,000 characters, as a client may send one, and how an answer shows it: cut. */
const HUGE_KEY = `${'k'.repeat(MAX_SHOWN_CHARACTERS)}${'x'.repeat(99_900)}`;
const HUGE_KEY_SHOWN = `${'k'.repeat(MAX_SHOWN_CHARACTERS)}… (100000 characters)`;

/**
 * Length limits count what users count (characters: an emoji is one), and an error repeats what a client
 * sent the way every message does: whole when short, else cut (shownInput), keys of error_details included.
 */
describe('input length limits and the input errors repeat', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let project: { projectId: number; channelId: number };

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId)).token);
  });
  afterAll(async () => {
    await app.close();
  });

  const reportsOf = async (documentId: number) =>
    (
      await app.ctx.pool.query<{ delivery_handle: string }>(
        'SELECT delivery_handle FROM delivery_reports WHERE document_id = $1',
        [documentId],
      )
    ).rows;

  it('when a body string is 200 emoji under a limit of 200 characters, then it is stored; 201 are a 400 naming the limit', async () => {
    const doc = await createPublishedDraft(app.ctx, project);
    const base = { publicationId: doc.latestPublicationId, status: 'success' };
    const over = await api.post(`documents/${doc.id}/addDeliveryStatus`, {
      ...base,
      deliveryHandle: EMOJI.repeat(201),
    });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({
      status: 400,
      error: 'Bad Request',
      error_details: { name: 'ValidationError', deliveryHandle: 'must be at most 200 characters long' },
    });
    expect(await reportsOf(doc.id)).toEqual([]);

    const at = await api.post(`documents/${doc.id}/addDeliveryStatus`, {
      ...base,
      deliveryHandle: EMOJI.repeat(200),
    });
    expect(at.status).toBe(200);
    expect(at.body.deliveryHandle).toBe(EMOJI.repeat(200));
    expect(await reportsOf(doc.id)).toEqual([{ delivery_handle: EMOJI.repeat(200) }]);
  });

  it('when a query parameter is 200 emoji under a limit of 200 characters, then it is taken; 201 are a 400', async () => {
    const at = await api.get(`document-lists?name=${encodeURIComponent(EMOJI.repeat(200))}`);
    expect(at.status).toBe(200);
    expect(at.body.results).toEqual([]);
    const over = await api.get(`document-lists?name=${encodeURIComponent(EMOJI.repeat(201))}`);
    expect(over.status).toBe(400);
    expect(over.body.error_details).toEqual({
      name: 'ValidationError',
      message: 'name: must be at most 200 characters long',
    });
  });

  it('when a list is created with a name of 200 emoji, then it is; 201 are refused naming the limit', async () => {
    // `broadsheet list create` counted UTF-16 code units: a name of 101 emoji was refused as over 200 characters.
    const { projectId } = await createTestProject(app.ctx);
    const list = await app.ctx.commands.createDocumentList({ projectId, name: EMOJI.repeat(200) });
    expect(list.name).toBe(EMOJI.repeat(200));
    await expect(
      app.ctx.commands.createDocumentList({ projectId, name: EMOJI.repeat(201) }),
    ).rejects.toMatchObject({
      status: 400,
      details: { name: 'ValidationError', message: 'name: must be at most 200 characters long' },
    });
  });

  it('when a body has an unknown key of 100,000 characters, then the 400 names it cut, not whole', async () => {
    const doc = await createPublishedDraft(app.ctx, project);
    const response = await api.post(`documents/${doc.id}/addDeliveryStatus`, {
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'web',
      status: 'success',
      [HUGE_KEY]: 1,
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      status: 400,
      error: 'Bad Request',
      error_details: { name: 'ValidationError', [HUGE_KEY_SHOWN]: 'is not allowed' },
    });
    expect(response.text.length).toBeLessThan(1_000);
    expect(await reportsOf(doc.id)).toEqual([]);
  });

  it('when a key nested in a command is that long, then its path shows it cut', async () => {
    const doc = await createPublishedDraft(app.ctx, project);
    const response = await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'x', [HUGE_KEY]: 1 }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error_details).toEqual({
      name: 'ValidationError',
      [`commands.0.${HUGE_KEY_SHOWN}`]: 'is not allowed',
    });
  });

  it('when a key that long holds a NUL, then the 400 of the body walk names it cut', async () => {
    const doc = await createPublishedDraft(app.ctx, project);
    const key = `${'k'.repeat(MAX_SHOWN_CHARACTERS)}\u0000${'x'.repeat(99_899)}`;
    const response = await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'setMetadataProperty', propertyName: 'deep', value: { [key]: 1 } }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error_details).toEqual({
      name: 'ValidationError',
      [`commands.0.value.${HUGE_KEY_SHOWN}`]: 'the key must not contain the NUL character (U+0000)',
    });
  });

  it('when a JSON body is sent with a Content-Type of 5,000 characters, then the 415 repeats it cut', async () => {
    const doc = await createPublishedDraft(app.ctx, project);
    const type = `text/x-${'a'.repeat(4_993)}`;
    const response = await api.post(`documents/${doc.id}/addDeliveryStatus`, '{}', { 'content-type': type });
    expect(response.status).toBe(415);
    expect(response.body.error_details).toEqual({
      name: 'UnsupportedMediaType',
      message: `The request body must be JSON: send it with Content-Type: application/json (got text/x-${'a'.repeat(93)}… (5000 characters))`,
    });
  });

  it('when a query parameter name that long holds a NUL, then the 400 names it cut', async () => {
    const name = `${'k'.repeat(MAX_SHOWN_CHARACTERS)}${'x'.repeat(9_899)}%00`;
    const response = await api.get(`document-lists?${name}=1`);
    expect(response.status).toBe(400);
    expect(response.body.error_details).toEqual({
      name: 'ValidationError',
      [`${'k'.repeat(MAX_SHOWN_CHARACTERS)}… (10000 characters)`]: 'must not contain a NUL character (%00)',
    });
  });
});
