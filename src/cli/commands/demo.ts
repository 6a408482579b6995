import type { Command } from 'commander';
import { MIN_DEMO_DOCUMENTS } from '../../demo/minimum';
import { progressLines, type ProgressLines } from '../progress-lines';
import { describeError, stopOnSignals, wholeNumber, withContext } from '../run';

const demo = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the action only (see run.ts)
  require('../../commands/load-demo') as typeof import('../../commands/load-demo');

/** The generator's seed is 32 bits (src/demo/random.ts): a larger one made the content of a smaller one. */
const MAX_DEMO_SEED = 0xffff_ffff;

/** Addresses that mean "every interface" to listen(): no client can open a URL naming them. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

/**
 * The base of the demo's image URLs (its articles store them): PUBLIC_BASE_URL, else where the API listens as a
 * client on this machine reaches it. A wildcard HOST (docker-compose.yml's 0.0.0.0) is loopback, where a published
 * port is reached (it gave http://0.0.0.0:3000/... URLs), and an IPv6 address goes in brackets.
 */
export function demoBaseUrl(http: { host: string; port: number; publicBaseUrl: string | undefined }): string {
  if (http.publicBaseUrl !== undefined) return http.publicBaseUrl;
  const host = WILDCARD_HOSTS.has(http.host)
    ? '127.0.0.1'
    : http.host.includes(':')
      ? `[${http.host}]`
      : http.host;
  return `http://${host}:${http.port}`;
}

export function demoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'Create the demo project and load deterministic demo content (documents, media, lists and a main menu), all published (idempotent); ' +
        'Ctrl-C lets the import batches in flight commit and exits 130: run it again to finish',
    )
    .option(
      '-d, --documents <count>',
      `how many documents to generate (authors, articles, pages; at least ${MIN_DEMO_DOCUMENTS})`,
      '2000',
    )
    .option(
      '--seed <number>',
      `seed of the generator, a whole number from 0 to ${MAX_DEMO_SEED} (same seed, same content)`,
      '20260115',
    )
    .action(async (options: { documents: string; seed: string }) => {
      // '--documents 5' loaded 30 without a word, and '1e3' was read as 1000.
      const documents = wholeNumber(options.documents);
      // `--seed "$SEED"` with SEED unset was seed 0; the generator keeps 32 bits, so -1 and 4294967295 made the
      // same content.
      const seed = wholeNumber(options.seed);
      if (!Number.isSafeInteger(documents) || documents < MIN_DEMO_DOCUMENTS)
        throw new Error(`--documents must be a whole number, at least ${MIN_DEMO_DOCUMENTS}`);
      if (!(seed <= MAX_DEMO_SEED))
        throw new Error(`--seed must be a whole number from 0 to ${MAX_DEMO_SEED}`);
      await withContext(async (ctx) => {
        const publicBaseUrl = demoBaseUrl(ctx.config.http);
        // Ctrl-C lets the import batches in flight commit and ends their job failed (a second one exits at once).
        const stop = stopOnSignals();
        const { DemoInterrupted, loadDemo } = demo();
        // One count per phase: on a terminal a line redrawn in place, in a log file plain lines (no '\r').
        let progress: { phase: string; lines: ProgressLines } | undefined;
        try {
          const summary = await loadDemo(ctx, {
            documents,
            seed,
            publicBaseUrl,
            signal: stop.signal,
            onProgress: (phase, done, total) => {
              if (progress?.phase !== phase) {
                progress?.lines.finish();
                progress = { phase, lines: progressLines(process.stderr, `${phase}: `, total) };
              }
              progress.lines.update(done);
            },
          });
          progress?.lines.finish();
          console.log(JSON.stringify(summary, null, 2));
        } catch (error) {
          progress?.lines.finish();
          if (!(error instanceof DemoInterrupted)) throw new Error(describeError(error));
          console.error(`broadsheet: demo ${error.message}; what was written stays, run it again to finish`);
          process.exitCode = 130;
        } finally {
          stop.release();
        }
      });
    });
}
