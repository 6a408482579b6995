import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { errors, type TransportRequestOptions, type TransportRequestParams } from '@elastic/elasticsearch';
import { searchDocumentId } from '../../src/search/document-builder';
import { RebuildRunningError, rebuildIndex, verifyIndex } from '../../src/search/index-manager';
import {
  bulkLoadSettings,
  ensurePublicationsIndex,
  publicationsIndexDefinition,
  rebuildingAlias,
} from '../../src/search/index-aliases';
import { indexDocuments } from '../../src/search/indexer';
import { isolatedEnv, startTestApp, type TestApp } from '../helpers/app';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';
import { publishDocument } from '../../src/commands/publish-document';
import { withTransaction } from '../../src/db/pool';
import { documentQueries } from '../../src/db/queries/documents';
import {
  createPublishedDocument,
  indexNow,
  republishDocument,
  startIndexWorker,
  unpublish,
} from '../helpers/documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';
import { expectConverged } from '../chaos/convergence';
import { killHard } from '../helpers/worker-process';

jest.setTimeout(60_000);

/**
 * Rebuilds racing the indexer and each other, with the interleavings forced by hooks (a bulk request held
 * until the rebuild has swapped, a rebuild held at its first page). A database and an alias of its own, no
 * worker: every index write here is one the test makes, at the moment it chooses.
 */
