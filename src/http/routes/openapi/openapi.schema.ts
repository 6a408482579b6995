import { z } from 'zod';

/**
 * GET openapi.json: an OpenAPI 3.1 document. Its envelope is pinned; what is inside the operations and
 * components is OpenAPI's own vocabulary, left open here.
 */
export const openApiAnswer = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string().describe('the API version') }),
  servers: z.array(z.looseObject({ url: z.string() })),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.looseObject({}),
});
