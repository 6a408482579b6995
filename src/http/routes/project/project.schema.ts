import { z } from 'zod';
import { channelAnswer } from '../channels/channels.schema';

/** The answer of the legacy GET project (v1 to 2025-05): the project and its channels. */
export const legacyProjectAnswer = z.strictObject({
  projectId: z.number().int(),
  name: z.string().describe('the project handle'),
  label: z.string(),
  defaultChannelId: z.number().int(),
  channels: z.array(channelAnswer),
});
