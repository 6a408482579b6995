import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { estypes } from '@elastic/elasticsearch';
import { createApiClient } from '../src/commands/api-clients';
import { createProject } from '../src/commands/create-project';
import { publishDocument } from '../src/commands/publish-document';
import { loadConfig } from '../src/config';
import { createContext, type AppContext } from '../src/context';
import { withTransaction } from '../src/db/pool';
import { documentQueries } from '../src/db/queries/documents';
import { indexSourceQueries, type DocumentKey } from '../src/db/queries/index-sources';
import { projectQueries } from '../src/db/queries/projects';
import type { FilterJson } from '../src/domain/search-filters';
import { parseSortSpec } from '../src/domain/search-sort';
import { valueOrThrow } from '../src/domain/validation';
import { buildPublicationSearch, type PublicationSearchRead } from '../src/reads/publications';
import { searchDocumentId } from '../src/search/document-builder';
import { bulkLoadSettings, publicationsIndexDefinition } from '../src/search/index-aliases';
import { rebuildIndex } from '../src/search/index-manager';
import { BULK_RESPONSE_FIELDS, operationsFor } from '../src/search/indexer';
import { startWorkers } from '../workers/main';
import {
  CATEGORY_IDS,
  corpusDateSql,
  corpusProjectConfig,
  corpusTextSql,
  FLAGS,
  sqlArray,
  TEXTS,
  VOCABULARY,
} from './corpus';
import { startPassthroughHop } from './passthrough-hop';
import { widgetRows } from './widget';
import {
  callApi,
  fact,
  freePort,
  load,
  median,
  pairedRate,
  pairedTime,
  percentile,
  rate,
  sleep,
  time,
  untilServing,
  type BenchRow,
  type LoadResult,
} from './bench';

export interface SearchBenchOptions {
  documents?: number;
  concurrency?: number;
  durationMs?: number;
  lagSamples?: number;
  /** Rounds of ours then raw per figure (default DEFAULT_ROUNDS; `--rounds=1` for a long run at a large N). */
  rounds?: number;
  /** Which parts to measure (default all); the index is built either way. */
  phases?: ReadonlySet<SearchPhase>;
  /** How long each side is loaded before a list's or the export's rounds (default WARM_UP_MS). */
  warmUpMs?: number;
}

export const SEARCH_PHASES = ['rebuild', 'search', 'export', 'widget', 'lag'] as const;
export type SearchPhase = (typeof SEARCH_PHASES)[number];

const CONFIG = corpusProjectConfig('bench-search', 'Search bench');

const log = (message: string) => console.error(`bench search: ${message}`);

/**
 * Rebuild, search and export are measured in rounds of ours then raw, back to back; a row shows the median of
 * each side and, as its ratio, the median of the rounds' ratios (see pairedRate). The cores are shared with
 * whatever else the machine runs, and its speed drifts over minutes: single runs moved a list ratio by ±0.15.
 */
const DEFAULT_ROUNDS = 3;

/**
 * Both sides warmed (issue 13, point 8): each path is loaded this long before its rounds, ours, raw and the hop
 * alike. The API process is new when the search phase starts, while Elasticsearch has been running and serving
 * all along, and V8 takes tens of seconds of load to compile a new process's hot paths: a list request's API
 * CPU in successive 5 s windows from a cold start measured 1.34, 0.68, 0.47, 0.52, 0.43, 0.39 and 0.36 ms, an
 * export page's 3.0 ms at first and 1.4–1.5 ms after ~45 s (README, 2026-11-27). Until 2026-11-27 each list
 * was warmed for 3 s and the export by one pass over a tenth of the ids (under a second), so both were
 * measured while the API was still compiling.
 */
const WARM_UP_MS = 20_000;

/**
 * Search, export, publish lag and rebuild on a generated set of publications, each beside the plainest
 * way to do the same against Elasticsearch in the same run.
 */
