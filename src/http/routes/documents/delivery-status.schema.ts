import { z } from 'zod';

/** The longest caption and value of one of a report's userChoices. */
const MAX_CHOICE_LABEL_LENGTH = 200;
const MAX_CHOICE_VALUE_LENGTH = 1_000;

/** The delivery status report of api-spec §2.8 with supplement §11's `aborted` and `userChoices`. */
export const addDeliveryStatusBody = z
  .strictObject({
    publicationId: z.number().int().positive(),
    deliveryHandle: z.string().trim().min(1).max(200),
    status: z.enum(['success', 'failed', 'in-progress', 'aborted']),
    message: z.string().max(10_000).optional(),
    reportId: z.string().min(1).optional(),
    // Bounded like the message: a choice is a button's caption and what it sends back, not a document.
    userChoices: z
      .array(
        z.strictObject({
          label: z.string().min(1).max(MAX_CHOICE_LABEL_LENGTH),
          value: z.string().min(1).max(MAX_CHOICE_VALUE_LENGTH),
        }),
      )
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