describe('index rebuild: races with live writes, other rebuilds and dead rebuilds', () => {
  let app: TestApp;
  let projectId: number;
  let api: ReturnType<typeof apiClient>;
  const word = () => `w${randomBytes(5).toString('hex')}`;
  const deps = () => ({ db: app.ctx.pool, search: app.ctx.search, index: app.ctx.index });

  /** Every physical index of this alias that exists, whatever points at it. */
  const physicalIndices = async () =>
    Object.keys(
      await app.ctx.search.indices.get({
        index: app.ctx.index.physicalPattern,
        expand_wildcards: 'all',
        allow_no_indices: true,
      }),
    ).sort();
  const aliasTargets = async (name: string) =>
    Object.keys(await app.ctx.search.indices.getAlias({ name }, { ignore: [404] })).filter(
      (key) => !['error', 'status'].includes(key),
    );
  const found = async (term: string) => {
    const response = await api.get(`publications/search?search=${term}&fields=id&limit=100`);
    expect(response.status).toBe(200);
    return (response.body.results as { documentId: number }[]).map((item) => item.documentId);
  };
  const indexedVersion = async (documentId: number) => {
    const hit = await app.ctx.search.get(
      { index: app.ctx.index.alias, id: searchDocumentId(projectId, documentId) },
      { ignore: [404] },
    );
    return hit.found ? hit._version : undefined;
  };
  const pgVersion = async (documentId: number) =>
    (
      await app.ctx.pool.query<{ index_version: number }>(
        'SELECT index_version FROM documents WHERE id = $1',
        [documentId],
      )
    ).rows[0]!.index_version;

  let env: Record<string, string>;

  beforeAll(async () => {
    env = await isolatedEnv('rr');
    app = await startTestApp({ env });
    await ensurePublicationsIndex(app.ctx.search, app.ctx.index);
    projectId = (await createTestProject(app.ctx)).projectId;
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:read'])).token);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await app.close();
  });

  /**
   * Holds the bulk requests `matches` picks until released; the rest go through. Answers a promise that
   * resolves when the first such request is being held.
   */
  function holdBulks(matches: (body: string) => boolean) {
    const original = app.ctx.search.transport.request.bind(app.ctx.search.transport);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let heldOne!: () => void;
    const held = new Promise<void>((resolve) => (heldOne = resolve));
    const spy = jest
      .spyOn(app.ctx.search.transport, 'request')
      .mockImplementation(async (params: TransportRequestParams, options?: TransportRequestOptions) => {
        const body = params.bulkBody;
        if (params.path === '/_bulk' && Buffer.isBuffer(body) && matches(body.toString())) {
          heldOne();
          await released;
        }
        return original(params, options);
      });
    return { held, release, restore: () => spy.mockRestore() };
  }

  it('when an index job resolved the old index just before the swap and writes after it was dropped, then no index is left behind and the newer version is served', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Late ${term}` },
    });
    await indexNow(app.ctx, projectId, [documentId]);
    const [oldIndex] = await aliasTargets(app.ctx.index.alias);

    // The job's bulk request (its targets resolved before the swap: the one the rebuild writes names its
    // target alone) reaches Elasticsearch only after the rebuild swapped and dropped the old index.
    let target = '';
    const hold = holdBulks((body) =>
      [...body.matchAll(/"_index":"([^"]+)"/g)].some(([, name]) => name !== target),
    );
    let job: Promise<unknown> | undefined;
    const result = await rebuildIndex(deps(), {
      batchSize: 100,
      onStart: (_total, name) => {
        target = name;
      },
      onProgress: async () => {
        if (job) return;
        await republishDocument(app.ctx, projectId, documentId, { title: `Later ${term}` });
        job = indexDocuments(deps(), [{ projectId, documentId }]);
        await hold.held;
      },
    });
    hold.release();
    await job;
    hold.restore();

    expect(oldIndex).not.toBe(result.index);
    expect(await physicalIndices()).toEqual([result.index]);
    await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
    expect(await indexedVersion(documentId)).toBe(await pgVersion(documentId));
  });

  it('when a rebuild died and left its half-built index behind, then the next rebuild leaves one index, the live one, and nothing rebuilding', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Survivor ${term}` },
    });
    await indexNow(app.ctx, projectId, [documentId]);
    // What a rebuild killed (SIGKILL, a crash) after creating its target leaves: the target, behind the
    // rebuilding alias, that nothing will ever swap in or drop.
    const dead = `${app.ctx.index.alias}-v20000101000000000`;
    const { mappings } = publicationsIndexDefinition();
    await app.ctx.search.indices.create({
      index: dead,
      settings: bulkLoadSettings(),
      mappings,
      aliases: { [rebuildingAlias(app.ctx.index)]: {} },
    });

    const result = await rebuildIndex(deps(), { batchSize: 100 });

    expect(await physicalIndices()).toEqual([result.index]);
    expect(await aliasTargets(rebuildingAlias(app.ctx.index))).toEqual([]);
    expect(await aliasTargets(app.ctx.index.alias)).toEqual([result.index]);
    expect(await found(term)).toEqual([documentId]);
  });

  it('when two rebuilds are started at once, then one runs and the other is refused, one index serves, none is left behind, and every document is in it', async () => {
    const term = word();
    const ids: number[] = [];
    for (let n = 0; n < 6; n += 1) {
      ids.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `Twice ${term} ${n}` } }))
          .documentId,
      );
    }
    await indexNow(app.ctx, projectId, ids);
    const outcomes = await Promise.allSettled([
      rebuildIndex(deps(), { batchSize: 2 }),
      rebuildIndex(deps(), { batchSize: 2 }),
    ]);
    const live = await aliasTargets(app.ctx.index.alias);
    expect(live).toHaveLength(1);
    expect(await physicalIndices()).toEqual(live);
    expect(await aliasTargets(rebuildingAlias(app.ctx.index))).toEqual([]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected')!.reason as Error;
    expect(refused).toBeInstanceOf(RebuildRunningError);
    expect(refused.message).toMatch(/another index rebuild .* is running/i);
    // Once it is over, the next one runs.
    await expect(rebuildIndex(deps(), { batchSize: 2 })).resolves.toMatchObject({
      indexed: expect.any(Number),
    });
    expect((await found(term)).sort((a, b) => a - b)).toEqual(ids);
  });

  it('when Elasticsearch refuses a bulk request of the rebuild, then the rebuild fails, the old index keeps serving every document, nothing is left behind, and a rerun succeeds', async () => {
    const term = word();
    const ids: number[] = [];
    for (let n = 0; n < 6; n += 1) {
      ids.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `Refused ${term} ${n}` } }))
          .documentId,
      );
    }
    await indexNow(app.ctx, projectId, ids);
    const [oldIndex] = await aliasTargets(app.ctx.index.alias);
    // The rebuild's first bulk request is refused as a whole (a 400 is not retried), at once.
    let target = '';
    let refused = 0;
    const original = app.ctx.search.transport.request.bind(app.ctx.search.transport);
    const spy = jest
      .spyOn(app.ctx.search.transport, 'request')
      .mockImplementation(async (params: TransportRequestParams, options?: TransportRequestOptions) => {
        const body = params.bulkBody;
        if (
          params.path === '/_bulk' &&
          Buffer.isBuffer(body) &&
          target &&
          body.includes(target) &&
          refused === 0
        ) {
          refused += 1;
          throw new errors.ResponseError({
            body: { error: { type: 'illegal_argument_exception', reason: 'refused by the test' } },
            statusCode: 400,
            headers: {},
            warnings: null,
            meta: {} as never,
          });
        }
        return original(params, options);
      });
    const outcome = await rebuildIndex(deps(), {
      batchSize: 2,
      onStart: (_total, name) => {
        target = name;
      },
    }).then(
      (result) => `rebuilt ${result.index} with ${result.indexed}`,
      (error: Error) => `failed: ${error.message}`,
    );
    spy.mockRestore();

    expect(refused).toBe(1);
    expect(outcome).toMatch(/^failed: illegal_argument_exception/);
    expect(await aliasTargets(app.ctx.index.alias)).toEqual([oldIndex]);
    expect(await physicalIndices()).toEqual([oldIndex]);
    expect((await found(term)).sort((a, b) => a - b)).toEqual(ids);

    const rerun = await rebuildIndex(deps(), { batchSize: 2 });
    expect(await physicalIndices()).toEqual([rerun.index]);
    expect((await found(term)).sort((a, b) => a - b)).toEqual(ids);
  });

  it('when dropping the old index fails after the swap, then the new index keeps serving every document and the next rebuild drops the old one', async () => {
    const term = word();
    const ids: number[] = [];
    for (let n = 0; n < 3; n += 1) {
      ids.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `Swapped ${term} ${n}` } }))
          .documentId,
      );
    }
    await indexNow(app.ctx, projectId, ids);
    const [oldIndex] = await aliasTargets(app.ctx.index.alias);
    // Elasticsearch times out (or answers 5xx) on the delete of the old index, once.
    const original = app.ctx.search.indices.delete.bind(app.ctx.search.indices);
    let failedOnce = false;
    const spy = jest
      .spyOn(app.ctx.search.indices, 'delete')
      .mockImplementation((params: { index: string | string[] }, options?: TransportRequestOptions) => {
        if (!failedOnce && [params.index].flat().includes(oldIndex!)) {
          failedOnce = true;
          return Promise.reject(new errors.TimeoutError('Request timed out'));
        }
        return original(params, options);
      });
    const outcome = await rebuildIndex(deps(), { batchSize: 100 }).then(
      (result) => result.index,
      (error: Error) => `failed: ${error.message}`,
    );
    spy.mockRestore();

    expect(failedOnce).toBe(true);
    const live = await aliasTargets(app.ctx.index.alias);
    expect(live).toHaveLength(1);
    expect(live).not.toEqual([oldIndex]);
    expect((await found(term)).sort((a, b) => a - b)).toEqual(ids);
    expect(outcome).toBe(live[0]);

    const next = await rebuildIndex(deps(), { batchSize: 100 });
    expect(await physicalIndices()).toEqual([next.index]);
  });

  it('when the swap request times out after Elasticsearch applied it, then the rebuild reports the failure but does not drop the index searches now read', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Applied ${term}` },
    });
    await indexNow(app.ctx, projectId, [documentId]);
    const original = app.ctx.search.indices.updateAliases.bind(app.ctx.search.indices);
    const spy = jest.spyOn(app.ctx.search.indices, 'updateAliases').mockImplementation((async (
      params: never,
      options?: TransportRequestOptions,
    ) => {
      await original(params, options);
      throw new errors.TimeoutError('Request timed out');
    }) as never);
    const outcome = await rebuildIndex(deps(), { batchSize: 100 }).then(
      () => 'rebuilt',
      (error: Error) => `failed: ${error.message}`,
    );
    spy.mockRestore();

    expect(outcome).toBe('failed: Request timed out');
    expect(await aliasTargets(app.ctx.index.alias)).toHaveLength(1);
    expect(await found(term)).toEqual([documentId]);
    const next = await rebuildIndex(deps(), { batchSize: 100 });
    expect(await physicalIndices()).toEqual([next.index]);
  });

  it('when a document is unpublished between the rebuild reading its page and writing it, then it is not in the rebuilt index', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Gone ${term}` },
    });
    await indexNow(app.ctx, projectId, [documentId]);
    // Held: the rebuild's first bulk (its target only), after the page was read. Meanwhile the document is
    // unpublished and its index job runs (it reaches the target through the rebuilding alias).
    let target = '';
    const hold = holdBulks((body) => target !== '' && !body.includes('"delete"') && body.includes(target));
    const rebuilding = rebuildIndex(deps(), {
      batchSize: 1000,
      onStart: (_total, name) => {
        target = name;
      },
    });
    await hold.held;
    await unpublish(app.ctx, projectId, documentId);
    await indexDocuments(deps(), [{ projectId, documentId }]);
    hold.release();
    await rebuilding;
    hold.restore();
    await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
    expect(await found(term)).toEqual([]);
    expect(await indexedVersion(documentId)).toBeUndefined();
  });

  it('when the index holds an older version of a document with the same publication (a lost re-index job), then verify reports it stale (and an entry under another project extra) and --repair brings the version up', async () => {
    const term = word();
    const { documentId } = await createPublishedDocument(app.ctx, projectId, {
      metadata: { title: `Held ${term}` },
    });
    await indexNow(app.ctx, projectId, [documentId]);
    // An embargo set on the published document: the index version grows, the publication stays; the job
    // that would re-index it is lost (its outbox row removed, as a job failed for good leaves it).
    const writer = apiClient(
      app.url,
      (await tokenFor(app.ctx, projectId, ['public-api:read', 'public-api:write'])).token,
    );
    const set = await writer.patch(`documents/${documentId}/commands`, {
      commands: [{ operation: 'setEmbargo', reason: 'court order' }],
    });
    expect(set.status).toBe(204);
    await app.ctx.pool.query(`DELETE FROM pgboss.job WHERE name = 'index-document'`);
    expect(await indexedVersion(documentId)).toBeLessThan(await pgVersion(documentId));

    // And an entry of the same document under another project's id (a document is never moved between
    // projects, so such an entry is wrong whatever it holds).
    const otherProject = projectId + 1000;
    await app.ctx.search.index({
      index: app.ctx.index.alias,
      id: searchDocumentId(otherProject, documentId),
      document: { projectId: otherProject, documentId, publicationId: 1 },
      version: 1_000_000,
      version_type: 'external',
      refresh: true,
    });

    const report = await verifyIndex(deps());
    expect(report.stale).toContainEqual({ projectId, documentId });
    expect(report.extra).toContainEqual({ projectId: otherProject, documentId });

    await verifyIndex(deps(), { repair: true });
    await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
    expect(await indexedVersion(documentId)).toBe(await pgVersion(documentId));
    const after = await verifyIndex(deps());
    expect(after).toMatchObject({ missing: [], stale: [], extra: [] });
  });

  it('when the index holds a newer version than Postgres (Postgres restored from a backup), then verify --repair says it could not repair it, and a rebuild does', async () => {
    const { documentId } = await createPublishedDocument(app.ctx, projectId, { metadata: { title: word() } });
    await indexNow(app.ctx, projectId, [documentId]);
    // The entry as a later publication, lost with the restore, left it: another publication, a higher version.
    await app.ctx.search.index({
      index: app.ctx.index.alias,
      id: searchDocumentId(projectId, documentId),
      document: { projectId, documentId, publicationId: 999_999 },
      version: (await pgVersion(documentId)) + 5,
      version_type: 'external',
      refresh: true,
    });
    const key = { projectId, documentId };
    expect((await verifyIndex(deps())).stale).toEqual([key]);

    const repair = await verifyIndex(deps(), { repair: true });
    expect(repair.stale).toEqual([key]);
    expect(repair.unrepaired).toEqual([key]);

    await rebuildIndex(deps());
    expect(await verifyIndex(deps(), { repair: true })).toMatchObject({
      missing: [],
      stale: [],
      extra: [],
      unrepaired: [],
    });
  });

  it('when the CLI rebuild process is SIGKILLed midway, then the old index keeps serving and the next CLI rebuild runs and leaves one index', async () => {
    const term = word();
    const ids: number[] = [];
    for (let n = 0; n < 150; n += 1) {
      ids.push(
        (await createPublishedDocument(app.ctx, projectId, { metadata: { title: `Killed ${term} ${n}` } }))
          .documentId,
      );
    }
    await indexNow(app.ctx, projectId, ids);
    const [oldIndex] = await aliasTargets(app.ctx.index.alias);
    // Node itself runs the compiled CLI (not tsx's CLI, whose child SIGKILL would not reach).
    const cli = (...args: string[]) =>
      spawn(NODE, [CLI_SCRIPT, ...args], {
        env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const rebuilding = cli('index', 'rebuild', '--batch-size', '1');
    await eventually(async () => (await aliasTargets(rebuildingAlias(app.ctx.index))).length > 0, 30_000, 20);
    await killHard(rebuilding);
    expect(await aliasTargets(app.ctx.index.alias)).toEqual([oldIndex]);
    expect(await found(term)).toHaveLength(100);

    const rerun = cli('index', 'rebuild');
    let stderr = '';
    rerun.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => rerun.once('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringContaining('alias ') });
    const live = await aliasTargets(app.ctx.index.alias);
    expect(live).not.toEqual([oldIndex]);
    expect(await physicalIndices()).toEqual(live);
    expect(await aliasTargets(rebuildingAlias(app.ctx.index))).toEqual([]);
    expect(await verifyIndex(deps())).toMatchObject({ missing: [], stale: [], extra: [] });
  });

  describe('the outbox, with the index worker running', () => {
    const jobCount = async (documentId: number) =>
      (
        await app.ctx.pool.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM pgboss.job
           WHERE name = 'index-document' AND (data->>'documentId')::bigint = $1`,
          [documentId],
        )
      ).rows[0]!.count;
    const drained = async () =>
      (
        await app.ctx.pool.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM pgboss.job
           WHERE name IN ('index-document', 'index-documents') AND state IN ('created', 'retry', 'active')`,
        )
      ).rows[0]!.count === 0;

    it('when a publish rolls back, then its index job never exists; when a document is unpublished before its publish job runs, then the job removes it', async () => {
      const rolledBackTerm = word();
      const { documentId: rolledBack } = await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: `Draft ${rolledBackTerm}` },
      });
      await unpublish(app.ctx, projectId, rolledBack);
      await indexNow(app.ctx, projectId, [rolledBack]);
      const jobsBefore = await jobCount(rolledBack);
      await expect(
        withTransaction(app.ctx.pool, async (tx) => {
          const document = (await documentQueries(tx).findByIdForUpdate(projectId, rolledBack))!;
          await publishDocument(tx, app.ctx.boss, document, { now: new Date() });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await jobCount(rolledBack)).toBe(jobsBefore);

      // Indexed, then republished (a job) and unpublished (another) before any job runs.
      const goneTerm = word();
      const { documentId: gone } = await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: `Gone ${goneTerm}` },
      });
      await indexNow(app.ctx, projectId, [gone]);
      await republishDocument(app.ctx, projectId, gone, { title: `Gone again ${goneTerm}` });
      await unpublish(app.ctx, projectId, gone);

      await startIndexWorker(app.ctx);
      await eventually(drained, 20_000, 100);
      await app.ctx.search.indices.refresh({ index: app.ctx.index.alias });
      expect(await found(rolledBackTerm)).toEqual([]);
      expect(await found(goneTerm)).toEqual([]);
      expect(await indexedVersion(gone)).toBeUndefined();
      const report = await verifyIndex(deps());
      expect(report).toMatchObject({ missing: [], stale: [], extra: [], rejected: [] });
    });

    it('when the index is rebuilt cold and then warm while documents are published, republished and unpublished, then searches answer throughout and the index ends equal to Postgres', async () => {
      const { projectId: busy } = await createTestProject(app.ctx);
      const reader = apiClient(app.url, (await tokenFor(app.ctx, busy, ['public-api:read'])).token);
      const ids: number[] = [];
      for (let n = 0; n < 40; n += 1) {
        ids.push(
          (await createPublishedDocument(app.ctx, busy, { metadata: { title: `Busy ${n}` } })).documentId,
        );
      }
      await eventually(drained, 20_000, 100);
      const last = new Map<number, 'published' | 'unpublished'>(ids.map((id) => [id, 'published']));
      let writing = true;
      // Each writer has documents of its own: two writers unpublishing one document at once would both read
      // 'published' from `last` before either had written, and the second would unpublish an unpublished one.
      const writer = async (offset: number) => {
        const mine = ids.filter((_, at) => at % 3 === offset);
        for (let step = offset; writing; step += 3) {
          const id = mine[(step * 7) % mine.length]!;
          if (last.get(id) === 'published' && step % 2 === 0) {
            await unpublish(app.ctx, busy, id);
            last.set(id, 'unpublished');
          } else {
            await republishDocument(app.ctx, busy, id, { title: `Busy ${id} step ${step}` });
            last.set(id, 'published');
          }
        }
      };
      const answers: string[] = [];
      const searcher = async () => {
        while (writing) {
          const response = await reader.get('publications/search?fields=id&limit=1');
          answers.push(
            response.status === 200 && response.body.results.length === 1 ? 'ok' : `${response.status}`,
          );
        }
      };
      const load = Promise.all([writer(0), writer(1), writer(2), searcher()]);
      // Cold: nothing stored, every search document built; then warm, from what the cold one stored.
      await app.ctx.pool.query('DELETE FROM search_documents');
      await rebuildIndex(deps(), { batchSize: 5 });
      await rebuildIndex(deps(), { batchSize: 5 });
      writing = false;
      await load;

      expect(answers.length).toBeGreaterThan(0);
      expect(answers.filter((answer) => answer !== 'ok')).toEqual([]);
      await eventually(drained, 30_000, 100);
      await expectConverged(app.ctx, busy, {
        published: ids.filter((id) => last.get(id) === 'published'),
        unpublished: ids.filter((id) => last.get(id) === 'unpublished'),
      });
      expect(await physicalIndices()).toEqual(await aliasTargets(app.ctx.index.alias));
    });
  });
});
