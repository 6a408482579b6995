import { Presets, SingleBar } from 'cli-progress';
import { barOrLines } from '../progress-lines';
import { InvalidArgumentError, type Command } from 'commander';
import { MAX_REBUILD_BATCH_SIZE, rebuildBatchSizeProblem } from '../../search/rebuild-batch-size';
import { CommandFailed, errorMessage, stopOnSignals, wholeNumber, withContext } from '../run';

const indexManager = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../search/index-manager') as typeof import('../../search/index-manager');

/** `--batch-size`: a whole number of documents (`0`, `-5` or `abc` is a usage error, not an empty index). */
function parseBatchSize(text: string): number {
  const batchSize = wholeNumber(text);
  const problem = rebuildBatchSizeProblem(batchSize);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return batchSize;
}

/**
 * `index rebuild`'s exit code when it swapped the alias to its new index but Elasticsearch refused documents (in
 * the index status lists): done, some documents missing from search, as an import's 2 is. It was 1, as a rebuild
 * that failed and left the live index as it was, so a script took a done rebuild for a failed one.
 */
export const EXIT_REBUILD_REJECTED = 2;

/**
 * `index verify`'s exit code when it could not verify (a usage error, Postgres or Elasticsearch unreachable, a
 * failure midway): 1 is drift found, as for diff(1). Both were 1, so a script or a monitor took an outage of
 * Elasticsearch for drift, or drift for an outage.
 */
export const EXIT_VERIFY_FAILED = 2;

/** `broadsheet index rebuild|verify [--repair]|status`: operate the publications search index. */
export function indexCommands(program: Command): void {
  const index = program.command('index').description('Operate the publications search index');

  index
    .command('rebuild')
    .description(
      'Build a new index from Postgres and swap the alias to it atomically; searches keep answering. One at a time (a second is refused); drops the index a killed rebuild left. ' +
        `Exits ${EXIT_REBUILD_REJECTED} when it swapped the alias but Elasticsearch refused documents (index status lists them), 1 when it failed (the live index unchanged), 130 when stopped`,
    )
    .option(
      '-b, --batch-size <n>',
      `documents per Postgres page and bulk request (1-${MAX_REBUILD_BATCH_SIZE})`,
      parseBatchSize,
      1000,
    )
    .action(async (options: { batchSize: number }) => {
      await withContext(async (ctx) => {
        const bar = new SingleBar(
          {
            format: 'rebuild [{bar}] {value}/{total} docs | {rate} docs/s | ETA {eta_formatted}',
            hideCursor: true,
          },
          Presets.shades_classic,
        );
        const started = Date.now();
        const progress = barOrLines(bar, 'rebuild: ', (done) => ({
          rate: (done / Math.max((Date.now() - started) / 1000, 0.001)).toFixed(0),
        }));
        // Ctrl-C stops the rebuild and drops its half-built index (a second one exits at once). Killed without
        // this, the index stayed behind the rebuilding alias and took every live write from then on.
        const stop = stopOnSignals();
        const result = await indexManager()
          .rebuildIndex(
            { db: ctx.pool, search: ctx.search, index: ctx.index },
            {
              batchSize: options.batchSize,
              logger: ctx.logger,
              signal: stop.signal,
              onStart: (total, target) => {
                console.error(`building ${target} from ${total} published documents`);
                progress.start(total);
              },
              onProgress: ({ done, total }) => progress.update(done, total),
            },
          )
          .catch((error: unknown) => {
            if (!stop.signal.aborted) throw error;
            return undefined;
          })
          .finally(() => {
            progress.stop();
            stop.release();
          });
        if (result === undefined) {
          console.error(
            'broadsheet: index rebuild stopped; its half-built index was dropped, the live one is unchanged',
          );
          process.exitCode = 130;
          return;
        }
        console.error(
          `alias ${ctx.index.alias} → ${result.index} (${result.indexed} documents, ${result.rejected} rejected, ` +
            `${(result.indexed / result.seconds).toFixed(0)} docs/s); dropped ${result.previous.filter((name) => !result.undropped.includes(name)).join(', ') || 'nothing'}` +
            (result.undropped.length > 0
              ? ` (could not drop ${result.undropped.join(', ')}: no longer searched; the next rebuild drops it)`
              : ''),
        );
        if (result.rejected > 0) process.exitCode = EXIT_REBUILD_REJECTED;
      });
    });

  index
    .command('verify')
    .description(
      'Compare Postgres with the index (document and publication ids, index versions), list the documents Elasticsearch refused; --repair re-indexes the drift. ' +
        `Exits 0 when they agree, 1 when it found drift (or a refusal), ${EXIT_VERIFY_FAILED} when it could not verify (Postgres or Elasticsearch unreachable, a usage error)`,
    )
    .option(
      '--repair',
      'index missing and stale documents, remove extra ones, try refused ones again, then compare again: exits 1 when drift or a refusal is left',
    )
    // A usage error is a failure to verify too, not drift (commander's own exit code is 1).
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EXIT_VERIFY_FAILED))
    .action(async (options: { repair?: boolean }) => {
      await withContext(async (ctx) => {
        const report = await indexManager().verifyIndex(
          { db: ctx.pool, search: ctx.search, index: ctx.index, logger: ctx.logger },
          { repair: options.repair ?? false },
        );
        const name = (key: { projectId: number; documentId: number }) => `${key.projectId}:${key.documentId}`;
        const sample = <T>(items: T[], show: (item: T) => string) =>
          items.slice(0, 20).map(show).join(', ') + (items.length > 20 ? ', ...' : '');
        console.log(`checked ${report.checked} published documents`);
        console.log(`missing from the index: ${report.missing.length} ${sample(report.missing, name)}`);
        console.log(
          `stale in the index (an older publication or version): ${report.stale.length} ${sample(report.stale, name)}`,
        );
        console.log(`in the index but not published: ${report.extra.length} ${sample(report.extra, name)}`);
        console.log(
          `refused by Elasticsearch: ${report.rejected.length} ` +
            sample(report.rejected, (r) => `${name(r)} (${r.reason})`),
        );
        const drift =
          report.missing.length + report.stale.length + report.extra.length + report.rejected.length;
        if (options.repair) {
          console.log(`repaired: ${report.repaired} writes`);
          console.log(
            `still drifting after the repair: ${report.unrepaired.length} ${sample(report.unrepaired, name)}` +
              (report.unrepaired.length > 0
                ? ' (the index holds newer versions than Postgres: run index rebuild)'
                : ''),
          );
          console.log(
            `still refused by Elasticsearch after the repair: ${report.stillRejected.length} ` +
              sample(report.stillRejected, (r) => `${name(r)} (${r.reason})`),
          );
          if (report.unrepaired.length > 0 || report.stillRejected.length > 0) process.exitCode = 1;
        } else if (drift > 0) process.exitCode = 1;
      }).catch((error: unknown) => {
        throw new CommandFailed(errorMessage(error), EXIT_VERIFY_FAILED, { cause: error });
      });
    });

  index
    .command('status')
    .description(
      'Show the alias, its indices, document counts, indexing lag, the index queues with the documents they hold, and refused documents',
    )
    .action(async () => {
      await withContext(async (ctx) => {
        const status = await indexManager().indexStatus({
          db: ctx.pool,
          search: ctx.search,
          index: ctx.index,
          boss: ctx.boss,
        });
        console.log(JSON.stringify(status, null, 2));
      });
    });
}
