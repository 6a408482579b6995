import { readFile } from 'node:fs/promises';
import { loadConfig, type Config } from '../config';
import { createContext, type AppContext } from '../context';
import { AppError } from '../domain/errors';

/** Runs a CLI action with a full context and closes it afterwards, so the process exits by itself. */
export async function withContext<T>(action: (ctx: AppContext) => Promise<T>): Promise<T> {
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  const ctx = await createContext(config, { role: 'cli' });
  try {
    return await action(ctx);
  } finally {
    await ctx.close();
  }
}

export function cliConfig(): Config {
  return loadConfig({ LOG_LEVEL: 'warn', ...process.env });
}

/** Renders an AppError's details readably for a terminal. */
export function describeError(error: unknown): string {
  if (error instanceof AppError) return `${error.reason}: ${JSON.stringify(error.details, null, 2)}`;
  return error instanceof Error ? error.message : String(error);
}

/** A JSON file's parsed value; a file that is not JSON is an error naming it (`<file> is not JSON: ...`). */
export async function readJsonFile(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
}
