import type { MediaStorageConfig } from '../config';
import { LocalFolderStore } from './local-folder-store';
import type { ObjectStore } from './object-store';
import { S3Store } from './s3-store';

/** A store and what releases its resources when the process stops. */
export interface OwnedObjectStore {
  store: ObjectStore;
  close(): void;
}

/** The process's one object store (src/context.ts calls this once), as config.media.storage says. */
export function createObjectStore(config: MediaStorageConfig): OwnedObjectStore {
  if (config.kind === 'local') return { store: new LocalFolderStore(config.dir), close: () => undefined };
  const store = new S3Store(config);
  return { store, close: () => store.close() };
}
