import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { QueryConfig } from 'pg';
import { createProject } from '../src/commands/create-project';
import { DEFAULT_IMPORT_BATCH_SIZE } from '../src/commands/import-documents';
import { loadConfig } from '../src/config';
import { createContext, type AppContext } from '../src/context';
import { withTransaction } from '../src/db/pool';
import type { Design } from '../src/domain/design';
import { QUEUES } from '../src/jobs/queues';
import { median, pairedRate, round, type BenchRow } from './bench';
import { CATEGORY_IDS, corpusDate, corpusProjectConfig, corpusText, FLAGS, TEXTS } from './corpus';

export interface ImportBenchOptions {
  documents?: number;
  rounds?: number;
}

const log = (message: string) => console.error(`bench import: ${message}`);

const DESIGN: Design = {
  name: 'bench-design',
  version: '1.0.0',
  components: [
    { name: 'paragraph', label: 'Paragraph', directives: [{ name: 'text', type: 'editable' }] },
    { name: 'image', label: 'Image', directives: [{ name: 'caption', type: 'editable' }] },
  ],
};

const config = (handle: string) => ({
  ...corpusProjectConfig(handle, 'Import bench'),
  design: { name: DESIGN.name, version: DESIGN.version },
});

/**
 * The search bench's corpus as import documents (the same words by the same formula as its SQL seed), one
 * per line, written as generated: nothing holds the corpus in memory. Every tenth document references the
 * one before it, so reference rows are written as an archive's would be.
 */
async function writeCorpus(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  for (let g = 1; g <= count; g++) {
    const title = corpusText(g, TEXTS.title).replace(/\b\w/g, (c) => c.toUpperCase());
    const document = {
      id: `archive-${g}`,
      contentType: 'regular',
      metadata: {
        title,
        flag: FLAGS[g % FLAGS.length],
        priority: g % 100,
        category: { id: CATEGORY_IDS[g % CATEGORY_IDS.length] },
        ...(g % 10 === 0 ? { related: { $ref: 'documents', references: [{ id: `archive-${g - 1}` }] } } : {}),
      },
      content: [
        paragraph('p1', corpusText(g, TEXTS.paragraph1)),
        paragraph('p2', corpusText(g, TEXTS.paragraph2)),
        {
          id: 'i1',
          component: 'image',
          identifier: `${DESIGN.name}.image`,
          content: { caption: corpusText(g, TEXTS.caption) },
        },
      ],
      publishControl: {
        firstPublicationDate: corpusDate(g, count).toISOString(),
      },
    };
    if (!out.write(`${JSON.stringify(document)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

const paragraph = (id: string, text: string) => ({
  id,
  component: 'paragraph',
  identifier: `${DESIGN.name}.paragraph`,
  content: { text },
});

/**
 * `broadsheet import --auto-publish` of N generated documents (the compiled CLI, as an operator runs it:
 * reading and checking the file included) beside a raw load of the same documents and their publications
 * into a scratch copy of the two tables: the file read line by line, multi-row INSERTs in transactions of
 * the same batch size, no checks, no events, references or index jobs. Rounds of ours then raw. The scratch
 * tables start as a copy of the real ones and both sides keep what they load, so each writes into tables of
 * the same size (deleting a round's rows instead takes minutes: nothing indexes latest_publication_id).
 */
export async function importBench(options: ImportBenchOptions = {}): Promise<BenchRow[]> {
  const documents = options.documents ?? 100_000;
  const rounds = options.rounds ?? 3;
  const ctx = await createContext(loadConfig());
  const dir = await mkdtemp(join(tmpdir(), 'broadsheet-import-bench-'));
  try {
    const file = join(dir, 'corpus.ndjson');
    let started = performance.now();
    await writeCorpus(file, documents);
    log(`wrote ${documents} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await createScratchTables(ctx);
    const ours: number[] = [];
    const raw: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      log(`import and raw load, round ${round} of ${rounds}`);
      const { projectId } = await createProject(ctx.pool, {
        config: config(`bench-import-${round}-${Date.now()}`),
        designs: [DESIGN],
      });
      started = performance.now();
      const result = await runCliImport(file, projectId);
      const seconds = (performance.now() - started) / 1000;
      if (result.published !== documents)
        throw new Error(
          `the import published ${result.published} of ${documents}: ${JSON.stringify(result)}`,
        );
      ours.push(documents / seconds);
      log(`import: ${documents} in ${seconds.toFixed(1)} s`);
      // No worker runs here: the round's index jobs would only make the next round's queue table bigger.
      await ctx.boss.deleteQueuedJobs(QUEUES.indexDocuments.name);

      started = performance.now();
      const loaded = await rawLoad(ctx, file, projectId);
      const rawSeconds = (performance.now() - started) / 1000;
      if (loaded !== documents) throw new Error(`the raw load wrote ${loaded} of ${documents}`);
      raw.push(documents / rawSeconds);
      log(`raw load: ${documents} in ${rawSeconds.toFixed(1)} s`);
      // Not bounded by the pool's query timeout: on a loaded machine the last round's vacuum of ~600,000 rows
      // outlasted it and failed the bench after every round had been measured.
      await unbounded(
        ctx,
        'VACUUM ANALYZE documents, publications, bench_raw.documents, bench_raw.publications',
      );
    }
    const seconds = documents / median(ours);
    return [
      pairedRate(
        `import --auto-publish vs raw multi-row INSERT of documents + publications (batches of ${DEFAULT_IMPORT_BATCH_SIZE})`,
        ours,
        raw,
        'docs/s',
      ),
      {
        name: `import of ${documents} documents, wall time (median)`,
        ours: round(seconds),
        raw: round(documents / median(raw)),
        unit: 's',
        ratio: round(documents / median(raw) / seconds, 3),
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
    await ctx.close();
  }
}

function runCliImport(
  file: string,
  projectId: number,
): Promise<{ documents: number; imported: number; published: number; failed: number }> {
  const args = [
    'dist/src/cli/main.js',
    'import',
    file,
    '--project',
    String(projectId),
    '--system-name',
    'archive',
    '--auto-publish',
  ];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: resolve(__dirname, '..'),
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`broadsheet import exited ${code}: ${stderr}`));
      else resolvePromise(JSON.parse(stdout.trim().split('\n').pop()!) as never);
    });
  });
}

