import { Presets, SingleBar } from 'cli-progress';
import { barOrLines } from '../progress-lines';
import { InvalidArgumentError, type Command } from 'commander';
import { errorMessage, stopOnSignals, wholeNumber, withContext } from '../run';
import { resolveProjectId } from './clients';

const backfill = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../commands/backfill-video') as typeof import('../../commands/backfill-video');

/** Entries one page of `media backfill-video` reads and one statement writes, at most. */
export const MAX_BACKFILL_BATCH_SIZE = 1000;

/**
 * `media backfill-video`'s exit code when it ran to the end but some assets still have no duration: unreadable
 * ones (each on stderr) or entries changed while read (a re-run takes those). As import's 2: done, not all.
 */
export const EXIT_BACKFILL_INCOMPLETE = 2;

/** `--batch-size`: a whole number of entries from 1 to MAX_BACKFILL_BATCH_SIZE. */
function parseBatchSize(text: string): number {
  const size = wholeNumber(text);
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_BACKFILL_BATCH_SIZE) {
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_BACKFILL_BATCH_SIZE}`);
  }
  return size;
}

/** `broadsheet media backfill-video`: operate the media library's stored assets. */
export function mediaCommands(program: Command): void {
  const media = program.command('media').description("Operate the media library's stored assets");

  media
    .command('backfill-video')
    .description(
      'Run once after upgrading past 1795820805462_media-upload-duration: fill the duration, width and height of video entries (and of file entries stored as video/* or audio/*) ' +
        'stored before imports read them from MP4/MOV and WebM/MKV headers: reads a few header bytes of each ' +
        'through the media store (MEDIA_STORAGE_DIR or MEDIA_S3_*), writes a page of entries per statement, ' +
        'version and updatedAt unchanged. Rerun to resume: it reads only what still has no duration. Prints ' +
        '{examined, filled, unchanged, left, skipped} and each unreadable asset on stderr; exits ' +
        `${EXIT_BACKFILL_INCOMPLETE} when an asset was unreadable or an entry changed while read, 1 when it ` +
        'failed (the store unavailable: what was written stays), 130 when stopped',
    )
    .option('-p, --project <handle|id>', 'only this project (default: every project)')
    .option(
      '-b, --batch-size <n>',
      `entries per page read and per statement written (1-${MAX_BACKFILL_BATCH_SIZE})`,
      parseBatchSize,
      100,
    )
    .option('--dry-run', 'read the headers and report what would be filled; write nothing')
    .action(async (options: { project?: string; batchSize: number; dryRun?: boolean }) => {
      await withContext(async (ctx) => {
        const projectId =
          options.project === undefined ? undefined : await resolveProjectId(ctx, options.project);
        const bar = new SingleBar(
          {
            format: 'backfill-video [{bar}] {value}/{total} entries | ETA {eta_formatted}',
            hideCursor: true,
          },
          Presets.shades_classic,
        );
        const progress = barOrLines(bar, 'backfill-video: ');
        const stop = stopOnSignals();
        const report = await backfill()
          .backfillVideoFacts(
            { db: ctx.pool, objects: ctx.objects },
            {
              projectId,
              batchSize: options.batchSize,
              dryRun: options.dryRun ?? false,
              signal: stop.signal,
              onStart: (total) => {
                console.error(
                  `${options.dryRun ? 'reading (dry run, nothing written)' : 'backfilling'} ${total} media entries ` +
                    'with an asset that has no duration',
                );
                progress.start(total);
              },
              onProgress: (done, total) => progress.update(done, Math.max(total, done)),
            },
          )
          .catch((error: unknown) => {
            throw new Error(
              `${errorMessage(error)}; what was filled before stays: run media backfill-video again to resume`,
              { cause: error },
            );
          })
          .finally(() => {
            progress.stop();
            stop.release();
          });
        for (const skipped of report.skipped) {
          console.error(
            `skipped project ${skipped.projectId} entry ${skipped.id}` +
              (skipped.locale === undefined ? '' : ` translation ${skipped.locale}`) +
              ` (${skipped.key}): ${skipped.reason}`,
          );
        }
        if (report.left > 0) {
          console.error(
            `${report.left} entries changed or were in use while read, not written: run media backfill-video again`,
          );
        }
        console.log(
          JSON.stringify({
            examined: report.examined,
            [options.dryRun ? 'wouldFill' : 'filled']: report.filled,
            unchanged: report.unchanged,
            left: report.left,
            skipped: report.skipped.length,
          }),
        );
        if (report.stopped) {
          console.error(
            'broadsheet: media backfill-video stopped; what was filled stays: run it again to resume',
          );
          process.exitCode = 130;
        } else if (report.skipped.length > 0 || report.left > 0) {
          process.exitCode = EXIT_BACKFILL_INCOMPLETE;
        }
      });
    });
}
