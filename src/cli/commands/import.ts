import type { Command } from 'commander';
import {
  DEFAULT_IMPORT_BATCH_SIZE,
  DEFAULT_IMPORT_CONCURRENCY,
  MAX_IMPORT_DOCUMENTS,
} from '../../domain/import-limits';
import { ApiVersion } from '../../domain/api-versions';
import { isRecord } from '../../domain/content';
import type { ImportLog, ImportRequest } from '../../domain/import-request';
import { slicesOf } from '../../slices';
import { describeError, stopOnSignals, wholeNumber, withContext } from '../run';
import { progressLines } from '../progress-lines';
import { jsonErrorMessage, readTextFile } from '../text-files';
import { resolveProjectId } from './clients';

const importDocuments = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../commands/import-documents') as typeof import('../../commands/import-documents');
const importRequest = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../domain/import-request') as typeof import('../../domain/import-request');
const jsonLimits = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../domain/json-limits') as typeof import('../../domain/json-limits');
const validation = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../domain/validation') as typeof import('../../domain/validation');
const errors = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../domain/errors') as typeof import('../../domain/errors');

/**
 * The documents of a file: a JSON array, `{documents: [...]}`, or NDJSON (one document per line); `file` names
 * it in errors. A file whose first line is not JSON either is no NDJSON: it is named with JSON's own problem
 * (a JSON array spread over lines with one trailing comma was 'line 1 is not JSON', line 1 being `[`).
 */
export function parseDocumentsFile(text: string, file = 'the file'): unknown[] {
  if (text.trim() === '') return [];
  let wholeFileProblem: unknown;
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return parsed;
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      Array.isArray((parsed as { documents?: unknown }).documents)
    ) {
      return (parsed as { documents: unknown[] }).documents;
    }
    return [parsed];
  } catch (error) {
    wholeFileProblem = error;
  }
  let firstLine = true;
  return text.split('\n').flatMap((line, index) => {
    if (line.trim() === '') return [];
    try {
      const document = JSON.parse(line) as unknown;
      firstLine = false;
      return [document];
    } catch (error) {
      if (firstLine) throw new Error(`${file} is not JSON: ${jsonErrorMessage(wholeFileProblem, text)}`);
      // V8 places the error in the line alone ('position 1 (line 1 column 2)'): the column is what says where.
      const problem = jsonErrorMessage(error).replace(
        / at position \d+ \(line 1 column (\d+)\)/,
        ' at column $1',
      );
      throw new Error(`${file}: line ${index + 1} is not JSON: ${problem}`);
    }
  });
}

/**
 * A document of the file as `--auto-publish` sends it: `flags.autoPublish` set. Only a document that is an
 * object, with no flags or flags that are an object, is changed; anything else is left for validation to name
 * (spreading them made `flags: "ab"` into `flags.0: is not allowed` and let `flags: null` through).
 */
export function withAutoPublish(document: unknown): unknown {
  if (!isRecord(document) || (document.flags !== undefined && !isRecord(document.flags))) return document;
  return { ...document, flags: { ...document.flags, autoPublish: true } };
}

/**
 * What a run's logs say to its operator: the documents imported, published and failed, the failed documents,
 * the job's own failure line (external_id '', the run failed as a whole) apart, and the exit code: 1 when
 * nothing was written (every document failed, or the job failed before writing any), 2 when some documents
 * failed or the job failed after writing some, else 0. The job's line was skipped: a run that failed as a
 * whole printed its counts, said nothing and exited 0.
 */
export function summarizeImport(
  logs: readonly ImportLog[],
  documentCount: number,
): {
  totals: Record<ImportLog['state'], number>;
  failures: ImportLog[];
  jobFailure: ImportLog | undefined;
  exitCode: 0 | 1 | 2;
} {
  const totals = { imported: 0, published: 0, failed: 0 };
  const failures: ImportLog[] = [];
  let jobFailure: ImportLog | undefined;
  for (const log of logs) {
    if (log.external_id === '') {
      if (log.state === 'failed') jobFailure = log;
      continue;
    }
    totals[log.state] += 1;
    if (log.state === 'failed') failures.push(log);
  }
  const written = totals.imported + totals.published;
  // A script must not read 'imported' off a run that left documents behind: 2 says some failed.
  const exitCode =
    totals.failed === 0 && jobFailure === undefined
      ? 0
      : written === 0 && (jobFailure !== undefined || totals.failed === documentCount)
        ? 1
        : 2;
  return { totals, failures, jobFailure, exitCode };
}

/**
 * What to say when the file's documents are lines of `broadsheet export` (publications as the delivery API serves
 * them: `{systemdata, metadata, content}`), which import does not take: validation alone said
 * 'documents.0.contentType: is required / documents.0.systemdata: is not allowed', as if the file were broken.
 * Undefined when no document looks like one (an object with `systemdata` and no `contentType`).
 */
export function exportLineHint(documents: readonly unknown[]): string | undefined {
  const first = documents.findIndex(
    (document) => isRecord(document) && isRecord(document.systemdata) && document.contentType === undefined,
  );
  if (first === -1) return undefined;
  const others = documents.filter(
    (document, index) =>
      index > first &&
      isRecord(document) &&
      isRecord(document.systemdata) &&
      document.contentType === undefined,
  ).length;
  return (
    `document ${first + 1}${others > 0 ? ` (and ${others} more)` : ''} looks like a line written by broadsheet ` +
    'export (a publication as the delivery API serves it: systemdata, metadata, content), not a document to ' +
    'import. Import takes {id, contentType, metadata, content, design?, flags?, publishControl?}: id is the ' +
    "document's id in the source system, contentType and design are in the line's systemdata, and systemdata " +
    'itself is left out (README, "Round trip: export, then import")'
  );
}

