import { publishDocument } from '../src/commands/publish-document';
import type { AppContext } from '../src/context';
import { withTransaction } from '../src/db/pool';
import { documentQueries } from '../src/db/queries/documents';
import type { ViewField } from '../src/domain/document-view';
import type { FilterJson } from '../src/domain/search-filters';
import { parseSortSpec } from '../src/domain/search-sort';
import { valueOrThrow } from '../src/domain/validation';
import { buildPublicationSearch } from '../src/reads/publications';
import { buildLatestPublicationsRequest } from '../src/search/query-builder';
import { projectQueries } from '../src/db/queries/projects';
import { searchBytes } from '../src/search/client';
import {
  callApiText,
  load,
  pairedRate,
  percentile,
  pairedTime,
  sleep,
  type BenchRow,
  type LoadResult,
} from './bench';

const log = (message: string) => console.error(`bench widget: ${message}`);

/** How far behind Elasticsearch an answer may be (issue 13: the cache's freshness guarantee). */
const FRESHNESS_MS = 100;
/** How often the watcher asks Elasticsearch which of the bench's publishes it shows. */
const WATCH_INTERVAL_MS = 10;

export interface WidgetBenchOptions {
  concurrency: number;
  durationMs: number;
  rounds: number;
}

interface WidgetQuery {
  name: string;
  /** Path and query string under /api/2026-03/. */
  path: string;
  /** The same request straight to Elasticsearch, built by the code the API builds it with, serialised. */
  body: string;
}

const FIELDS: ViewField[] = ['systemdata', 'metadata', 'content'];

/**
 * Widget traffic: the two list queries of the search part (a category teaser list, a filtered list) and a
 * ticker (the newest 20 of one content type, documents/latestPublications), asked in turn by `concurrency`
 * clients, while one document a second is published through the real pipeline (transaction with outbox →
 * worker → bulk → refresh) and matches all three. Ours: the API with its search answer cache on. Raw:
 * Elasticsearch answering the same stream of requests. Rounds of ours then raw, back to back, the publishes
 * running throughout.
 *
 * Every answer of both sides is checked for staleness: a watcher asks Elasticsearch every 10 ms for the
 * newest of the bench's publications it shows; an answer to a request sent at time t must contain every
 * publication Elasticsearch was seen showing by t − 100 ms (seen: the watcher's answer had arrived, so the
 * check is never stricter than the guarantee, and at most the watcher's interval looser).
 */
