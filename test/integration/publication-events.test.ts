import { importDocumentsNow } from '../../src/commands/import-documents';
import { publishDocument } from '../../src/commands/publish-document';
import { ApiVersion } from '../../src/domain/api-versions';
import { withTransaction } from '../../src/db/pool';
import { documentQueries } from '../../src/db/queries/documents';
import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

interface EventRecord {
  id: number;
  createdAt: string;
  projectId: number;
  channelId: number;
  documentId: number;
  documentType: string;
  eventType: string;
  publicationId: number | null;
}

describe('GET publicationEvents[/{channelHandle}]', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let project: { projectId: number; channelId: number; handle: string };
  let channelHandle: string;
  /** What the commands did, in order: [documentId, eventType]. */
  const made: [number, string][] = [];

  const run = async (documentId: number, operation: 'publish' | 'unpublish') => {
    const response = await api.patch(`documents/${documentId}/commands`, { commands: [{ operation }] });
    expect(response.status).toBe(204);
  };

  beforeAll(async () => {
    app = await startTestApp();
    project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId)).token);
    const channel = await app.ctx.pool.query<{ handle: string }>(
      'SELECT handle FROM channels WHERE id = $1',
      [project.channelId],
    );
    channelHandle = channel.rows[0]!.handle;

    // 7 documents, 3 of them pages; published, republished and unpublished in a known order: 12 events.
    const docs = [];
    for (let i = 0; i < 7; i += 1) {
      docs.push(
        await createDraftDocument(app.ctx, {
          ...project,
          ...(i % 3 === 0 ? { documentType: 'page' as const, contentType: 'page' } : {}),
        }),
      );
    }
    for (const doc of docs) {
      await run(doc.id, 'publish');
      made.push([doc.id, 'publish']);
    }
    for (const doc of docs.slice(0, 3)) {
      await run(doc.id, 'publish');
      made.push([doc.id, 'update']);
    }
    for (const doc of docs.slice(4, 6)) {
      await run(doc.id, 'unpublish');
      made.push([doc.id, 'unpublish']);
    }
  });
  afterAll(async () => {
    await app.close();
  });

  it('when no token is sent, then 401; without public-api:read, then 403; bad parameters are 400 by name', async () => {
    expect((await apiClient(app.url).get('publicationEvents')).status).toBe(401);
    const { token } = await tokenFor(app.ctx, project.projectId, ['public-api:write']);
    expect((await apiClient(app.url, token).get('publicationEvents')).status).toBe(403);
    const tooMany = await api.get('publicationEvents?limit=1001');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error_details).toEqual({ name: 'ValidationError', limit: 'must be <= 1000' });
    const bad = await api.get(
      'publicationEvents?id.gt=abc&createdAt.lt=yesterday&documentTypes=blog&reverse=maybe&foo=1',
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error_details).sort()).toEqual(
      ['createdAt.lt', 'documentTypes', 'foo', 'id.gt', 'name', 'reverse'].sort(),
    );
  });

  it('when a createdAt bound is sent with its offset’s + unencoded, then the 400 says to send it as %2B', async () => {
    const response = await api.get('publicationEvents?createdAt.gte=2025-03-01T10:00:00+01:00');
    expect(response.status).toBe(400);
    expect(response.body.error_details['createdAt.gte']).toContain('send it as %2B');
    const encoded = await api.get('publicationEvents?createdAt.gte=2025-03-01T10:00:00%2B01:00');
    expect(encoded.status).toBe(200);
  });

  it('when an unknown channel handle is given, then 404', async () => {
    const response = await api.get('publicationEvents/no-such-channel');
    expect(response.status).toBe(404);
    expect(response.body.error_details).toMatchObject({ name: 'NotFound' });
  });

  it('when the stream is read page by page with id.gt, then it matches the publishes and unpublishes made, without gaps or repeats', async () => {
    const seen: EventRecord[] = [];
    let cursor = 0;
    for (;;) {
      const page = await api.get(`publicationEvents?limit=5&id.gt=${cursor}`);
      expect(page.status).toBe(200);
      const results = page.body.results as EventRecord[];
      seen.push(...results);
      if (results.length < 5) break;
      cursor = results.at(-1)!.id;
    }
    expect(seen.map((e) => [e.documentId, e.eventType])).toEqual(made);
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(Object.keys(seen[0]!).sort()).toEqual(
      [
        'channelId',
        'createdAt',
        'documentId',
        'documentType',
        'eventType',
        'id',
        'projectId',
        'publicationId',
      ].sort(),
    );
    expect(seen[0]).toMatchObject({ projectId: project.projectId, channelId: project.channelId });
    expect(typeof seen[0]!.publicationId).toBe('number');
  });

  it('when read up to 2025-11, then a bare array; from 2026-01, {results}', async () => {
    const bare = await api.withVersion('2025-11').get('publicationEvents?limit=2');
    expect(Array.isArray(bare.body)).toBe(true);
    expect(bare.body).toHaveLength(2);
    const wrapped = await api.withVersion('2026-01').get('publicationEvents?limit=2');
    expect(Object.keys(wrapped.body)).toEqual(['results']);
  });

  it('when limit is not given, then 100 at most; limit=0 gives none', async () => {
    expect((await api.get('publicationEvents')).body.results).toHaveLength(made.length);
    expect((await api.get('publicationEvents?limit=0')).body.results).toEqual([]);
  });

  it('when reverse, documentTypes, contentTypes, id and createdAt ranges are given, then they filter and order', async () => {
    const all = (await api.get('publicationEvents')).body.results as EventRecord[];
    const reversed = (await api.get('publicationEvents?reverse=true')).body.results as EventRecord[];
    expect(reversed.map((e) => e.id)).toEqual(all.map((e) => e.id).reverse());

    const pages = (await api.get('publicationEvents?documentTypes=page')).body.results as EventRecord[];
    expect(pages.length).toBeGreaterThan(0);
    expect(pages).toEqual(all.filter((e) => e.documentType === 'page'));
    const byContentType = (await api.get('publicationEvents?contentTypes=regular')).body
      .results as EventRecord[];
    expect(byContentType).toEqual(all.filter((e) => e.documentType === 'article'));

    const [third, , fifth] = [all[2]!, all[3]!, all[4]!];
    const range = (await api.get(`publicationEvents?id.gte=${third.id}&id.lt=${fifth.id}`)).body
      .results as EventRecord[];
    expect(range.map((e) => e.id)).toEqual([third.id, all[3]!.id]);
    const upTo = (await api.get(`publicationEvents?id.lte=${third.id}`)).body.results as EventRecord[];
    expect(upTo).toHaveLength(3);

    const last = all.at(-1)!;
    const after = (await api.get(`publicationEvents?createdAt.gt=${encodeURIComponent(last.createdAt)}`)).body
      .results;
    expect(after).toEqual([]);
    const until = (await api.get(`publicationEvents?createdAt.lte=${encodeURIComponent(last.createdAt)}`))
      .body.results;
    expect(until).toHaveLength(all.length);
    const before = (await api.get(`publicationEvents?createdAt.lt=${encodeURIComponent(all[0]!.createdAt)}`))
      .body.results;
    expect(before).toEqual([]);
  });

  it('when reverse is sent as the name alone (the vendor reference writes ?reverse&limit=2) or as 1 or 0, then it reads as a flag', async () => {
    const all = (await api.get('publicationEvents')).body.results as EventRecord[];
    const ids = (query: string) =>
      api.get(`publicationEvents?${query}`).then((r) => (r.body.results as EventRecord[]).map((e) => e.id));
    const newestTwo = all
      .map((e) => e.id)
      .reverse()
      .slice(0, 2);
    expect(await ids('reverse&limit=2')).toEqual(newestTwo);
    expect(await ids('limit=2&reverse')).toEqual(newestTwo);
    expect(await ids('reverse=1&limit=2')).toEqual(newestTwo);
    expect(await ids('reverse=0&limit=2')).toEqual(all.slice(0, 2).map((e) => e.id));
    const bare = await api.withVersion('v1').get('publicationEvents?reverse&limit=2');
    expect((bare.body as EventRecord[]).map((e) => e.id)).toEqual(newestTwo);
  });

  it('when a sync tool pages with the deprecated after=<event id> of the vendor API, then it reads as id.gt, on every version', async () => {
    const all = (await api.get('publicationEvents')).body.results as EventRecord[];
    const third = all[2]!.id;
    const ids = (response: { body: EventRecord[] | { results: EventRecord[] } }) =>
      (Array.isArray(response.body) ? response.body : response.body.results).map((e) => e.id);
    const expected = all.filter((e) => e.id > third).map((e) => e.id);
    for (const version of ['v1', '2025-11', '2026-01']) {
      const response = await api.withVersion(version).get(`publicationEvents?after=${third}`);
      expect({ version, status: response.status }).toEqual({ version, status: 200 });
      expect(ids(response)).toEqual(expected);
    }
    // With id.gt as well, both bounds hold: the larger decides.
    expect(ids(await api.get(`publicationEvents?after=${third}&id.gt=${all[4]!.id}`))).toEqual(
      all.filter((e) => e.id > all[4]!.id).map((e) => e.id),
    );
    expect(ids(await api.get(`publicationEvents?after=${all[4]!.id}&id.gt=${third}&limit=1`))).toEqual([
      all[5]!.id,
    ]);
    const bad = await api.get('publicationEvents?after=abc');
    expect(bad.status).toBe(400);
    expect(bad.body.error_details).toEqual({
      name: 'ValidationError',
      after: 'must be a non-negative integer id',
    });
  });

  it('when a createdAt bound has digits past the millisecond, then each bound holds exactly', async () => {
    const all = (await api.get('publicationEvents')).body.results as EventRecord[];
    const last = all.at(-1)!;
    // Events are stored at millisecond precision: one made at …ms is before …ms+0.1µs, never at or after it.
    const past = encodeURIComponent(last.createdAt.replace('Z', '0001Z'));
    const created = (query: string) =>
      api.get(`publicationEvents?${query}`).then((r) => (r.body.results as EventRecord[]).map((e) => e.id));
    const at = all.filter((e) => e.createdAt === last.createdAt).map((e) => e.id);
    const before = all.filter((e) => e.createdAt < last.createdAt).map((e) => e.id);
    expect(await created(`createdAt.gte=${past}`)).toEqual([]);
    expect(await created(`createdAt.gt=${past}`)).toEqual([]);
    expect(await created(`createdAt.lt=${past}`)).toEqual(all.map((e) => e.id));
    expect(await created(`createdAt.lte=${past}`)).toEqual(all.map((e) => e.id));
    const exactly = encodeURIComponent(last.createdAt.replace('Z', '000Z'));
    expect(await created(`createdAt.gte=${exactly}`)).toEqual(at);
    expect(await created(`createdAt.lt=${exactly}`)).toEqual(before);
  });

  it('when a publish commits after a later one started, then a poller paging with id.gt still gets both, in commit order', async () => {
    // A project of its own: the events of this test stay out of the other tests' counts.
    const own = await createTestProject(app.ctx);
    const client = apiClient(app.url, (await tokenFor(app.ctx, own.projectId)).token);
    const [slow, fast] = [await createDraftDocument(app.ctx, own), await createDraftDocument(app.ctx, own)];
    const seen: EventRecord[] = [];
    let cursor = 0;
    const poll = async () => {
      const page = await client.get(`publicationEvents?id.gt=${cursor}`);
      expect(page.status).toBe(200);
      seen.push(...(page.body.results as EventRecord[]));
      cursor = seen.at(-1)?.id ?? cursor;
    };

    // The slow publish has written its event and not committed yet when the fast one (an ordinary request)
    // publishes: the fast one must not become visible first, or the poller's id.gt would pass the slow one.
    let commitSlow!: () => void;
    let slowWritten!: () => void;
    const written = new Promise<void>((resolve) => (slowWritten = resolve));
    const slowPublish = withTransaction(app.ctx.pool, async (tx) => {
      const row = await documentQueries(tx).findByIdForUpdate(own.projectId, slow.id);
      await publishDocument(tx, app.ctx.boss, row!, { now: new Date() });
      slowWritten();
      await new Promise<void>((resolve) => (commitSlow = resolve));
    });
    await written;
    const fastPublish = client.patch(`documents/${fast.id}/commands`, {
      commands: [{ operation: 'publish' }],
    });
    const fastStatus = fastPublish.then((response) => response.status);
    // Until the fast one waits for the slow one's event lock (or has answered: that would be the bug).
    for (let waited = 0; waited < 100; waited += 1) {
      const waiting = await app.ctx.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted " +
          'AND database = (SELECT oid FROM pg_database WHERE datname = current_database())',
      );
      if (waiting.rows[0]!.n > 0) break;
      if (
        await Promise.race([fastStatus, new Promise((resolve) => setTimeout(() => resolve(undefined), 50))])
      )
        break;
    }
    await poll();
    commitSlow();
    await slowPublish;
    expect(await fastStatus).toBe(204);
    await poll();

    expect(seen.map((e) => [e.documentId, e.eventType])).toEqual([
      [slow.id, 'publish'],
      [fast.id, 'publish'],
    ]);
  });

  it('when imports and publishes of one project race, then a poller paging with id.gt misses none of their events', async () => {
    // A project of its own: the events of this test stay out of the other tests' counts.
    const own = await createTestProject(app.ctx);
    const client = apiClient(app.url, (await tokenFor(app.ctx, own.projectId)).token);
    const drafts = [];
    for (let i = 0; i < 24; i += 1) drafts.push(await createDraftDocument(app.ctx, own));
    const seen: number[] = [];
    let cursor = 0;
    const poll = async () => {
      const page = await client.get(`publicationEvents?id.gt=${cursor}&limit=1000`);
      expect(page.status).toBe(200);
      const ids = (page.body.results as EventRecord[]).map((event) => event.id);
      seen.push(...ids);
      cursor = ids.at(-1) ?? cursor;
      return ids.length;
    };

    let racing = true;
    const poller = (async () => {
      while (racing) await poll();
    })();
    // Small batches, several in flight, beside publish requests several at a time: many transactions that
    // draw event ids at once and commit in any order.
    const imports = [0, 1].map((round) =>
      importDocumentsNow(
        app.ctx,
        own.projectId,
        ApiVersion.latest(),
        {
          systemName: `race-${round}`,
          documents: Array.from({ length: 60 }, (_, i) => ({
            id: `doc-${i}`,
            contentType: 'regular',
            content: [],
            metadata: { title: `Raced ${round}.${i}` },
            flags: { autoPublish: true },
          })),
        },
        { batchSize: 2, concurrency: 4 },
      ),
    );
    const publishes = (async () => {
      for (let round = 0; round < 2; round += 1) {
        for (let i = 0; i < drafts.length; i += 6) {
          const responses = await Promise.all(
            drafts
              .slice(i, i + 6)
              .map((draft) =>
                client.patch(`documents/${draft.id}/commands`, { commands: [{ operation: 'publish' }] }),
              ),
          );
          expect(responses.map((response) => response.status)).toEqual(responses.map(() => 204));
        }
      }
    })();
    try {
      const results = await Promise.all(imports);
      expect(results.map((result) => result.state)).toEqual(['success', 'success']);
      await publishes;
    } finally {
      racing = false;
      await poller;
    }
    while ((await poll()) > 0);

    const stored = await app.ctx.pool.query<{ id: string }>(
      'SELECT id FROM publication_events WHERE project_id = $1 ORDER BY id',
      [own.projectId],
    );
    expect(stored.rows).toHaveLength(2 * 60 + 2 * drafts.length);
    expect(seen).toEqual(stored.rows.map((row) => Number(row.id)));
  });

  it('when an import batch’s events share one createdAt, then a poller resuming with createdAt.gte and id.gt of the last event gets them all, page by page', async () => {
    const own = await createTestProject(app.ctx);
    const client = apiClient(app.url, (await tokenFor(app.ctx, own.projectId)).token);
    const imported = await importDocumentsNow(app.ctx, own.projectId, ApiVersion.latest(), {
      systemName: 'batch',
      documents: Array.from({ length: 5 }, (_, i) => ({
        id: `doc-${i}`,
        contentType: 'regular',
        content: [],
        metadata: { title: `Batch ${i}` },
        flags: { autoPublish: true },
      })),
    });
    expect(imported.state).toBe('success');
    const all = (await client.get('publicationEvents')).body.results as EventRecord[];
    expect(all).toHaveLength(5);
    expect(new Set(all.map((event) => event.createdAt)).size).toBe(1);

    const seen: number[] = [];
    let last: EventRecord | undefined;
    for (let page = 0; page < 5; page += 1) {
      const query = last
        ? `&createdAt.gte=${encodeURIComponent(last.createdAt)}&id.gt=${last.id}`
        : `&createdAt.gte=${encodeURIComponent(all[0]!.createdAt)}`;
      const results = (await client.get(`publicationEvents?limit=2${query}`)).body.results as EventRecord[];
      if (results.length === 0) break;
      seen.push(...results.map((event) => event.id));
      last = results.at(-1);
    }
    expect(seen).toEqual(all.map((event) => event.id));
  });

  it('when a publish that started earlier commits after a later one, then createdAt still grows with id, so resuming from the last createdAt seen misses nothing', async () => {
    // A project of its own: the events of this test stay out of the other tests' counts.
    const own = await createTestProject(app.ctx);
    const client = apiClient(app.url, (await tokenFor(app.ctx, own.projectId)).token);
    const [slow, fast] = [await createDraftDocument(app.ctx, own), await createDraftDocument(app.ctx, own)];
    const events = async (query = '') =>
      (await client.get(`publicationEvents?${query}`)).body.results as EventRecord[];

    // Someone else holds the slow document's row (an editor's long transaction): its publish request has
    // started, and waits, while the fast one publishes and commits.
    const holder = await app.ctx.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM documents WHERE id = $1 FOR UPDATE', [slow.id]);
      const slowPublish = client.patch(`documents/${slow.id}/commands`, {
        commands: [{ operation: 'publish' }],
      });
      const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      let blocked = false;
      for (let waited = 0; waited < 200 && !blocked; waited += 1) {
        const waiting = await app.ctx.pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          [holderPid],
        );
        blocked = waiting.rows[0]!.n > 0;
        if (!blocked) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(blocked).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const fastPublish = await client.patch(`documents/${fast.id}/commands`, {
        commands: [{ operation: 'publish' }],
      });
      expect(fastPublish.status).toBe(204);
      const seen = await events();
      expect(seen.map((e) => e.documentId)).toEqual([fast.id]);

      await holder.query('COMMIT');
      expect((await slowPublish).status).toBe(204);
      // A poller that keeps its place by time gets the slow publish after the fast one it has seen.
      const resumed = await events(`createdAt.gt=${encodeURIComponent(seen[0]!.createdAt)}`);
      expect(resumed.map((e) => [e.documentId, e.eventType])).toEqual([[slow.id, 'publish']]);
      const all = await events();
      expect(all.map((e) => e.documentId)).toEqual([fast.id, slow.id]);
      expect(all[1]!.createdAt >= all[0]!.createdAt).toBe(true);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
  });

  it('when read through the channel handle, then the channel’s events come; another project never sees them', async () => {
    const channel = await api.get(`publicationEvents/${channelHandle}`);
    expect(channel.status).toBe(200);
    expect(channel.body.results).toHaveLength(made.length);
    const other = await createTestProject(app.ctx);
    const { token } = await tokenFor(app.ctx, other.projectId);
    const foreign = await apiClient(app.url, token).get('publicationEvents');
    expect(foreign.body.results).toEqual([]);
  });
});
