import { z } from 'zod';

/** `POST projectConfig` body; the config itself is checked by ProjectConfigSchema to get pointer errors. */
export const ApplyProjectConfigBody = z
  .object({
    plan: z.boolean().default(false),
    projectConfig: z.record(z.string(), z.unknown()),
  })
  .strict();
