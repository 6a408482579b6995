import type { MediaStorageConfig } from '../config';
import { LocalFolderStore } from './local-folder-store';
import type { ObjectStore } from './object-store';
import { RecentObjects } from './recent-objects';
import { S3Store } from './s3-store';

/** A store and what releases its resources when the process stops. */
export interface OwnedObjectStore {
  store: ObjectStore;
  close(): void;
}

/**
 * The process's one object store (src/context.ts calls this once), as config.media.storage says; with
 * `cacheBytes` (MEDIA_CACHE_MB), small objects it read whole are kept in that much memory (RecentObjects).
 */
export function createObjectStore(config: MediaStorageConfig, cacheBytes = 0): OwnedObjectStore {
  const cached = (store: ObjectStore) => (cacheBytes > 0 ? new RecentObjects(store, cacheBytes) : store);
  if (config.kind === 'local') {
    return { store: cached(new LocalFolderStore(config.dir)), close: () => undefined };
  }
  const store = new S3Store(config);
  return { store: cached(store), close: () => store.close() };
}
