import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../src/context';
import type { ObjectStore } from '../../src/storage/object-store';

/**
 * A media entry whose asset bytes are in `store` under `key`, written the way the import stores them (bytes
 * first, then the row): for tests of the routes that read entries, independent of the import's own code.
 */
export async function storeImage(
  ctx: AppContext,
  store: ObjectStore,
  entry: {
    projectId: number;
    id?: string;
    key: string;
    bytes: Buffer;
    mimeType?: string;
    revoked?: boolean;
    invalid?: boolean;
    translations?: Array<{
      locale: string;
      metadata: Record<string, unknown>;
      asset?: Record<string, unknown>;
    }>;
  },
): Promise<{ id: string }> {
  const id = entry.id ?? `img-${randomBytes(6).toString('hex')}`;
  const mimeType = entry.mimeType ?? 'image/png';
  await store.put(entry.key, entry.bytes, { contentType: mimeType });
  await ctx.pool.query(
    `INSERT INTO media_entries (project_id, id, media_type, asset, translations, revoked, invalid)
     VALUES ($1, $2, 'image', $3, $4, $5, $6)`,
    [
      entry.projectId,
      id,
      JSON.stringify({
        key: entry.key,
        filename: entry.key.split('/').pop(),
        mimeType,
        size: entry.bytes.length,
      }),
      JSON.stringify(entry.translations ?? []),
      entry.revoked ?? false,
      entry.invalid ?? false,
    ],
  );
  return { id };
}
