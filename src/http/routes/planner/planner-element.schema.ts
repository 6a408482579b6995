import { z } from 'zod';
import {
  checkElement,
  elementIdSchema,
  plannerElementSchema,
  plannerElementShape,
} from '../../../domain/planner-element';
import { documentIdParam, documentIdValue } from '../../query-params';

/** `{documentId}` of planner/element/{documentId}. */
export const elementDocumentParams = z.object({ documentId: documentIdParam });

/** POST planner/element: an element, and optionally the existing document to link it to. */
export const createElementBody = z
  .looseObject({ ...plannerElementShape, documentId: documentIdValue.optional() })
  .superRefine(checkElement);

/** PUT planner/element: the element, named by its `id`. */
export const updateElementBody = plannerElementSchema;

/** PUT planner/element/{documentId}: the element; its `id`, when sent, must be the linked one. */
export const updateLinkedElementBody = z
  .looseObject({ ...plannerElementShape, id: elementIdSchema.optional() })
  .superRefine(checkElement);

/** What POST, PUT planner/element and PUT planner/element/{documentId} answer: the linked document. */
export const elementAnswer = z.strictObject({
  id: z.number().int().positive().describe('the linked document'),
});
