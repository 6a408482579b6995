import { z } from 'zod';
import { objectKeyProblem } from '../../../storage/object-store';

/**
 * `{key}` of serve-image: Express hands the segments of `*key` over decoded, one string each; joined with `/`
 * they are the object key, which must be a valid one (no `..`, no backslash, no control character ...).
 */
export const serveImageParams = z.object({
  key: z
    .array(z.string())
    .transform((segments) => segments.join('/'))
    .superRefine((key, ctx) => {
      const problem = objectKeyProblem(key);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ type: 'string', description: 'the asset key; may contain slashes' }),
});
