import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import pg from 'pg';
import { ensureDatabase, migrate } from '../src/db/migrate';
import { fact, facts, type BenchFact, type BenchModule, type BenchRow } from './bench';
import { importBench } from './import';
import { publishCyclesBench } from './publish-cycles';
import { SEARCH_PHASES, searchBench } from './search';
import { serveImageBench } from './serve-image';
import { soakBench } from './soak';

/**
 * `npm run bench`: runs every module below on a dedicated database and index prefix, prints the rows and
 * writes them to bench/results/latest.json and latest.md. Add a module by adding a line to MODULES.
 */
const QUICK = process.argv.includes('--quick');
/** `--soak` (600 s) or `--soak=<seconds>`: only the soak, at concurrency 32; results in bench/results/soak.*. */
const SOAK_ARG = process.argv.find((arg) => arg === '--soak' || arg.startsWith('--soak='));
const SOAK_SECONDS = SOAK_ARG === undefined ? undefined : Number(SOAK_ARG.split('=')[1] ?? 600);
if (SOAK_SECONDS !== undefined && !(Number.isFinite(SOAK_SECONDS) && SOAK_SECONDS > 0)) {
  console.error(`bench: --soak takes a number of seconds (got ${SOAK_ARG})`);
  process.exit(2);
}
/**
 * `--only=export,search`: measure just these parts (search phases, `cycles` or `images`), to iterate on one
 * figure.
 */
const ONLY = process.argv
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const OTHER_PHASES = ['cycles', 'images', 'import'];
const unknownPhase = ONLY?.find(
  (name) => !OTHER_PHASES.includes(name) && !(SEARCH_PHASES as readonly string[]).includes(name),
);
if (unknownPhase) {
  console.error(
    `bench: unknown phase ${unknownPhase}; choose from ${[...SEARCH_PHASES, ...OTHER_PHASES].join(', ')}`,
  );
  process.exit(2);
}
/**
 * `--docs=N`: how many publications the search bench generates, and how many documents the import bench
 * imports (default 100,000; `--quick`: 3,000).
 */
const DOCS_ARG = process.argv.find((arg) => arg.startsWith('--docs='))?.slice('--docs='.length);
const DOCS = DOCS_ARG === undefined ? undefined : Number(DOCS_ARG.replace(/_/g, ''));
if (DOCS !== undefined && !(Number.isSafeInteger(DOCS) && DOCS >= 1000)) {
  console.error(`bench: --docs must be a whole number of at least 1000, not ${DOCS_ARG}`);
  process.exit(2);
}
/** `--rounds=N`: rounds of ours then raw per figure (default 3): 1 makes a run at a million feasible. */
const ROUNDS_ARG = process.argv.find((arg) => arg.startsWith('--rounds='))?.slice('--rounds='.length);
const ROUNDS = ROUNDS_ARG === undefined ? undefined : Number(ROUNDS_ARG);
if (ROUNDS !== undefined && !(Number.isInteger(ROUNDS) && ROUNDS >= 1 && ROUNDS <= 9)) {
  console.error(`bench: --rounds must be a whole number from 1 to 9, not ${ROUNDS_ARG}`);
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
              ...(QUICK ? { documents: 3000, durationMs: 1000, lagSamples: 10, warmUpMs: 500 } : {}),
              ...(DOCS === undefined ? {} : { documents: DOCS }),
              ...(ROUNDS === undefined ? {} : { rounds: ROUNDS }),
              phases: searchPhases,
            }),
        },
      ]
    : []),
  ...(!ONLY || ONLY.includes('cycles')
    ? [
        {
          name: 'publish cycles',
          run: () =>
            publishCyclesBench({
              ...(QUICK ? { durationMs: 1000, rounds: 1 } : {}),
              ...(ROUNDS === undefined ? {} : { rounds: ROUNDS }),
            }),
        },
      ]
    : []),
  ...(!ONLY || ONLY.includes('images')
    ? [{ name: 'serve-image', run: () => serveImageBench(QUICK ? { durationMs: 2000 } : {}) }]
    : []),
  // Last: its rounds leave the documents table as they found it, but not the table sizes search runs on.
  ...(!ONLY || ONLY.includes('import')
    ? [
        {
          name: 'import',
          run: () =>
            importBench({
              ...(QUICK ? { documents: 3000, rounds: 1 } : {}),
              ...(DOCS === undefined ? {} : { documents: DOCS }),
            }),
        },
      ]
    : []),
];

/**
 * BENCH_SUFFIX=_x: a database and index prefix of its own, so two benches on one machine cannot collide;
 * BENCH_DATABASE / BENCH_INDEX_PREFIX name them outright.
 */
