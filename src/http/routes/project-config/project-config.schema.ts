import { z } from 'zod';
import { MAX_CATEGORY_ID_LENGTH } from '../../../domain/categories';
import {
  MAX_CONFIG_LABEL_LENGTH,
  MAX_LOCALE_LENGTH,
  ProjectConfigSchema,
} from '../../../domain/project-config';
import { fromCheck, invalid, valid, type Checked } from '../../../domain/validation';

const config = z.record(z.string(), z.unknown());

/**
 * The config under either key: `channelConfig` is what existing clients send (the vendor's project-config
 * tool), `projectConfig` its synonym (supplement §8). Exactly one of them.
 */
function oneConfig(body: {
  plan: boolean;
  channelConfig?: Record<string, unknown> | undefined;
  projectConfig?: Record<string, unknown> | undefined;
}): Checked<{ plan: boolean; projectConfig: Record<string, unknown> }> {
  const { plan, channelConfig, projectConfig } = body;
  if (channelConfig !== undefined && projectConfig !== undefined) {
    return invalid([
      {
        path: ['projectConfig'],
        message: 'cannot be sent together with channelConfig: both name the config, send one of them',
      },
    ]);
  }
  const given = channelConfig ?? projectConfig;
  if (given === undefined) {
    return invalid([
      { path: ['channelConfig'], message: 'is required (the config; projectConfig is accepted as well)' },
    ]);
  }
  return valid({ plan, projectConfig: given });
}

/**
 * The body of POST projectConfig and of the legacy POST channelConfig: `{plan, channelConfig}` or
 * `{plan, projectConfig}`. The config itself is checked by the command, to answer schemaErrors with pointers.
 */
export const ApplyProjectConfigBody = z
  .strictObject({
    plan: z.boolean().default(false),
    channelConfig: config.optional(),
    projectConfig: config.optional(),
  })
  .describe(
    'The config under channelConfig (what existing clients send) or projectConfig (its synonym): exactly one ' +
      'of them; plan true shows the patches and changes nothing. A new config has labels of at most ' +
      `${MAX_CONFIG_LABEL_LENGTH} characters, language locales of at most ${MAX_LOCALE_LENGTH} and category ids ` +
      `of at most ${MAX_CATEGORY_ID_LENGTH} (else schemaErrors)`,
  )
  .transform(fromCheck(oneConfig));

/**
 * GET projectConfig (and the legacy GET channelConfig), supplement §8: the stored config, as the config schema
 * reads it, with the revision it is at as `$baseRevision`.
 */
export const projectConfigAnswer = ProjectConfigSchema.and(
  z.object({
    $baseRevision: z.number().int().describe('the revision; send it back with the edited config'),
  }),
);

/**
 * POST projectConfig (and the legacy POST channelConfig), supplement §8, both a 200: what the apply planned
 * or did, or, for an invalid config, its problems and nothing changed (`ok: false`: the vendor's
 * project-config CLI reads `schemaErrors` from the body of a 200 and lists them).
 */
export const applyProjectConfigAnswer = z.union([
  z.strictObject({
    ok: z.literal(true),
    plan: z.boolean().describe('true: the patches were only planned, nothing changed'),
    patches: z.array(
      z.strictObject({
        action: z.enum(['add', 'update', 'remove']),
        pointer: z.string().describe('JSON pointer into the config'),
        value: z.unknown().optional().describe('the new value (not for remove)'),
        valueBefore: z.unknown().optional().describe('the old value (not for add)'),
      }),
    ),
    revisionNumber: z.number().int().describe('the revision now (the current one when planned)'),
  }),
  z
    .strictObject({
      ok: z.literal(false),
      schemaErrors: z
        .array(
          z.strictObject({
            pointer: z.string().describe('JSON pointer into the config'),
            message: z.string(),
          }),
        )
        .min(1),
    })
    .describe('the config is invalid: nothing was planned or changed'),
]);
