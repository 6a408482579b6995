import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import pg from 'pg';
import { ensureDatabase, migrate } from '../src/db/migrate';
import type { BenchModule, BenchRow } from './bench';
import { publishCyclesBench } from './publish-cycles';
import { SEARCH_PHASES, searchBench } from './search';

/**
 * `npm run bench`: runs every module below on a dedicated database and index prefix, prints the rows and
 * writes them to bench/results/latest.json and latest.md. Add a module by adding a line to MODULES.
 */
const QUICK = process.argv.includes('--quick');
/** `--only=export,search`: measure just these parts (search phases, or `cycles`), to iterate on one figure. */
const ONLY = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const unknownPhase = ONLY?.find(
  (name) => name !== 'cycles' && !(SEARCH_PHASES as readonly string[]).includes(name),
);
if (unknownPhase) {
  console.error(
    `bench: unknown phase ${unknownPhase}; choose from ${[...SEARCH_PHASES, 'cycles'].join(', ')}`,
  );
  process.exit(2);
}
const searchPhases = ONLY
  ? new Set(SEARCH_PHASES.filter((phase) => ONLY.includes(phase)))
  : new Set(SEARCH_PHASES);
const MODULES: BenchModule[] = [
  ...(searchPhases.size > 0
    ? [
        {
          name: 'search',
          run: () =>
            searchBench({
              ...(QUICK ? { documents: 3000, durationMs: 1000, lagSamples: 10 } : {}),
              phases: searchPhases,
            }),
        },
      ]
    : []),
  ...(!ONLY || ONLY.includes('cycles')
    ? [{ name: 'publish cycles', run: () => publishCyclesBench(QUICK ? { durationMs: 1000 } : {}) }]
    : []),
];

const BENCH_DATABASE = 'broadsheet_bench';
const BENCH_PREFIX = 'bench';

async function prepare(): Promise<void> {
  const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/broadsheet');
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
  await client.end();
  base.pathname = `/${BENCH_DATABASE}`;
  process.env.DATABASE_URL = base.toString();
  process.env.ELASTICSEARCH_INDEX_PREFIX = BENCH_PREFIX;
  process.env.LOG_LEVEL ??= 'warn';
  // The API process the bench starts refuses to run without a key; the bench signs its tokens with the same.
  process.env.JWT_SECRET ??= randomBytes(32).toString('hex');
  await ensureDatabase(process.env.DATABASE_URL);
  await migrate(process.env.DATABASE_URL);
  const es = new Client({ node: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200' });
  // Deleting by wildcard is refused (action.destructive_requires_name): name every index.
  const existing = Object.keys(await es.indices.get({ index: `${BENCH_PREFIX}-*`, allow_no_indices: true }));
  if (existing.length > 0) await es.indices.delete({ index: existing });
  await es.close();
}

function markdown(rows: BenchRow[], seconds: number): string {
  const lines = [
    `# Bench results (${new Date().toISOString()}, ${seconds.toFixed(0)} s)`,
    '',
    'ratio: ours/raw for rates, raw/ours for times; 1.0 = as good as the raw baseline.',
    '',
    '| name | ours | raw | unit | ratio |',
    '|---|---:|---:|---|---:|',
    ...rows.map((row) => `| ${row.name} | ${row.ours} | ${row.raw} | ${row.unit} | ${row.ratio} |`),
  ];
  return `${lines.join('\n')}\n`;
}

async function main() {
  const started = performance.now();
  await prepare();
  const rows: BenchRow[] = [];
  for (const module of MODULES) {
    console.error(`bench: ${module.name}`);
    rows.push(...(await module.run()));
  }
  const seconds = (performance.now() - started) / 1000;
  console.table(rows);
  if (ONLY) {
    console.error(
      `bench: done in ${seconds.toFixed(0)} s; a partial run (--only) leaves bench/results alone`,
    );
    return;
  }
  const dir = resolve(__dirname, 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(
    resolve(dir, 'latest.json'),
    `${JSON.stringify({ at: new Date().toISOString(), seconds, rows }, null, 2)}\n`,
  );
  await writeFile(resolve(dir, 'latest.md'), markdown(rows, seconds));
  console.error(`bench: done in ${seconds.toFixed(0)} s; results in bench/results/latest.{json,md}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
