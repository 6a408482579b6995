import { z } from 'zod';

/** `{designVersion}` of GET design/{designVersion}: the version as the design file names it. */
export const designParams = z.object({
  designVersion: z.string().min(1).describe('the version as the design names it, e.g. 1.0.0'),
});

/**
 * GET design and design/{designVersion} (supplement §8; designView in src/reads/designs.ts): every key
 * present, empty where the design has none. The design is the operator's file: a directive may carry keys
 * of its own, and defaultComponents, groups, metadata and assets are passed on as the design has them.
 */
export const designAnswer = z
  .strictObject({
    name: z.string(),
    version: z.string(),
    components: z.array(
      z.strictObject({
        name: z.string(),
        label: z.string().describe('the name when the design has no label'),
        html: z.string().describe('the component template; empty when the design has none'),
        directives: z.array(
          z.looseObject({
            name: z.string(),
            type: z.string().describe('editable, image, link, include, style, html or a type of the design'),
          }),
        ),
        containers: z.array(z.string()).optional(),
      }),
    ),
    defaultComponents: z.record(z.string(), z.unknown()),
    groups: z.array(z.unknown()),
    metadata: z.array(z.unknown()),
    assets: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'Design' });
