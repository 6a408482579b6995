import { importWebhookPayload } from '../../src/commands/deliver-import-webhook';
import type { ImportJobRow } from '../../src/db/queries/import-jobs';
import { ImportWebhookPayloadSchema } from '../../src/domain/import-request';

const job = (overrides: Partial<ImportJobRow> = {}): ImportJobRow => ({
  id: '6f1c0a52-1b2c-4d3e-8f90-123456789abc',
  projectId: 1,
  systemName: 'wire',
  state: 'success',
  request: { systemName: 'wire', webhook: 'https://example.com/hook', context: { batch: 7 }, documents: [] },
  logs: [
    { state: 'imported', external_id: 'a', document_id: 1 },
    { state: 'published', external_id: 'b', document_id: 2 },
    { state: 'failed', external_id: 'c', document_id: null, reason: 'unknown content type' },
  ],
  apiVersion: '2026-03',
  createdAt: new Date('2026-11-23T17:59:00Z'),
  finishedAt: new Date('2026-11-23T18:00:00Z'),
  webhookState: 'pending',
  webhookAttempts: 0,
  webhookDeliveredAt: null,
  webhookError: null,
  ...overrides,
});

describe('importWebhookPayload', () => {
  it('when a job finished, then the payload is its status, the request context, the time and the counts', () => {
    const payload = importWebhookPayload(job());
    expect(payload).toEqual({
      event: 'import.finished',
      id: '6f1c0a52-1b2c-4d3e-8f90-123456789abc',
      finished: true,
      state: 'success',
      systemName: 'wire',
      context: { batch: 7 },
      finishedAt: '2026-11-23T18:00:00.000Z',
      counts: { imported: 1, published: 1, failed: 1 },
      logs: job().logs,
    });
    expect(ImportWebhookPayloadSchema.safeParse(payload).error).toBeUndefined();
  });

  it('when the request had no context and the job failed, then neither is invented', () => {
    const payload = importWebhookPayload(
      job({
        state: 'failed',
        request: { systemName: 'wire', webhook: 'https://example.com/hook', documents: [] },
      }),
    );
    expect(payload).not.toHaveProperty('context');
    expect(payload.state).toBe('failed');
    expect(ImportWebhookPayloadSchema.safeParse(payload).error).toBeUndefined();
  });
});
