import { z } from 'zod';

/** The answer of GET health (liveness). */
export const livenessAnswer = z.strictObject({ status: z.literal('ok') });

/** The answer of GET health/ready when both dependencies answer (else the 503 envelope). */
export const readinessAnswer = z.strictObject({
  status: z.literal('ok'),
  postgres: z.literal('ok'),
  elasticsearch: z.literal('ok'),
});
