import { z } from 'zod';

/** The files of the reference page (docs.routes.ts serves each; any other name is a 404). */
export const DOCS_ASSETS = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'docs.js',
  'favicon-32x32.png',
] as const;
export type DocsAsset = (typeof DOCS_ASSETS)[number];

/**
 * `{asset}` of GET docs/{asset}. Any name is read (an unknown one is the 404 that names the files there are,
 * as for any missing resource); the description lists the names that exist.
 */
export const docsAssetParams = z.object({
  asset: z.string().meta({ enum: [...DOCS_ASSETS], description: 'a file of the reference page' }),
});