export async function searchBench(options: SearchBenchOptions = {}): Promise<BenchRow[]> {
  const documents = options.documents ?? 100_000;
  const concurrency = options.concurrency ?? 16;
  const durationMs = options.durationMs ?? 8_000;
  const rounds = options.rounds ?? DEFAULT_ROUNDS;
  const warmUpMs = options.warmUpMs ?? WARM_UP_MS;
  const ctx = await createContext(loadConfig());
  let api: ChildProcess | undefined;
  let rss: ReturnType<typeof rssSampler> | undefined;
  try {
    const { projectId, channelId } = await createProject(ctx.pool, { config: CONFIG });
    const { token } = await createApiClient(ctx.pool, ctx.config.auth.jwtSecret, {
      projectId,
      name: 'bench',
      scopes: ['public-api:read'],
    });
    const started = performance.now();
    await seed(ctx, projectId, channelId, documents);
    log(`seeded ${documents} publications in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const phases = options.phases ?? new Set(SEARCH_PHASES);
    const rows: BenchRow[] = [];
    if (phases.has('rebuild')) rows.push(...(await rebuildRows(ctx, documents, rounds)));
    else {
      // Not beside a raw load, but still a point of the scale curve: the cold rebuild's own rate.
      const started = performance.now();
      const { indexed } = await rebuildIndex({ db: ctx.pool, search: ctx.search, index: ctx.index });
      fact('rebuild, cold, alone', indexed / ((performance.now() - started) / 1000), 'docs/s');
    }
    const stats = await ctx.search.indices.stats({ index: ctx.index.alias, metric: 'store' });
    fact('index size (primary store)', (stats._all.primaries?.store?.size_in_bytes ?? 0) / 2 ** 20, 'MiB');

    const port = await freePort();
    // Search and export measure the uncached path (issue 13 point 3): every answer from Elasticsearch.
    api = await startApi(port, { SEARCH_CACHE: 'off' });
    rss = rssSampler(api.pid!);
    const url = `http://127.0.0.1:${port}`;
    if (phases.has('search')) {
      rows.push(
        ...(await searchRows(ctx, url, token, projectId, { concurrency, durationMs, rounds, warmUpMs })),
      );
    }
    if (phases.has('export')) rows.push(...(await exportRows(ctx, url, token, projectId, rounds, warmUpMs)));
    fact('API RSS, peak while searched and exported', rss.peakMiB(), 'MiB');
    if (phases.has('widget')) {
      api.kill('SIGTERM');
      const widgetPort = await freePort();
      api = await startApi(widgetPort, { SEARCH_CACHE: 'on' });
      // The workers as production runs them, in a process of their own: they open and close the write
      // windows, and in the bench's busy process their timing would be the load generator's.
      const workers = spawn(process.execPath, ['dist/workers/main.js'], {
        cwd: resolve(__dirname, '..'),
        env: { ...process.env, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      try {
        rows.push(
          ...(await widgetRows(ctx, `http://127.0.0.1:${widgetPort}`, token, projectId, channelId, {
            concurrency,
            durationMs: durationMs / 2,
            rounds,
          })),
        );
      } finally {
        workers.kill('SIGTERM');
      }
    }
    if (phases.has('lag')) {
      await startWorkers(ctx);
      rows.push(...(await lagRows(ctx, projectId, channelId, options.lagSamples ?? 60)));
    }
    return rows;
  } finally {
    rss?.stop();
    api?.kill('SIGTERM');
    await ctx.close();
  }
}

/** Rows per seeding statement: each must finish well inside the pool's 10 s query timeout, even on a loaded machine. */
const SEED_BATCH = 10_000;

/**
 * Documents and their publications straight in SQL: generate_series, no per-row round trips, in batches of
 * SEED_BATCH (Postgres generates the rows; nothing of the corpus passes through this process).
 */
async function seed(ctx: AppContext, projectId: number, channelId: number, count: number): Promise<void> {
  const text = (which: keyof typeof TEXTS) => corpusTextSql(TEXTS[which], '$3');
  for (let first = 1; first <= count; first += SEED_BATCH) {
    const last = Math.min(count, first + SEED_BATCH - 1);
    await ctx.pool.query(
      `INSERT INTO documents (project_id, channel_id, document_type, content_type, metadata, content, updated_at,
         first_publication_date, last_publication_date, index_version)
       SELECT $1, $2, 'article', 'regular',
         jsonb_build_object('title', initcap(${text('title')}), 'flag', (${sqlArray(FLAGS)})[1 + g % ${FLAGS.length}],
           'priority', g % 100, 'category', jsonb_build_object('id', (${sqlArray(CATEGORY_IDS)})[1 + g % ${CATEGORY_IDS.length}])),
         jsonb_build_array(
           jsonb_build_object('id', 'p1', 'component', 'paragraph', 'content', jsonb_build_object('text', ${text('paragraph1')})),
           jsonb_build_object('id', 'p2', 'component', 'paragraph', 'content', jsonb_build_object('text', ${text('paragraph2')})),
           jsonb_build_object('id', 'i1', 'component', 'image', 'content',
             jsonb_build_object('caption', ${text('caption')}))),
         ts, ts, ts, 1
       FROM generate_series($4::int, $5::int) g, LATERAL (SELECT ${corpusDateSql(count)} AS ts) t`,
      [projectId, channelId, VOCABULARY, first, last],
    );
    await ctx.pool.query(
      `WITH p AS (
         INSERT INTO publications (project_id, document_id, document_version, content_type, document_type, metadata,
           content, published_at, updated_at)
         SELECT project_id, id, version, content_type, document_type, metadata, content, last_publication_date,
           updated_at
         FROM documents WHERE project_id = $1 AND latest_publication_id IS NULL
         RETURNING id, document_id)
       UPDATE documents d SET latest_publication_id = p.id, published_version = 1 FROM p WHERE d.id = p.document_id`,
      [projectId],
    );
    if (last < count) log(`seeded ${last} of ${count}`);
  }
  await ctx.pool.query('ANALYZE documents; ANALYZE publications');
}

/**
 * Ours: `rebuildIndex` (Postgres pages → stored or freshly built search documents → bulk → swap). Raw: the same
 * documents, already built and serialised in memory, bulk-loaded into an index with the same settings.
 *
 * The seed writes rows straight into Postgres, so no search document has been stored yet: the first rebuild
 * builds and stores every one (reported as the cold figure), as the indexer would have when they were
 * published. The measured figure is a rebuild after that, the state a running installation is in, in rounds of rebuild then raw load.
 */
async function rebuildRows(ctx: AppContext, documents: number, rounds: number): Promise<BenchRow[]> {
  const raw = await writeRawBulkFile(ctx);
  try {
    return await rebuildRounds(ctx, documents, rounds, raw);
  } finally {
    await raw.close();
  }
}

/** Documents per bulk request on both sides of the rebuild rows: the comparison is fair only at one size. */
export const REBUILD_BATCH_SIZE = 1000;

/** The raw bulk load's input: NDJSON bodies in a scratch file, and where each batch starts. */
export interface RawBulkFile {
  file: FileHandle;
  batches: readonly { position: number; length: number }[];
  close(): Promise<void>;
}

/**
 * The raw side's bulk bodies, NDJSON as they go on the wire, in a scratch file read back one batch at a time:
 * at a million publications they would not fit in this process (`--docs`).
 */
export async function writeRawBulkFile(
  ctx: AppContext,
  batchSize = REBUILD_BATCH_SIZE,
): Promise<RawBulkFile> {
  const dir = await mkdtemp(join(tmpdir(), 'broadsheet-bench-'));
  const file = await open(join(dir, 'bulk.ndjson'), 'w+');
  const close = async () => {
    await file.close();
    await rm(dir, { recursive: true, force: true });
  };
  const batches: { position: number; length: number }[] = [];
  try {
    const sources = indexSourceQueries(ctx.pool);
    let after: DocumentKey | undefined;
    let position = 0;
    for (;;) {
      const page = await sources.findPublishedPage(after, batchSize);
      if (page.length === 0) break;
      const lines = operationsFor(page, []).flatMap((op) =>
        op.kind === 'index'
          ? [
              JSON.stringify({
                index: {
                  _id: searchDocumentId(op.key.projectId, op.key.documentId),
                  version: op.version,
                  version_type: 'external',
                },
              }),
              op.document,
            ]
          : [],
      );
      const bytes = Buffer.from(`${lines.join('\n')}\n`);
      await file.write(bytes, 0, bytes.length, position);
      batches.push({ position, length: bytes.length });
      position += bytes.length;
      const last = page[page.length - 1]!;
      after = { projectId: last.projectId, documentId: last.documentId };
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { file, batches, close };
}

/** One raw bulk load's rates: up to the refresh, and with the alias swapped and the previous index deleted. */
export interface RawLoadRates {
  load: number;
  rebuild: number;
}

/**
 * The raw bulk load, as the plainest no-downtime rebuild does it: a fresh index with the rebuild's settings,
 * the file's batches with 2 requests in flight, the search settings back and a refresh (`load`); then one
 * `_aliases` call moves the raw alias to it and the previous raw index is deleted (`rebuild`: what
 * rebuildIndex does after its refresh, less its search write window). The raw indices alternate between two
 * names; the first load has no previous index to delete, so the bench runs one before it measures.
 */
export async function rawBulkLoad(
  ctx: AppContext,
  documents: number,
  raw: RawBulkFile,
): Promise<RawLoadRates> {
  const { file, batches } = raw;
  const { mappings } = publicationsIndexDefinition();
  const alias = `${ctx.index.alias}-rawload`;
  const previous = await ctx.search.indices
    .getAlias({ name: alias }, { ignore: [404] })
    .then((found) => Object.keys(found).filter((name) => name.startsWith(`${alias}-`)));
  const scratch = previous.includes(`${alias}-a`) ? `${alias}-b` : `${alias}-a`;
  await ctx.search.indices.delete({ index: scratch }, { ignore: [404] });
  const started = performance.now();
  await ctx.search.indices.create({ index: scratch, settings: bulkLoadSettings(), mappings });
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < batches.length) {
        const { position, length } = batches[next++]!;
        const body = Buffer.allocUnsafe(length);
        await file.read(body, 0, length, position);
        const response = await ctx.search.transport.request<{ errors?: boolean }>({
          method: 'POST',
          path: `/${scratch}/_bulk`,
          querystring: { filter_path: BULK_RESPONSE_FIELDS.join(',') },
          bulkBody: body,
        });
        if (response.errors) throw new Error('raw bulk load: Elasticsearch refused documents');
      }
    }),
  );
  await ctx.search.indices.putSettings({ index: scratch, settings: { index: { refresh_interval: '1s' } } });
  await ctx.search.indices.refresh({ index: scratch });
  const loaded = performance.now();
  await ctx.search.indices.updateAliases({
    actions: [...previous.map((index) => ({ remove: { index, alias } })), { add: { index: scratch, alias } }],
  });
  if (previous.length > 0) await ctx.search.indices.delete({ index: previous });
  const swapped = performance.now();
  return {
    load: documents / ((loaded - started) / 1000),
    rebuild: documents / ((swapped - started) / 1000),
  };
}

/** Deletes the raw indices rawBulkLoad left. */
export async function deleteRawIndices(ctx: AppContext): Promise<void> {
  const alias = `${ctx.index.alias}-rawload`;
  for (const index of [`${alias}-a`, `${alias}-b`]) {
    await ctx.search.indices.delete({ index }, { ignore: [404] });
  }
}

async function rebuildRounds(
  ctx: AppContext,
  documents: number,
  rounds: number,
  rawFile: RawBulkFile,
): Promise<BenchRow[]> {
  const rebuild = async (): Promise<number> => {
    const started = performance.now();
    const result = await rebuildIndex(
      { db: ctx.pool, search: ctx.search, index: ctx.index },
      { batchSize: REBUILD_BATCH_SIZE, concurrency: 2 },
    );
    return result.indexed / ((performance.now() - started) / 1000);
  };

  log('rebuild, cold (builds and stores every search document)');
  const cold = await rebuild();
  // Unmeasured, as the cold rebuild is for ours: the raw side's first load, so every measured one has a
  // previous index to swap away from and delete, as every measured rebuild has.
  log('raw bulk load, unmeasured (the previous raw index)');
  await rawBulkLoad(ctx, documents, rawFile);
  const ours: number[] = [];
  const raw: RawLoadRates[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      log(`rebuild and raw bulk load, round ${round} of ${rounds}`);
      ours.push(await rebuild());
      raw.push(await rawBulkLoad(ctx, documents, rawFile));
    }
  } finally {
    await deleteRawIndices(ctx);
  }
  const rawRebuild = raw.map((rates) => rates.rebuild);
  return [
    pairedRate(
      'rebuild (search documents stored by the indexer) vs raw load + alias swap + old index deleted',
      ours,
      rawRebuild,
      'docs/s',
    ),
    pairedRate(
      'rebuild, informational: vs the raw load alone (no alias swap, no old index deleted)',
      ours,
      raw.map((rates) => rates.load),
      'docs/s',
    ),
    rate(
      'rebuild, informational: cold (every search document built and stored)',
      cold,
      median(rawRebuild),
      'docs/s',
    ),
  ];
}

/**
 * `broadsheet export --parallel 4` as an operator runs it (the compiled CLI, its own process), into a fresh
 * file; its rate as it reports it (from the first request to the file synced, without the process's start).
 */
async function exportCommand(url: string, token: string, out: string, count: number): Promise<number> {
  const child = spawn(
    process.execPath,
    ['dist/src/cli/main.js', 'export', '--out', out, '--parallel', '4', '--force', '--no-progress'],
    {
      cwd: resolve(__dirname, '..'),
      env: { ...process.env, BROADSHEET_URL: url, BROADSHEET_TOKEN: token },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  if (code !== 0) throw new Error(`broadsheet export exited with ${code}`);
  const summary = JSON.parse(stdout) as { documents: number; seconds: number };
  if (summary.documents !== count)
    throw new Error(`broadsheet export wrote ${summary.documents} of ${count}`);
  const lines = await countLines(out);
  if (lines !== count) throw new Error(`broadsheet export's file has ${lines} lines, not ${count}`);
  await rm(out);
  return count / summary.seconds;
}

/** Newlines in a file, read as a stream: at a million documents the file is larger than a string can be. */
async function countLines(path: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines += 1;
  }
  return lines;
}

/** The process's resident set, sampled twice a second: its peak in MiB. */
function rssSampler(pid: number) {
  let peak = 0;
  const sample = () =>
    readFile(`/proc/${pid}/status`, 'utf8').then(
      (text) => {
        const kib = Number(/VmRSS:\s+(\d+)/.exec(text)?.[1] ?? 0);
        peak = Math.max(peak, kib / 1024);
      },
      () => undefined,
    );
  void sample();
  const timer = setInterval(() => void sample(), 500);
  return {
    peakMiB: () => peak,
    stop: () => clearInterval(timer),
  };
}

async function startApi(port: number, env: Record<string, string>): Promise<ChildProcess> {
  // BENCH_API_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the API process under the bench's load.
  const nodeArgs = process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  // The compiled API, run as production runs it (`npm run bench` builds first).
  const child = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], {
    cwd: resolve(__dirname, '..'),
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await untilServing(child, `http://127.0.0.1:${port}/api/2026-03/health`, 'the API');
  return child;
}

/** Three typical widget queries: a category teaser list, a filtered list, a two-word full-text search. */
export function widgetQueries(): {
  name: string;
  query: string;
  /** What the API reads from `query` (the raw side sends the same request, built by the same code). */
  params: Omit<PublicationSearchRead, 'conditions'>;
}[] {
  const base = {
    idsOnly: false,
    fields: ['systemdata', 'metadata', 'content'] as const,
    limit: 10,
    offset: 0,
    withTotal: true,
    sort: valueOrThrow(parseSortSpec(undefined, false)),
  };
  const filterExpression: FilterJson = [
    { key: 'metadata.flag', term: 'red' },
    { key: 'metadata.priority', range: { gte: 50 } },
  ];
  const filters = JSON.stringify(filterExpression);
  return [
    {
      name: 'teaser list',
      query: 'categories=news',
      params: { ...base, fields: [...base.fields], categories: ['news'] },
    },
    {
      name: 'filtered list',
      query: `filters=${encodeURIComponent(filters)}&sort=-lastPublicationDate`,
      params: {
        ...base,
        fields: [...base.fields],
        filters: filterExpression,
        sort: valueOrThrow(parseSortSpec('-lastPublicationDate', false)),
      },
    },
    {
      name: 'full text',
      query: 'search=glacier%20tourism',
      params: {
        ...base,
        fields: [...base.fields],
        search: 'glacier tourism',
        sort: valueOrThrow(parseSortSpec(undefined, true)),
      },
    },
  ];
}

/** How the lists are loaded: clients at once, each round's length (half each side), rounds and warm-up. */
interface LoadShape {
  concurrency: number;
  durationMs: number;
  rounds: number;
  warmUpMs: number;
}

async function searchRows(
  ctx: AppContext,
  url: string,
  token: string,
  projectId: number,
  { concurrency, durationMs, rounds, warmUpMs }: LoadShape,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const project = (await projectQueries(ctx.pool).findById(projectId))!;
  const searches = widgetQueries().map((widget) => ({
    widget,
    ...buildPublicationSearch(project, widget.params),
  }));
  const hopPort = await freePort();
  const hop = await startPassthroughHop(
    hopPort,
    ctx.config.elasticsearch.urls[0]!,
    ctx.index.alias,
    Object.fromEntries(searches.map(({ widget, body }) => [widget.query, body])),
  );
  try {
    for (const { widget, request } of searches) {
      const headers = { authorization: `Bearer ${token}` };
      const probe = await callApi(`${url}/api/2026-03/publications/search?${widget.query}`, { headers });
      const probeBody = probe.body as { total?: number };
      if (probe.status !== 200)
        throw new Error(`search ${widget.name} answered ${probe.status}: ${JSON.stringify(probeBody)}`);
      log(`${widget.name}: ${probeBody.total} matches`);
      // A 503 is the API's answer when Elasticsearch takes longer than its 3 s read timeout, which a machine
      // at a load average of 20+ brings about: counted (its time is in the latencies), not fatal.
      let unavailable = 0;
      const ourCall = async () => {
        const response = await callApi(`${url}/api/2026-03/publications/search?${widget.query}`, { headers });
        if (response.status === 503) unavailable++;
        else if (response.status !== 200) throw new Error(`search answered ${response.status}`);
      };
      const rawCall = async () => {
        await ctx.search.search({ index: ctx.index.alias, ...request });
      };
      // The bound: the same request through a bare passthrough hop, answered and read as ours is.
      const hopCall = async () => {
        const response = await callApi(`http://127.0.0.1:${hopPort}/?${widget.query}`);
        if (response.status !== 200) throw new Error(`the passthrough hop answered ${response.status}`);
      };
      // Warm the three paths the same way and as long (JIT, caches, connections: see WARM_UP_MS), then measure
      // the rounds of ours, raw and the hop, each for half the time (see DEFAULT_ROUNDS).
      await load(warmUpMs, concurrency, ourCall);
      await load(warmUpMs, concurrency, rawCall);
      await load(warmUpMs, concurrency, hopCall);
      const runs: { ours: LoadResult[]; raw: LoadResult[]; hop: LoadResult[] } = {
        ours: [],
        raw: [],
        hop: [],
      };
      for (let round = 0; round < rounds; round++) {
        runs.ours.push(await load(durationMs / 2, concurrency, ourCall));
        runs.raw.push(await load(durationMs / 2, concurrency, rawCall));
        runs.hop.push(await load(durationMs / 2, concurrency, hopCall));
      }
      const throughput = (results: LoadResult[]) => results.map((result) => result.perSecond);
      const at = (results: LoadResult[], p: number) =>
        results.map((result) => percentile(result.latencies, p));
      rows.push(
        pairedRate(
          `search ${widget.name} throughput (c=${concurrency})`,
          throughput(runs.ours),
          throughput(runs.raw),
          'req/s',
        ),
      );
      rows.push(
        pairedRate(
          `search ${widget.name}, informational: a bare passthrough hop (the bound for any API in front)`,
          throughput(runs.hop),
          throughput(runs.raw),
          'req/s',
        ),
      );
      rows.push(pairedTime(`search ${widget.name} p50`, at(runs.ours, 50), at(runs.raw, 50)));
      rows.push(pairedTime(`search ${widget.name} p99`, at(runs.ours, 99), at(runs.raw, 99)));
      if (unavailable > 0)
        fact(`search ${widget.name}: 503 answers (Elasticsearch over 3 s)`, unavailable, 'answers');
    }
  } finally {
    hop.kill('SIGTERM');
  }
  return rows;
}

/**
 * Ours: four pullers over disjoint id ranges of documents/latestPublications, each walking its range in
 * chunks of 100 ids, so one page of the API's maximum size holds a whole chunk and no offset is needed (what
 * an exporter does with this API: deep offsets cost Elasticsearch a sort of every skipped hit, and a full
 * page would otherwise need one more request to find the end of the chunk). Raw: four search_after pullers
 * over the same ranges with the same page size, sort, `_source` and versions, straight from Elasticsearch; plus, for
 * information, one dump in pages of 1000.
 *
 * Both paths are warmed as long as each other (WARM_UP_MS) by passes over the first tenth of the ids, then
 * measured in rounds of ours then raw (see DEFAULT_ROUNDS).
 */
async function exportRows(
  ctx: AppContext,
  url: string,
  token: string,
  projectId: number,
  rounds: number,
  warmUpMs: number,
): Promise<BenchRow[]> {
  const bounds = await ctx.pool.query<{ min: number; max: number; count: number }>(
    'SELECT min(id)::int AS min, max(id)::int AS max, count(*)::int AS count FROM documents WHERE project_id = $1 AND latest_publication_id IS NOT NULL',
    [projectId],
  );
  const { min, max, count } = bounds.rows[0]!;
  const headers = { authorization: `Bearer ${token}` };
  const chunk = 100;
  const source = ['body.systemdata', 'body.metadata', 'body.content', 'body.references'];

  /** Four disjoint id ranges [from, end) covering [first, last]. */
  const quarters = (first: number, last: number) => {
    const quarter = Math.ceil((last + 1 - first) / 4);
    return [0, 1, 2, 3].map((part) => ({
      from: first + part * quarter,
      end: Math.min(last + 1, first + (part + 1) * quarter),
    }));
  };

  const ourExport = async (first: number, last: number): Promise<number> => {
    const parts = await Promise.all(
      quarters(first, last).map(async ({ from, end }) => {
        let seen = 0;
        for (let at = from; at < end; at += chunk) {
          const to = Math.min(end, at + chunk);
          const response = await callApi(
            `${url}/api/2026-03/documents/latestPublications?id.gte=${at}&id.lt=${to}&reverse=true&limit=${chunk}`,
            { headers },
          );
          if (response.status !== 200) throw new Error(`latestPublications answered ${response.status}`);
          seen += (response.body as { results: unknown[] }).results.length;
        }
        return seen;
      }),
    );
    return parts.reduce((a, b) => a + b, 0);
  };

  // Like for like: the same four id ranges, the same sort and fields, pages of 100 (the API's maximum page),
  // each puller walking its range with search_after straight against Elasticsearch.
  const rawExport = async (first: number, last: number): Promise<number> => {
    const parts = await Promise.all(
      quarters(first, last).map(({ from, end }) =>
        dump(
          100,
          [{ range: { documentId: { gte: from, lt: end } } }],
          [{ lastPublicationDate: { order: 'asc', missing: '_last' } }, { documentId: { order: 'asc' } }],
        ),
      ),
    );
    return parts.reduce((a, b) => a + b, 0);
  };

  async function dump(
    size: number,
    filter: estypes.QueryDslQueryContainer[],
    sort: estypes.SortCombinations[],
  ): Promise<number> {
    let seen = 0;
    let searchAfter: estypes.SortResults | undefined;
    for (;;) {
      const response = await ctx.search.search({
        index: ctx.index.alias,
        size,
        track_total_hits: false,
        query: { bool: { filter: [{ term: { projectId } }, ...filter] } },
        sort,
        _source: source,
        version: true,
        ...(searchAfter ? { search_after: searchAfter } : {}),
      });
      const hits = response.hits.hits;
      seen += hits.length;
      if (hits.length < size) return seen;
      searchAfter = hits[hits.length - 1]!.sort;
    }
  }

  const measure = async (name: string, pull: () => Promise<number>): Promise<number> => {
    const started = performance.now();
    const seen = await pull();
    if (seen !== count) throw new Error(`${name} export saw ${seen} of ${count}`);
    return seen / ((performance.now() - started) / 1000);
  };

  log('export');
  const warmEnd = min + Math.ceil((max - min) / 10);
  /** Passes over the first tenth until `ms` have gone by (at least one). */
  const warm = async (ms: number, pass: () => Promise<number>) => {
    const until = performance.now() + ms;
    do await pass();
    while (performance.now() < until);
  };
  await warm(warmUpMs, () => ourExport(min, warmEnd));
  await warm(warmUpMs, () => rawExport(min, warmEnd));
  const ours: number[] = [];
  const raw: number[] = [];
  const command: number[] = [];
  const rawBesideCommand: number[] = [];
  const dir = await mkdtemp(join(tmpdir(), 'broadsheet-export-'));
  try {
    for (let round = 0; round < rounds; round++) {
      ours.push(await measure('our', () => ourExport(min, max)));
      raw.push(await measure('raw', () => rawExport(min, max)));
      command.push(await exportCommand(url, token, join(dir, 'export.ndjson'), count));
      rawBesideCommand.push(await measure('raw', () => rawExport(min, max)));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // Informational: one puller, pages of 1000 (more than any API client may ask for), documentId order.
  const rawBigPages = await measure('raw big-page', () => dump(1000, [], [{ documentId: { order: 'asc' } }]));

  return [
    pairedRate(
      'export (4 id-range pullers vs raw search_after, 100 per page, same ranges)',
      ours,
      raw,
      'docs/s',
    ),
    rate('export vs one raw search_after dump, 1000 per page', median(ours), rawBigPages, 'docs/s'),
    pairedRate(
      'export command (broadsheet export --parallel 4, NDJSON to disk) vs 4 raw pullers',
      command,
      rawBesideCommand,
      'docs/s',
    ),
  ];
}

/**
 * Ours: publish (transaction with outbox) → worker → bulk → refresh, until a search finds it. Raw: index the
 * same kind of document straight into an index with the same settings and wait until a search finds it (the refresh alone).
 */
async function lagRows(
  ctx: AppContext,
  projectId: number,
  channelId: number,
  samples: number,
): Promise<BenchRow[]> {
  log('publish lag');
  const visible = async (documentId: number, startedAt: number, index = ctx.index.alias): Promise<number> => {
    for (;;) {
      const response = await ctx.search.count({
        index,
        query: { bool: { filter: [{ term: { projectId } }, { term: { documentId } }] } },
      });
      if (response.count > 0) return performance.now() - startedAt;
      await sleep(10);
    }
  };
  const ours: number[] = [];
  await Promise.all(
    Array.from({ length: samples }, async (_, n) => {
      await sleep(n * 100);
      const startedAt = performance.now();
      const documentId = await withTransaction(ctx.pool, async (tx) => {
        const inserted = await tx.query<{ id: number }>(
          `INSERT INTO documents (project_id, channel_id, document_type, content_type, metadata, content)
           VALUES ($1, $2, 'article', 'regular', $3, '[]') RETURNING id`,
          [projectId, channelId, JSON.stringify({ title: `Lag ${n}`, flag: 'red', priority: n })],
        );
        const document = (await documentQueries(tx).findByIdForUpdate(projectId, inserted.rows[0]!.id))!;
        await publishDocument(tx, ctx.boss, document, { now: new Date() });
        return document.id;
      });
      ours.push(await visible(documentId, startedAt));
    }),
  );
  const raw: number[] = [];
  const scratch = `${ctx.index.alias}-rawlag`;
  const { settings, mappings } = publicationsIndexDefinition();
  await ctx.search.indices.create({ index: scratch, settings, mappings });
  await Promise.all(
    Array.from({ length: samples }, async (_, n) => {
      await sleep(n * 100);
      const documentId = 900_000_000 + n;
      const startedAt = performance.now();
      await ctx.search.index({
        index: scratch,
        id: searchDocumentId(projectId, documentId),
        document: { projectId, documentId, publicationId: documentId, contentType: 'regular', text: 'lag' },
      });
      raw.push(await visible(documentId, startedAt, scratch));
    }),
  );
  await ctx.search.indices.delete({ index: scratch });
  return [
    time('publish → searchable lag p50', percentile(ours, 50), percentile(raw, 50)),
    time('publish → searchable lag p99', percentile(ours, 99), percentile(raw, 99)),
  ];
}
