import { queueOptionsToUpdate } from '../../src/jobs/boss';
import { QUEUES } from '../../src/jobs/queues';

describe('queue options', () => {
  it('when a queue was made by an older release, then the options it lacks are the update', () => {
    const existing = {
      expireInSeconds: 900,
      retryLimit: 10,
      retryDelay: 1,
      retryBackoff: true,
      notify: true,
    };
    expect(queueOptionsToUpdate(existing, { ...QUEUES.indexDocument.options, notify: true })).toEqual({
      expireInSeconds: 15,
    });
    expect(
      queueOptionsToUpdate(
        { ...existing, heartbeatSeconds: null },
        { ...QUEUES.importDocuments.options, notify: true },
      ),
    ).toEqual({ expireInSeconds: 600, heartbeatSeconds: 10 });
  });

  it('when a queue already has its options, then there is nothing to update', () => {
    const wanted = { ...QUEUES.scheduledPublish.options, notify: true };
    expect(
      queueOptionsToUpdate({ ...wanted, name: 'scheduled-publish', deadLetter: null }, wanted),
    ).toBeUndefined();
  });

  it('when any queue is defined, then its jobs expire within minutes, never at the 15-minute default', () => {
    for (const queue of Object.values(QUEUES)) {
      expect(queue.options.expireInSeconds).toBeLessThan(900);
      // pg-boss refuses heartbeats under 10 s; a heartbeat must come well inside the expiry.
      const heartbeat: number | undefined =
        'heartbeatSeconds' in queue.options ? queue.options.heartbeatSeconds : undefined;
      if (heartbeat !== undefined) expect(heartbeat).toBeGreaterThanOrEqual(10);
    }
  });
});
