import type { Command } from 'commander';
import type { Config } from '../config';
import type { AppContext } from '../context';
import { AppError } from '../domain/errors';
import { jsonErrorMessage, readTextFile } from './text-files';

/**
 * Runs a CLI action with a full context and closes it afterwards, so the process exits by itself. The context
 * (pg-boss, the Elasticsearch client, the API's reads and commands: most of what the CLI could load) is loaded
 * here, by the commands that connect: `--help`, a usage error or `export` (HTTP only) does without it.
 */
export async function withContext<T>(action: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = cliConfig();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the commands that connect only
  const { createContext } = require('../context') as typeof import('../context');
  const ctx = await createContext(config, { role: 'cli' });
  try {
    return await action(ctx);
  } catch (error) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the Elasticsearch client's errors, once the context is loaded
    const { searchStartError } = require('../search/client') as typeof import('../search/client');
    throw searchStartError(config.elasticsearch.urls, error);
  } finally {
    await ctx.close();
  }
}

/**
 * Ctrl-C (or SIGTERM) as an abort: the first signal aborts `signal`, so a long command can stop cleanly (and
 * say what it left), a second one exits at once with 130. `release()` hands the signals back once the command
 * is done with them.
 */
export function stopOnSignals(): { signal: AbortSignal; release: () => void } {
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: stop.signal,
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * A reader that goes away early (`broadsheet ... | head -1`, a closed terminal) makes the next write to stdout
 * or stderr fail with EPIPE, which Node raises as an unhandled 'error' event: the process died with a stack
 * trace in the middle of its work (a demo load half done). What is written there is for a reader only, so the
 * command carries on and finishes without it; any other stream error still ends the process.
 */
export function ignoreClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
}

/**
 * The process's config (loaded here, with its schema, by the commands that need it). An operator's command sets
 * no statement timeout, whatever DATABASE_STATEMENT_TIMEOUT_MS says (it is the API's and the workers'): an
 * import or an index rebuild of a large project runs as long as its work takes, and Ctrl-C stops it.
 */
export function cliConfig(): Config {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the commands that connect only
  const { loadConfig } = require('../config') as typeof import('../config');
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  return { ...config, database: { ...config.database, statementTimeoutMs: 0 } };
}

/**
 * What to do about a Postgres error that means the database is not (yet) this version's: the database missing
 * (3D000), or a table or column of a migration not applied (42P01, 42703): 'relation "projects" does not
 * exist' alone did not say that `broadsheet migrate` was never run, or not since an upgrade.
 */
const SCHEMA_HINTS: Record<string, string> = {
  '3D000': "create it and apply the migrations with 'broadsheet migrate'",
  '42P01': "the database's schema is not this version's: apply the migrations with 'broadsheet migrate'",
  '42703': "the database's schema is not this version's: apply the migrations with 'broadsheet migrate'",
};

/** An error's message for the terminal, with what to do when it says the database lacks its migrations. */
export function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const hint = typeof code === 'string' ? SCHEMA_HINTS[code] : undefined;
  return hint === undefined ? message : `${message}: ${hint}`;
}

/**
 * A count, seed or lifetime given as an option: decimal digits (spaces around them allowed), else NaN for the
 * option's own range check to refuse. Number() read '' (an unset variable) as 0, '1e2' as 100, '0x10' as 16.
 */
export const wholeNumber = (text: string): number => (/^\d+$/.test(text.trim()) ? Number(text) : Number.NaN);

/**
 * A command's failure that ends the process with an exit code of its own rather than 1, where 1 means
 * something else for that command (`index verify`: 1 is drift found, so failing to verify is 2).
 */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'CommandFailed';
  }
}

/** The exit code an error ends the CLI with: a CommandFailed's own, else 1. */
export function exitCodeOf(error: unknown): number {
  return error instanceof CommandFailed ? error.exitCode : 1;
}

/**
 * Usage errors (an unknown option or command, a missing or bad value) on one line of stderr, naming the command
 * and where its options are listed: `broadsheet import: unknown option '--bogus' (see: broadsheet import
 * --help)`. Commander's own printed `error: ...` followed by the command's whole help, the error itself
 * scrolled out of sight above it. Applied to `command` and every command under it.
 */
export function oneLineUsageErrors(command: Command, parents: readonly string[] = []): void {
  const path = [...parents, command.name()];
  const name = path.join(' ');
  // An option a variable can give is named with it (`export`'s --token or BROADSHEET_TOKEN), as the help did.
  const withVariables = (text: string) =>
    command.options.reduce(
      (said, option) =>
        option.envVar === undefined
          ? said
          : said.replace(`'${option.flags}'`, `'${option.flags}' (or ${option.envVar})`),
      text,
    );
  command.showHelpAfterError(false).configureOutput({
    outputError: (text, write) =>
      write(
        `${name}: ${withVariables(text.trim().replace(/^error: /, '')).replace(/\s*\n\s*/g, ' ')} (see: ${name} --help)\n`,
      ),
  });
  for (const sub of command.commands) oneLineUsageErrors(sub, path);
}

/** Renders an AppError's details readably for a terminal; any other error as errorMessage does. */
export function describeError(error: unknown): string {
  if (error instanceof AppError) return `${error.reason}: ${JSON.stringify(error.details, null, 2)}`;
  return errorMessage(error);
}

/**
 * A JSON file's parsed value; a file that is not JSON is an error naming it (`<file> is not JSON: ...`). A
 * byte order mark that editors on Windows put first is no part of the JSON (RFC 8259 §8.1 lets a parser
 * ignore it), so it does not make a good file 'not JSON'.
 */
export async function readJsonFile(file: string): Promise<unknown> {
  const text = await readTextFile(file);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${file} is not JSON: ${jsonErrorMessage(error, text)}`);
  }
}
