import { z } from 'zod';

/** supplement §8: GET menus[/{channelHandle}] takes an optional `handle`. */
export const menusQuery = z.strictObject({
  handle: z
    .string()
    .min(1)
    .optional()
    .describe('one menu by its handle (404 when unknown); all menus without it'),
});

export const menusParams = z.object({ channelHandle: z.string().min(1).optional() });

/** One node of a menu as the API answers it; `nodes` nest up to the menu's maxDepth. */
export const menuNodeAnswer = z
  .strictObject({
    id: z.string(),
    label: z.string(),
    type: z.enum(['uri', 'path', 'document']),
    uri: z.string().optional().describe('type uri: an absolute http, https, mailto or tel URI'),
    path: z.string().optional().describe("type path: starts with '/'"),
    documentId: z
      .string()
      .optional()
      .describe('type document, and optionally type path: the document of the project it leads to'),
    get nodes(): z.ZodArray<typeof menuNodeAnswer> {
      return z.array(menuNodeAnswer);
    },
  })
  .meta({ id: 'MenuNode' });

/** A menu as GET menus answers it (a bare array of these in every version that has the route). */
export const menuAnswer = z.strictObject({
  handle: z.string(),
  label: z.string(),
  version: z.number().int().describe('grows with every change'),
  maxDepth: z.number().int().describe('levels below the top one (0: a flat menu)'),
  nodes: z.array(menuNodeAnswer),
});
