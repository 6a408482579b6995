import type { z } from 'zod';
import { AppError } from '../domain/errors';
import { zodIssuesToPaths } from '../domain/validation';

/**
 * Validates request input against a zod schema and returns it typed; otherwise a 400 with one key per
 * offending path (supplement §3). `prefix` names where the input came from when that helps the client.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw AppError.validation(zodIssuesToPaths(result.error.issues, prefix));
  return result.data;
}
