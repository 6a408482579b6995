import { z } from 'zod';

/** The delivery status report of api-spec §2.8 with supplement §11's `aborted` and `userChoices`. */
export const addDeliveryStatusBody = z
  .strictObject({
    publicationId: z.number().int().positive(),
    deliveryHandle: z.string().trim().min(1).max(200),
    status: z.enum(['success', 'failed', 'in-progress', 'aborted']),
    message: z.string().max(10_000).optional(),
    reportId: z.string().min(1).optional(),
    userChoices: z
      .array(z.strictObject({ label: z.string().min(1), value: z.string().min(1) }))
      .max(20)
      .optional(),
  })
  .superRefine((body, ctx) => {
    if (body.userChoices !== undefined && body.status !== 'in-progress') {
      ctx.addIssue({
        code: 'custom',
        path: ['userChoices'],
        message: "is only allowed with status 'in-progress'",
      });
    }
  });

/** The stored report, as POST documents/{documentId}/addDeliveryStatus answers it. */
export const deliveryStatusAnswer = z.strictObject({
  reportId: z.string(),
  documentId: z.number().int(),
  publicationId: z.number().int(),
  deliveryHandle: z.string(),
  status: z.enum(['success', 'failed', 'in-progress', 'aborted']),
  message: z.string().optional(),
  userChoices: z.array(z.strictObject({ label: z.string(), value: z.string() })).optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