/** Postgres became unavailable mid-run (sysexits' EX_TEMPFAIL): nothing is wrong with the file, run it again. */
const EXIT_TEMPORARY_FAILURE = 75;

export function importCommand(program: Command): void {
  program
    .command('import <file>')
    .description(
      'Import documents from a JSON (array or {documents}) or NDJSON file, synchronously. Prints ' +
        '{documents, imported, published, failed} and each failure on stderr; exits 1 when every document ' +
        'failed (or the job failed as a whole before writing any), 2 when some did, 75 when Postgres became unavailable (what was written stays: import the ' +
        'file again). Ctrl-C lets the batches in flight commit, ends the job failed and exits 130. Progress goes to ' +
        'stderr: a line redrawn on a terminal, else plain lines (import: <done>/<total>) at each tenth. A file ' +
        'written by export is no import file: map its lines first (README, "Round trip: export, then import")',
    )
    .requiredOption('-p, --project <handle|id>', 'project to import into')
    .requiredOption(
      '-s, --system-name <name>',
      'the source system; (system name, id) decides create vs update',
    )
    .option('--auto-publish', 'publish every imported document (one under an embargo in force fails instead)')
    .option(
      '--batch-size <n>',
      `documents written per transaction (1-${MAX_IMPORT_DOCUMENTS}); a batch Postgres refuses is retried one document at a time`,
      String(DEFAULT_IMPORT_BATCH_SIZE),
    )
    .option(
      '--concurrency <n>',
      'batches written at once (1-8); batches that share a document never run together',
      String(DEFAULT_IMPORT_CONCURRENCY),
    )
    .option(
      '--api-version <label>',
      'import rules of this API version (2026-01+ validates content)',
      '2026-03',
    )
    .action(
      async (
        file: string,
        options: {
          project: string;
          systemName: string;
          autoPublish?: boolean;
          batchSize: string;
          concurrency: string;
          apiVersion: string;
        },
      ) => {
        const batchSize = wholeNumber(options.batchSize);
        if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_IMPORT_DOCUMENTS)
          throw new Error(`--batch-size must be an integer from 1 to ${MAX_IMPORT_DOCUMENTS}`);
        const concurrency = wholeNumber(options.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 8)
          throw new Error('--concurrency must be an integer from 1 to 8');
        const version = ApiVersion.parse(options.apiVersion);
        if (!version) throw new Error(`unknown API version '${options.apiVersion}'`);
        const documents = parseDocumentsFile(await readTextFile(file), file);
        const raw = options.autoPublish ? documents.map(withAutoPublish) : documents;
        await withContext(async (ctx) => {
          const projectId = await resolveProjectId(ctx, options.project);
          // Every batch is validated before the first one runs, so a bad line never leaves half a file imported.
          const batches: ImportRequest[] = [];
          try {
            // What the API's body walk refuses (see domain/json-limits.ts), before validation copies it away.
            const problem = jsonLimits().findBodyProblem({ documents: raw });
            if (problem) throw errors().AppError.validation({ [problem.key]: problem.message });
            for (const documents of slicesOf(raw, MAX_IMPORT_DOCUMENTS)) {
              batches.push(
                validation().parseOrThrow(importRequest().ImportRequestSchema, {
                  systemName: options.systemName,
                  documents,
                }),
              );
            }
          } catch (error) {
            const hint = exportLineHint(raw);
            throw new Error(describeError(error) + (hint === undefined ? '' : `\n${hint}`));
          }
          // One run of the engine over the whole file (one job row), so its batches keep flowing.
          const documents = batches.flatMap((body) => body.documents);
          // Ctrl-C lets the batches in flight commit and ends the job failed, saying so (a second one exits at
          // once). Killed without this, the job row stayed 'started' for good and import/documents/status said so.
          const stop = stopOnSignals();
          const progress = progressLines(process.stderr, 'import: ', raw.length);
          const job = await importDocuments()
            .importDocumentsNow(
              ctx,
              projectId,
              version,
              { systemName: options.systemName, documents },
              {
                batchSize,
                concurrency,
                signal: stop.signal,
                onProgress: (done) => progress.update(done),
              },
            )
            .finally(() => {
              progress.finish();
              stop.release();
            });
          // The job's own last line (an interrupted or stopped run's, external_id '') is said apart below.
          const { totals, failures, jobFailure, exitCode } = summarizeImport(job.logs, raw.length);
          for (const failure of failures)
            console.error(`failed ${failure.external_id}: ${failure.reason ?? ''}`);
          console.log(JSON.stringify({ documents: raw.length, ...totals }));
          if (exitCode !== 0) process.exitCode = exitCode;
          if (job.outage) {
            console.error(
              `broadsheet: import stopped: ${job.outage.message} (a batch whose connection was cut as it ` +
                `committed may be written too). Job ${job.id} is marked failed if Postgres let it. Import the ` +
                'file again to finish: documents are matched by external id, and one already published and ' +
                'unchanged is not published again',
            );
            process.exitCode = EXIT_TEMPORARY_FAILURE;
          } else if (stop.signal.aborted && job.state === 'failed') {
            console.error(
              `broadsheet: import stopped; job ${job.id} is marked failed, what was written stays`,
            );
            process.exitCode = 130;
          } else if (jobFailure) {
            console.error(
              `broadsheet: ${jobFailure.reason ?? 'The import job failed'}; job ${job.id} is marked failed, ` +
                'what was written stays',
            );
          }
        });
      },
    );
}
