import { z } from 'zod';

export const channelParams = z.object({ channelHandle: z.string().min(1) });

/** A channel as the legacy reads answer it (GET channels/{channelHandle}, the items of GET project's channels). */
export const channelAnswer = z
  .strictObject({
    channelId: z.number().int(),
    channelHandle: z.string(),
    label: z.string(),
    designName: z.string().nullable(),
    designVersion: z.string().nullable(),
    contentTypeHandles: z.array(z.string()),
  })
  .meta({ id: 'Channel' });