const BENCH_SUFFIX = (process.env.BENCH_SUFFIX ?? '').replace(/[^a-z0-9_]/g, '');
const BENCH_DATABASE = process.env.BENCH_DATABASE ?? `broadsheet_bench${BENCH_SUFFIX}`;
// No dash after `bench`: another run's cleanup deletes `bench-*`.
const BENCH_PREFIX = process.env.BENCH_INDEX_PREFIX ?? `bench${BENCH_SUFFIX.replace(/_/g, '')}`;
if (!/^[a-z_][a-z0-9_]*$/.test(BENCH_DATABASE) || !/^[a-z][a-z0-9_-]*$/.test(BENCH_PREFIX)) {
  console.error('bench: BENCH_DATABASE and BENCH_INDEX_PREFIX must be plain lower-case names');
  process.exit(2);
}

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

function markdown(rows: BenchRow[], noted: BenchFact[], seconds: number, failed: string[]): string {
  const lines = [
    `# Bench results (${new Date().toISOString()}, ${seconds.toFixed(0)} s${DOCS === undefined ? '' : `, --docs=${DOCS}`}${ONLY ? `, --only=${ONLY.join(',')}` : ''})`,
    '',
    'ratio: ours/raw for rates, raw/ours for times; 1.0 = as good as the raw baseline.',
    '',
    '| name | ours | raw | unit | ratio |',
    '|---|---:|---:|---|---:|',
    ...rows.map((row) => `| ${row.name} | ${row.ours} | ${row.raw} | ${row.unit} | ${row.ratio} |`),
    ...(failed.length > 0
      ? ['', `**Failed, no figures:** ${failed.join(', ')} (the run's log says why).`]
      : []),
    ...(noted.length > 0
      ? [
          '',
          '| fact | value | unit |',
          '|---|---:|---|',
          ...noted.map((f) => `| ${f.name} | ${f.value} | ${f.unit} |`),
        ]
      : []),
  ];
  return `${lines.join('\n')}\n`;
}

async function soak(seconds: number) {
  await prepare();
  console.error(`bench: soak for ${seconds} s at concurrency 32`);
  const result = await soakBench({ durationMs: seconds * 1000 });
  console.log(JSON.stringify(result, null, 2));
  const dir = resolve(__dirname, 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(
    resolve(dir, 'soak.json'),
    `${JSON.stringify({ at: new Date().toISOString(), ...result }, null, 2)}\n`,
  );
  console.error('bench: soak results in bench/results/soak.json');
  if (result.errors > 0) {
    console.error(`bench: the soak saw ${result.errors} errors`);
    process.exitCode = 1;
  }
}

async function main() {
  if (SOAK_SECONDS !== undefined) {
    await soak(SOAK_SECONDS);
    return;
  }
  const started = performance.now();
  // The machine's other load moves every absolute figure (ratios much less): the run says what it ran beside.
  fact('load average (1 min) at the start', loadavg()[0]!, 'runnable tasks');
  await prepare();
  const rows: BenchRow[] = [];
  const failed: string[] = [];
  for (const module of MODULES) {
    console.error(`bench: ${module.name}`);
    // One module's failure does not throw away the others' measurements (a million-document run lasts long):
    // the results say which module failed, and the run exits 1.
    try {
      rows.push(...(await module.run()));
    } catch (error) {
      console.error(`bench: ${module.name} failed:`, error);
      failed.push(module.name);
      process.exitCode = 1;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  fact('load average (1 min) at the end', loadavg()[0]!, 'runnable tasks');
  console.table(rows);
  if (facts.length > 0) console.table(facts);
  // A partial run leaves bench/results alone, unless it is a point of the scale curve (`--docs=N`).
  if (ONLY && DOCS === undefined) {
    console.error(
      `bench: done in ${seconds.toFixed(0)} s; a partial run (--only) leaves bench/results alone`,
    );
    return;
  }
  const dir = resolve(__dirname, 'results');
  await mkdir(dir, { recursive: true });
  // A run at another size (`--docs=N`) is a point of the scale curve: it keeps its own file.
  const name = DOCS === undefined ? 'latest' : `docs-${DOCS}`;
  await writeFile(
    resolve(dir, `${name}.json`),
    `${JSON.stringify({ at: new Date().toISOString(), seconds, documents: DOCS ?? 100_000, only: ONLY, failed, rows, facts }, null, 2)}\n`,
  );
  await writeFile(resolve(dir, `${name}.md`), markdown(rows, facts, seconds, failed));
  console.error(`bench: done in ${seconds.toFixed(0)} s; results in bench/results/${name}.{json,md}`);
  if (failed.length > 0) console.error(`bench: failed, no figures: ${failed.join(', ')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