export async function widgetRows(
  ctx: AppContext,
  url: string,
  token: string,
  projectId: number,
  channelId: number,
  options: WidgetBenchOptions,
): Promise<BenchRow[]> {
  const project = (await projectQueries(ctx.pool).findById(projectId))!;
  const base = { idsOnly: false, fields: FIELDS, limit: 10, offset: 0, withTotal: true };
  const filters: FilterJson = [
    { key: 'metadata.flag', term: 'red' },
    { key: 'metadata.priority', range: { gte: 50 } },
  ];
  const queries: WidgetQuery[] = [
    {
      name: 'teaser list',
      path: 'publications/search?categories=news',
      body: buildPublicationSearch(project, {
        ...base,
        categories: ['news'],
        sort: valueOrThrow(parseSortSpec(undefined, false)),
      }).body,
    },
    {
      name: 'filtered list',
      path: `publications/search?filters=${encodeURIComponent(JSON.stringify(filters))}&sort=-lastPublicationDate`,
      body: buildPublicationSearch(project, {
        ...base,
        filters,
        sort: valueOrThrow(parseSortSpec('-lastPublicationDate', false)),
      }).body,
    },
    {
      name: 'ticker',
      path: `documents/latestPublications?contentTypes=regular&limit=20&fields=${FIELDS.join(',')}`,
      body: JSON.stringify(
        buildLatestPublicationsRequest({
          projectId,
          fields: FIELDS,
          limit: 20,
          offset: 0,
          reverse: false,
          contentTypes: ['regular'],
          id: {},
          publishedAt: {},
        }),
      ),
    },
  ];

  /** The bench's publications in publish order, with when Elasticsearch was first seen showing each. */
  const published: { documentId: number; seenAt: number | undefined }[] = [];
  let running = true;

  const publisher = async () => {
    for (let n = 0; running; n++) {
      const next = performance.now() + 1000;
      const documentId = await withTransaction(ctx.pool, async (tx) => {
        const inserted = await tx.query<{ id: number }>(
          `INSERT INTO documents (project_id, channel_id, document_type, content_type, metadata, content)
           VALUES ($1, $2, 'article', 'regular', $3, '[]') RETURNING id`,
          [
            projectId,
            channelId,
            JSON.stringify({ title: `Widget ${n}`, flag: 'red', priority: 99, category: { id: 'news' } }),
          ],
        );
        const document = (await documentQueries(tx).findByIdForUpdate(projectId, inserted.rows[0]!.id))!;
        await publishDocument(tx, ctx.boss, document, { now: new Date() });
        return document.id;
      });
      published.push({ documentId, seenAt: undefined });
      await sleep(Math.max(0, next - performance.now()));
    }
  };

  const watcher = async () => {
    while (running) {
      const response = await ctx.search.search({
        index: ctx.index.alias,
        size: 1,
        _source: false,
        query: { bool: { filter: [{ term: { projectId } }, { term: { contentType: 'regular' } }] } },
        sort: [{ documentId: { order: 'desc' } }],
      });
      const seenAt = performance.now();
      const newest = documentIdOf(response.hits.hits[0]?._id);
      for (const publication of published) {
        if (publication.seenAt === undefined && publication.documentId <= newest) publication.seenAt = seenAt;
      }
      await sleep(WATCH_INTERVAL_MS);
    }
  };

  /** The newest of the bench's publications every answer to a request sent at `sentAt` must contain. */
  const required = (sentAt: number): number | undefined => {
    for (let i = published.length - 1; i >= 0; i--) {
      const seenAt = published[i]!.seenAt;
      if (seenAt !== undefined && seenAt <= sentAt - FRESHNESS_MS) return published[i]!.documentId;
    }
    return undefined;
  };

  const checked = { ours: 0, raw: 0 };
  let unavailable = 0;
  const stale = { ours: 0, raw: 0 };
  const check = (side: 'ours' | 'raw', sentAt: number, ids: readonly number[]) => {
    checked[side] += 1;
    const must = required(sentAt);
    if (must !== undefined && !ids.includes(must)) stale[side] += 1;
  };

  // Both sides read their answer's text the same way, without parsing it: on this machine the load generator
  // shares the cores, and parsing ~20 kB of JSON per answer made it the bottleneck of both sides alike.
  const headers = { authorization: `Bearer ${token}` };
  const ourCall = async (i: number) => {
    const query = queries[i % queries.length]!;
    const sentAt = performance.now();
    const response = await callApiText(`${url}/api/2026-03/${query.path}`, headers);
    // Elasticsearch too slow for the API's 3 s search timeout (a machine overloaded by other work): counted.
    if (response.status === 503) {
      unavailable += 1;
      return;
    }
    if (response.status !== 200) throw new Error(`${query.name} answered ${response.status}`);
    check('ours', sentAt, documentIdsIn(response.text));
  };
  const rawCall = async (i: number) => {
    const query = queries[i % queries.length]!;
    const sentAt = performance.now();
    const bytes = await searchBytes(ctx.search, ctx.index.alias, query.body);
    check('raw', sentAt, documentIdsIn(bytes.toString('utf8')));
  };

  const background = Promise.all([publisher(), watcher()]);
  try {
    log('warming both sides');
    await sleep(1500);
    await load(3000, options.concurrency, ourCall);
    await load(3000, options.concurrency, rawCall);
    const runs: { ours: LoadResult[]; raw: LoadResult[] } = { ours: [], raw: [] };
    for (let round = 1; round <= options.rounds; round++) {
      log(`round ${round} of ${options.rounds}`);
      const before = unavailable;
      const ours = await load(options.durationMs, options.concurrency, ourCall);
      // Only answers count: a 503 is no widget served.
      const answered = ours.latencies.length - (unavailable - before);
      runs.ours.push({ ...ours, perSecond: (ours.perSecond * answered) / ours.latencies.length });
      runs.raw.push(await load(options.durationMs, options.concurrency, rawCall));
    }
    const seen = published.filter((publication) => publication.seenAt !== undefined).length;
    log(
      `${published.length} publishes (${seen} seen searchable); answers checked: ours ${checked.ours} ` +
        `(${stale.ours} staler than Elasticsearch + ${FRESHNESS_MS} ms, ${unavailable} more answered 503), ` +
        `raw ${checked.raw} (${stale.raw})`,
    );
    const at = (results: LoadResult[], p: number) => results.map((result) => percentile(result.latencies, p));
    return [
      pairedRate(
        `widget traffic, cache on, 1 publish/s (c=${options.concurrency})`,
        runs.ours.map((result) => result.perSecond),
        runs.raw.map((result) => result.perSecond),
        'req/s',
      ),
      pairedTime('widget traffic p50', at(runs.ours, 50), at(runs.raw, 50)),
      pairedTime('widget traffic p99', at(runs.ours, 99), at(runs.raw, 99)),
      {
        name: `widget answers staler than Elasticsearch + ${FRESHNESS_MS} ms (of ${checked.ours} ours, ${checked.raw} raw)`,
        ours: stale.ours,
        raw: stale.raw,
        unit: 'answers',
        ratio: stale.ours === 0 ? 1 : 0,
      },
    ];
  } finally {
    running = false;
    await background;
  }
}

/** The `systemdata.documentId` of every item in an answer's text (ours) or every hit's body (raw). */
function documentIdsIn(text: string): number[] {
  return [...text.matchAll(/"documentId":(\d+)/g)].map((match) => Number(match[1]));
}

/** The document id of a search document `_id` (`<projectId>:<documentId>`); 0 when absent. */
function documentIdOf(id: string | undefined | null): number {
  return id ? Number(id.slice(id.indexOf(':') + 1)) : 0;
}
