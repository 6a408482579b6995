import type { ServedImageLookup } from '../db/served-image-cache';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';

/** supplement §9: the documented message of a revoked or invalid image (api-spec §3.2). */
export const REVOKED_IMAGE_MESSAGE = 'The requested image is revoked or marked as invalid';

/**
 * serve-image's question to Postgres: may this project's image under this key be served? Asked through the
 * process's ServedImageCache, which keeps servable answers until the project's entries change.
 */
export function servedImageReads(entries: ServedImageLookup) {
  return {
    /** Resolves when the key belongs to a servable entry of the project; 404 when to none, 403 when revoked. */
    async assertServable(projectId: number, key: string): Promise<{ mediaId: string }> {
      const entry = await entries.findByAssetKey(projectId, key);
      if (entry === null) throw AppError.notFound(`No image with the key ${quoted(key)}`);
      if (entry.revoked || entry.invalid) {
        throw new AppError(403, { name: 'Forbidden', message: REVOKED_IMAGE_MESSAGE });
      }
      return { mediaId: entry.id };
    },
  };
}
