import { z } from 'zod';
import { perVersion } from '../domain/api-versions';

/**
 * The answer shapes every route shares, as zod schemas: the error envelope and the list envelope. The OpenAPI
 * description is generated from them, and the tests parse real answers with them.
 */

/** api-spec §2.10, §7 and supplement §3: the envelope of every non-2xx answer (src/http/middleware/errors.ts). */
export const errorAnswer = z
  .strictObject({
    status: z.number().int().min(400).max(599),
    error: z.string().describe('HTTP reason phrase'),
    error_details: z
      .looseObject({ name: z.string().optional(), message: z.string().optional() })
      .describe(
        '{name, message} and what the error adds (currentVersion, commandIndex, ...); for a ValidationError, ' +
          'one key per offending path (segments joined by dots; a segment the client chose that is longer than ' +
          "100 characters shows its first 100, … and its length, as messages repeat input); for a bearer token's " +
          '401 and 403, {access_token: message}',
      ),
  })
  .meta({ id: 'Error' });

/**
 * A list answer (api-spec §4.20): a bare array of `item` up to 2025-11, `{results, ...extra}` from 2026-01
 * (`extra`: total and cursor where the list has them).
 */
export function listAnswer(item: z.ZodType, extra: z.ZodRawShape = {}) {
  // Two shapes, each built once and shared by the versions that answer it.
  const bare = z.array(item);
  const wrapped = z.strictObject({ results: bare, ...extra });
  return perVersion((version): z.ZodType => (version.wrapsLists ? wrapped : bare));
}

/** What the lists with cursors add from 2026-01 (api-spec §4.20 rule 2); `cursor` says what it signs. */
export const pagedExtra = (cursor: string) => ({
  total: z.number().int().min(0).describe('how many items in all'),
  cursor: z
    .string()
    .describe(`pass as after for the next page; ${cursor}; '' when this page is not full (the last one)`),
});
