import { z } from 'zod';

/** supplement §8: GET menus[/{channelHandle}] takes an optional `handle`. */
export const menusQuery = z.strictObject({
  handle: z.string().min(1).optional(),
});

export const menusParams = z.object({ channelHandle: z.string().min(1).optional() });
