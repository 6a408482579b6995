import type { Queryable } from '../db/pool';
import { mediaQueries } from '../db/queries/media';
import { AppError } from '../domain/errors';

/** supplement §9: the documented message of a revoked or invalid image (api-spec §3.2). */
export const REVOKED_IMAGE_MESSAGE = 'The requested image is revoked or marked as invalid';

/** serve-image's question to Postgres: may this project's image under this key be served? */
export function servedImageReads(db: Queryable) {
  return {
    /** Resolves when the key belongs to a servable entry of the project; 404 when to none, 403 when revoked. */
    async assertServable(projectId: number, key: string): Promise<{ mediaId: string }> {
      const entry = await mediaQueries(db).findByAssetKey(projectId, key);
      if (entry === null) throw AppError.notFound(`No image with the key '${key}'`);
      if (entry.revoked || entry.invalid) {
        throw new AppError(403, { name: 'Forbidden', message: REVOKED_IMAGE_MESSAGE });
      }
      return { mediaId: entry.id };
    },
  };
}
