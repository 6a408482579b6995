import path from 'node:path';

/**
 * The programs as an operator runs them: Node on the compiled `dist/` (`npm run build`), which the test run's
 * global setup brings up to date (test/helpers/global-setup.ts). Spawning the sources through tsx transpiled
 * the program's imports on every start, 0.15 s to 1 s a process on two cores, and the CLI's tests start over
 * a hundred; tsx's own CLI (node_modules/.bin/tsx) was a second process on top, relaying signals.
 */
export const NODE = path.resolve('node_modules/.bin/node');
export const CLI_SCRIPT = path.resolve('dist/src/cli/main.js');
export const API_SCRIPT = path.resolve('dist/src/main.js');
export const WORKERS_SCRIPT = path.resolve('dist/workers/main.js');
