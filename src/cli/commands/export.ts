import { InvalidArgumentError, Option, type Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { stopOnSignals } from '../run';

const conditions = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by --since only (see run.ts)
  require('../../domain/component-conditions') as typeof import('../../domain/component-conditions');
const exporter = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../export/exporter') as typeof import('../../export/exporter');

const MAX_PARALLEL = 32;

const OUT_FLAGS = '-o, --out <file>';

/**
 * `export`'s exit code for an --out it cannot write (its directory missing, not one, not writable): found before
 * any request, as a usage error's one line. It was 1, after planning over the network, as any failure.
 */
export const EXIT_UNUSABLE_OUTPUT = 2;

function parseParallel(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PARALLEL) {
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_PARALLEL}`);
  }
  return n;
}

/**
 * An ISO 8601 date or date-time, read as the API reads its publishedAt.* parameters (parseIsoDateTime): a time
 * without an offset is UTC, and a day the month lacks is refused (Date.parse rolled 2026-02-30 over to March 2).
 */
function parseSince(value: string): Date {
  // A lower bound that includes (publishedAt.gte): digits past the millisecond make it the next one.
  const date = conditions().parseIsoDateTime(value, { roundUp: true });
  if (date === undefined) {
    throw new InvalidArgumentError(`must be an ISO date or date-time (2026-01-31, 2026-01-31T12:00:00Z)`);
  }
  return date;
}

export function exportCommand(program: Command): void {
  program
    .command('export')
    .description(
      "Export the latest publication of every document of the token's project through the public API, as " +
        'NDJSON (one document per line), over disjoint id ranges in parallel; rerun to resume an interrupted export',
    )
    .requiredOption(
      OUT_FLAGS,
      `the NDJSON file to write, in an existing directory (progress is kept in <file>.state.json; exits ${EXIT_UNUSABLE_OUTPUT} when it cannot be written there)`,
    )
    .option('--parallel <n>', `id ranges pulled at once (1-${MAX_PARALLEL})`, parseParallel, 4)
    .option(
      '--since <iso date>',
      'only documents whose latest publication is at or after this date',
      parseSince,
    )
    .option('--force', 'overwrite an existing file that has no export to resume')
    .addOption(
      new Option(
        '--url <url>',
        "the server's URL, e.g. https://cms.example.com (or the API base URL the demo prints, …/api/2026-03), with no query; a user and password in it are never printed",
      )
        .env('BROADSHEET_URL')
        .makeOptionMandatory(),
    )
    .addOption(
      new Option('--token <token>', "an API token with public-api:read (the project is the token's)")
        .env('BROADSHEET_TOKEN')
        .makeOptionMandatory(),
    )
    .option('--no-progress', 'no progress bar (it is drawn only on a terminal anyway)')
    .action(
      async (
        options: {
          out: string;
          parallel: number;
          since?: Date;
          force?: boolean;
          url: string;
          token: string;
          progress: boolean;
        },
        command: Command,
      ) => {
        const { ExportError, outputProblem, runExport, statePath } = exporter();
        const problem = await outputProblem(options.out);
        if (problem !== undefined) {
          command.error(`option '${OUT_FLAGS}' argument '${options.out}' is invalid: ${problem}`, {
            exitCode: EXIT_UNUSABLE_OUTPUT,
            code: 'broadsheet.unusableOutput',
          });
        }
        const bar = new SingleBar({
          format:
            'export |{bar}| {percentage}% | {documents} documents | {rate} docs/s | ETA {eta_formatted}',
          stream: process.stderr,
          hideCursor: true,
          etaBuffer: 50,
        });
        const stop = stopOnSignals();
        const started = performance.now();
        let barStarted = false;
        let firstDocuments: number | undefined;
        try {
          const result = await runExport({
            url: options.url,
            token: options.token,
            out: options.out,
            parallel: options.parallel,
            since: options.since,
            force: options.force,
            signal: stop.signal,
            // An unreachable API or a long Retry-After is said as it happens: it was silent until the fifth
            // try failed, or for the hour a 429 asked to wait. On a terminal the line replaces the bar's, which
            // is drawn again below it.
            onRetry: (notice) => {
              const line = `broadsheet: export: ${notice.replace(/\s+/g, ' ')}`;
              console.error(barStarted && process.stderr.isTTY ? `\r\x1b[2K${line}` : line);
            },
            onProgress: ({ chunks, chunksDone, documents }) => {
              if (!options.progress) return;
              const seconds = (performance.now() - started) / 1000;
              firstDocuments ??= documents;
              const written = documents - firstDocuments;
              const payload = { documents, rate: seconds > 0 ? Math.round(written / seconds) : 0 };
              if (!barStarted) {
                bar.start(chunks, chunksDone, payload);
                barStarted = true;
              } else {
                bar.update(chunksDone, payload);
              }
            },
          });
          if (barStarted) bar.stop();
          const seconds = (performance.now() - started) / 1000;
          console.log(
            JSON.stringify({
              out: options.out,
              documents: result.documents,
              written: result.written,
              resumed: result.resumed,
              complete: result.complete,
              seconds: Math.round(seconds * 10) / 10,
              docsPerSecond: Math.round(result.written / Math.max(seconds, 0.001)),
            }),
          );
          if (!result.complete) {
            // Stopped before the ids were planned (waiting out a 429's Retry-After, say), nothing was written:
            // it said to rerun to resume from a state file that was never written.
            console.error(
              result.resumable
                ? `broadsheet: export stopped; rerun the same command to resume (${statePath(options.out)})`
                : 'broadsheet: export stopped before anything was written; nothing to resume',
            );
            process.exitCode = 130;
          }
        } catch (error) {
          if (barStarted) bar.stop();
          if (error instanceof ExportError) {
            // Said only when a state file is there: a failure before the plan (a refused token) has none.
            const resume = error.resumable
              ? `; what was written is kept: rerun the same command to resume (${statePath(options.out)})`
              : '';
            throw new Error(`export: ${error.message}${resume}`);
          }
          throw error;
        } finally {
          stop.release();
        }
      },
    );
}
