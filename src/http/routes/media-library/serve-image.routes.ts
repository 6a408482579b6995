import type { Router } from 'express';
import { AppError } from '../../../domain/errors';
import { quoted } from '../../../domain/shown-input';
import { parseOrThrow } from '../../../domain/validation';
import { onlyIn } from '../../middleware/api-version';
import { requireScope } from '../../middleware/authenticate';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import { serveObject } from '../../serve-object';
import type { RouteDeps } from '../deps';
import { serveImageParams } from './serve-image.schema';

/**
 * Clients may keep a copy but must ask again before each use (a 304 is cheap): a revoked image then stops being
 * shown at once. `private`: the answer depends on the bearer token.
 */
const IMAGE_CACHE_CONTROL = 'private, no-cache';

/**
 * GET mediaLibrary/serve-image/{key} (api-spec §4.18, supplement §9; 2025-03 on, so every version): the stored
 * bytes of a project's image, streamed from the object store, in original dimensions. The key may contain
 * slashes. 403 when its entry is revoked or invalid, 404 when no entry of the project has it.
 */
export function serveImageRoutes(
  router: Router,
  { auth, reads, objects }: Pick<RouteDeps, 'auth' | 'reads' | 'objects'>,
): void {
  router.get(
    '/mediaLibrary/serve-image/*key',
    onlyIn({ from: '2025-03' }),
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const { key } = parseOrThrow(serveImageParams, req.params);
      parseQueryOrThrow(noQueryParams, req.query);
      await reads.servedImages.assertServable(req.auth.projectId, key);
      await serveObject(objects, key, req, res, {
        cacheControl: IMAGE_CACHE_CONTROL,
        notFound: () => AppError.notFound(`No image with the key ${quoted(key)}`),
      });
    },
  );
}
