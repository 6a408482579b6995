import { z } from 'zod';
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
  .transform(fromCheck(oneConfig));
