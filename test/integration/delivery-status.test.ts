import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import { deleteCommittedWhileWaiting } from '../helpers/uncommitted-delete';
import { deliveryStatusAnswer } from '../../src/http/routes/documents/delivery-status.schema';

describe('POST documents/{documentId}/addDeliveryStatus', () => {
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

  const published = () => createPublishedDraft(app.ctx, project);
  const report = (id: number, body: unknown, client = api) =>
    client.post(`documents/${id}/addDeliveryStatus`, body);
  const stored = async (reportId: string) =>
    (
      await app.ctx.pool.query('SELECT status, message, user_choices FROM delivery_reports WHERE id = $1', [
        reportId,
      ])
    ).rows[0] as { status: string; message: string | null; user_choices: unknown } | undefined;

  it('when no token is sent, then 401; without public-api:write, then 403', async () => {
    const doc = await published();
    const body = { publicationId: doc.latestPublicationId, deliveryHandle: 'web', status: 'success' };
    expect((await report(doc.id, body, apiClient(app.url))).status).toBe(401);
    const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:read']);
    expect((await report(doc.id, body, apiClient(app.url, token))).status).toBe(403);
  });

  it('when a required field is missing or a value is invalid, then 400 naming each path', async () => {
    const doc = await published();
    const response = await report(doc.id, { deliveryHandle: '', status: 'done', extra: 1 });
    expect(response.status).toBe(400);
    expect(response.body.error_details).toMatchObject({
      publicationId: 'is required',
      deliveryHandle: 'must not be empty',
      extra: 'is not allowed',
    });
    expect(response.body.error_details.status).toMatch(
      /must be one of 'success', 'failed', 'in-progress', 'aborted'/,
    );
  });

  it('when the body is empty, then 400 saying each required field is missing, the status with its values', async () => {
    // A missing status was 'must be one of ...', beside 'is required' for the other two: it read as a wrong
    // value sent, not as none.
    const doc = await published();
    const response = await report(doc.id, {});
    expect(response.body).toEqual({
      status: 400,
      error: 'Bad Request',
      error_details: {
        name: 'ValidationError',
        publicationId: 'is required',
        deliveryHandle: 'is required',
        status: "is required: one of 'success', 'failed', 'in-progress', 'aborted'",
      },
    });
  });

  it('when a query parameter is sent, then 400 naming it and no report is stored', async () => {
    // addDeliveryStatus?reportId=... answered 200 with a new report, the parameter silently ignored.
    const doc = await published();
    const body = { publicationId: doc.latestPublicationId, deliveryHandle: 'web', status: 'success' };
    const reportId = '3b241101-e2bb-4255-8caf-4136c566a962';
    const response = await api.post(`documents/${doc.id}/addDeliveryStatus?reportId=${reportId}`, body);
    expect(response.status).toBe(400);
    expect(response.body.error_details).toEqual({ name: 'ValidationError', reportId: 'is not allowed' });
    const reports = await app.ctx.pool.query('SELECT 1 FROM delivery_reports WHERE document_id = $1', [
      doc.id,
    ]);
    expect(reports.rowCount).toBe(0);
  });

  it('when userChoices come with a status other than in-progress, then 400 on userChoices', async () => {
    const doc = await published();
    const response = await report(doc.id, {
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'print',
      status: 'success',
      userChoices: [{ label: 'Retry', value: 'retry' }],
    });
    expect(response.status).toBe(400);
    expect(response.body.error_details.userChoices).toMatch(/in-progress/);
  });

  it('when a user choice has a label over 200 or a value over 1,000 characters, then 400 naming it and nothing is stored', async () => {
    // Each was stored as sent, megabytes of it (the message has its limit of 10,000 characters).
    const doc = await published();
    const response = await report(doc.id, {
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'print',
      status: 'in-progress',
      userChoices: [
        { label: 'x'.repeat(201), value: 'retry' },
        { label: 'Abort', value: 'y'.repeat(1_001) },
        { label: 'x'.repeat(200), value: 'y'.repeat(1_000) },
      ],
    });
    expect(response.status).toBe(400);
    expect(response.body.error_details).toEqual({
      name: 'ValidationError',
      'userChoices.0.label': 'must be at most 200 characters long',
      'userChoices.1.value': 'must be at most 1000 characters long',
    });
    const reports = await app.ctx.pool.query('SELECT 1 FROM delivery_reports WHERE document_id = $1', [
      doc.id,
    ]);
    expect(reports.rowCount).toBe(0);
  });

  it('when the document, the reportId or the publication is unknown, then 404 / 404 / 400', async () => {
    const doc = await published();
    const base = { publicationId: doc.latestPublicationId, deliveryHandle: 'web', status: 'success' };
    const noDoc = await report(987654321, base);
    expect(noDoc.status).toBe(404);
    expect(noDoc.body.error_details).toMatchObject({ name: 'NotFound' });
    const noReport = await report(doc.id, { ...base, reportId: '3b241101-e2bb-4255-8caf-4136c566a962' });
    expect(noReport.status).toBe(404);
    expect((await report(doc.id, { ...base, reportId: 'not-a-uuid' })).status).toBe(404);
    const other = await published();
    const wrongPublication = await report(doc.id, { ...base, publicationId: other.latestPublicationId });
    expect(wrongPublication.status).toBe(400);
    expect(wrongPublication.body.error_details.publicationId).toMatch(/is not a publication of document/);
    const draft = await createDraftDocument(app.ctx, project);
    expect((await report(draft.id, base)).status).toBe(400);
  });

  it('when the document is deleted while a report is added, then 404 and no report is stored', async () => {
    // The report's insert met the foreign key of a document deleted after it was read: a 500.
    const doc = await published();
    const outcome = await deleteCommittedWhileWaiting(
      app.ctx.pool,
      { text: 'DELETE FROM documents WHERE id = $1', values: [doc.id] },
      () =>
        report(doc.id, { publicationId: doc.latestPublicationId, deliveryHandle: 'web', status: 'success' }),
    );
    expect(outcome).toMatchObject({
      status: 'fulfilled',
      value: { status: 404, body: { error_details: { message: `Document ${doc.id} not found` } } },
    });
    const reports = await app.ctx.pool.query('SELECT 1 FROM delivery_reports WHERE document_id = $1', [
      doc.id,
    ]);
    expect(reports.rowCount).toBe(0);
  });

  it('when a report is added without reportId, then it is created with a new reportId; with it, that report is updated', async () => {
    const doc = await published();
    const created = await report(doc.id, {
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'newsletter',
      status: 'in-progress',
      message: 'Sending to 1200 readers',
      userChoices: [{ label: 'Abort', value: 'abort' }],
    });
    expect(created.status).toBe(200);
    expect(created.body.reportId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.body).toMatchObject({
      documentId: doc.id,
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'newsletter',
      status: 'in-progress',
      message: 'Sending to 1200 readers',
      userChoices: [{ label: 'Abort', value: 'abort' }],
    });
    // The answer's zod schema, from which the OpenAPI description's is generated, holds the real answer.
    expect(deliveryStatusAnswer.safeParse(created.body).error).toBeUndefined();

    const second = await report(doc.id, {
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'web',
      status: 'failed',
    });
    expect(second.body.reportId).not.toBe(created.body.reportId);

    const updated = await report(doc.id, {
      reportId: created.body.reportId,
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'newsletter',
      status: 'success',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.reportId).toBe(created.body.reportId);
    expect(updated.body.status).toBe('success');
    expect(deliveryStatusAnswer.safeParse(updated.body).error).toBeUndefined();
    expect(await stored(created.body.reportId)).toEqual({
      status: 'success',
      message: null,
      user_choices: null,
    });

    const aborted = await report(doc.id, {
      reportId: created.body.reportId,
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'newsletter',
      status: 'aborted',
    });
    expect(aborted.body.status).toBe('aborted');
  });

  it('when the message is plain text, then it is stored as given; HTML loses scripts and event handlers', async () => {
    const doc = await published();
    const plain = 'Price < 5 & "quoted" text';
    const first = await report(doc.id, {
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'web',
      status: 'success',
      message: plain,
    });
    expect(first.body.message).toBe(plain);
    expect((await stored(first.body.reportId))!.message).toBe(plain);

    const html =
      '<p onclick="steal()">Sent <a href="https://example.com" onmouseover="x()">here</a><script>alert(1)</script></p><img src=x onerror=alert(1)>';
    const second = await report(doc.id, {
      publicationId: doc.latestPublicationId,
      deliveryHandle: 'web',
      status: 'success',
      message: html,
    });
    expect(second.body.message).toBe('<p>Sent <a href="https://example.com">here</a></p>');
    expect((await stored(second.body.reportId))!.message).toBe(
      '<p>Sent <a href="https://example.com">here</a></p>',
    );
  });

  it('when the message links to a new tab, then the link carries rel="noopener noreferrer" (no reverse tabnabbing)', async () => {
    const doc = await published();
    const cases: [string, string][] = [
      [
        '<a href="https://example.com" target="_blank">here</a>',
        '<a href="https://example.com" target="_blank" rel="noopener noreferrer">here</a>',
      ],
      [
        '<a href="https://example.com" target="_blank" rel="nofollow opener">here</a>',
        '<a href="https://example.com" target="_blank" rel="nofollow noopener noreferrer">here</a>',
      ],
      [
        '<a href="https://example.com" target="preview">here</a>',
        '<a href="https://example.com" target="preview" rel="noopener noreferrer">here</a>',
      ],
      // A link in the same tab cannot reach back through window.opener: left as sent.
      [
        '<a href="https://example.com" rel="nofollow">here</a>',
        '<a href="https://example.com" rel="nofollow">here</a>',
      ],
    ];
    for (const [message, expected] of cases) {
      const response = await report(doc.id, {
        publicationId: doc.latestPublicationId,
        deliveryHandle: 'web',
        status: 'success',
        message,
      });
      expect(response.body.message).toBe(expected);
      expect((await stored(response.body.reportId))!.message).toBe(expected);
    }
  });
});
