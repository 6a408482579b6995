import { z } from 'zod';

export const channelParams = z.object({ channelHandle: z.string().min(1) });