/**
 * The two tables raw loads into: like ours, with their indexes, constraints, the FKs between them and a copy
 * of their rows (the search bench's, in a full run).
 */
async function createScratchTables(ctx: AppContext): Promise<void> {
  // Copying the search bench's rows outlasts the pool's query timeout at a million (a full run at
  // --docs=1000000 failed here after 20 minutes of measurements).
  await unbounded(
    ctx,
    `
    DROP SCHEMA IF EXISTS bench_raw CASCADE;
    CREATE SCHEMA bench_raw;
    CREATE TABLE bench_raw.documents (LIKE public.documents INCLUDING ALL);
    CREATE TABLE bench_raw.publications (LIKE public.publications INCLUDING ALL);
    INSERT INTO bench_raw.documents SELECT * FROM public.documents;
    INSERT INTO bench_raw.publications SELECT * FROM public.publications;
    ALTER TABLE bench_raw.publications ADD FOREIGN KEY (document_id) REFERENCES bench_raw.documents(id);
    ALTER TABLE bench_raw.documents ADD FOREIGN KEY (latest_publication_id) REFERENCES bench_raw.publications(id);
  `,
  );
  await unbounded(ctx, 'VACUUM ANALYZE bench_raw.documents, bench_raw.publications');
}

/** A statement whose time grows with the corpus: not bounded by the pool's query timeout (seconds). */
async function unbounded(ctx: AppContext, text: string): Promise<void> {
  // pg reads query_timeout per query; its types do not list it.
  await ctx.pool.query({ text, query_timeout: 3_600_000 } as QueryConfig);
}

/** The plainest batched load of the same file: documents, their publications, and the link between them. */
async function rawLoad(ctx: AppContext, file: string, projectId: number): Promise<number> {
  const channel = await ctx.pool.query<{ id: number }>(
    'SELECT id FROM channels WHERE project_id = $1 AND is_default',
    [projectId],
  );
  const channelId = channel.rows[0]!.id;
  let loaded = 0;
  const write = async (lines: string[]) => {
    await withTransaction(ctx.pool, async (tx) => {
      const result = await tx.query<{ id: number }>(
        `INSERT INTO bench_raw.documents (project_id, channel_id, document_type, content_type, system_name,
           external_id, metadata, content, first_publication_date)
         SELECT $1, $2, 'article', r."contentType", 'archive', r.id, r.metadata, r.content,
           (r."publishControl"->>'firstPublicationDate')::timestamptz
         FROM jsonb_to_recordset($3::jsonb) AS r(id text, "contentType" text, metadata jsonb, content jsonb,
           "publishControl" jsonb)
         RETURNING id`,
        [projectId, channelId, `[${lines.join(',')}]`],
      );
      await tx.query(
        `WITH p AS (
           INSERT INTO bench_raw.publications (project_id, document_id, document_version, content_type,
             document_type, metadata, content, updated_at)
           SELECT project_id, id, version, content_type, document_type, metadata, content, updated_at
           FROM bench_raw.documents WHERE id = ANY($1::bigint[])
           RETURNING id, document_id)
         UPDATE bench_raw.documents d SET latest_publication_id = p.id, published_version = d.version,
           last_publication_date = now()
         FROM p WHERE d.id = p.document_id`,
        [result.rows.map((row) => row.id)],
      );
      loaded += result.rows.length;
    });
  };
  let batch: string[] = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    batch.push(line);
    if (batch.length === DEFAULT_IMPORT_BATCH_SIZE) {
      await write(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await write(batch);
  return loaded;
}
