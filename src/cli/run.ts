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
