import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
} from '@aws-sdk/client-s3';
import { loadConfig } from '../../src/config';
import { LocalFolderStore } from '../../src/storage/local-folder-store';
import type { ObjectStore } from '../../src/storage/object-store';
import { S3Store } from '../../src/storage/s3-store';

/** One backend a test file runs against: its store, the env that makes the app use the same, and its cleanup. */
export interface StoreBackend {
  name: string;
  store: ObjectStore;
  /** MEDIA_* settings that point an app (startTestApp's env) at this same store. */
  env: Record<string, string>;
  /** Every key the backend holds, to check that nothing is left behind. */
  keys(): Promise<string[]>;
  dispose(): Promise<void>;
}

/** A fresh folder of the embedded store, removed by dispose. */
export async function localFolderBackend(): Promise<StoreBackend> {
  const dir = await mkdtemp(join(tmpdir(), 'broadsheet-media-'));
  return {
    name: 'local folder',
    store: new LocalFolderStore(dir),
    env: { MEDIA_STORAGE_DIR: dir },
    async keys() {
      const entries = await readdir(join(dir, 'objects'), { recursive: true, withFileTypes: true }).catch(
        () => [],
      );
      return entries
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name).slice(join(dir, 'objects').length + 1))
        .sort();
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * A fresh bucket on the run's S3-compatible server (s3mock, started by scripts/services.sh; S3MOCK_URL), through
 * the same config path as the app (loadConfig of the MEDIA_S3_* env); emptied and removed by dispose.
 */
export async function s3Backend(): Promise<StoreBackend> {
  const endpoint = process.env.S3MOCK_URL ?? 'http://127.0.0.1:9090';
  const bucket =
    `bs-${process.env.BROADSHEET_TEST_RUN ?? 'local'}-${randomBytes(4).toString('hex')}`.toLowerCase();
  const env = {
    MEDIA_S3_BUCKET: bucket,
    MEDIA_S3_ENDPOINT: endpoint,
    MEDIA_S3_REGION: 'us-east-1',
    MEDIA_S3_ACCESS_KEY_ID: 'broadsheet-test',
    MEDIA_S3_SECRET_ACCESS_KEY: 'broadsheet-test-secret',
    MEDIA_S3_FORCE_PATH_STYLE: 'true',
  };
  const storage = loadConfig(env).media.storage;
  if (storage.kind !== 's3') throw new Error('expected the S3 store');
  const store = new S3Store(storage);
  await store.client.send(new CreateBucketCommand({ Bucket: bucket }));
  const listKeys = async (): Promise<string[]> => {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await store.client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return keys.sort();
  };
  return {
    name: 's3',
    store,
    env,
    keys: listKeys,
    async dispose() {
      const keys = await listKeys();
      if (keys.length > 0) {
        await store.client.send(
          new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })) } }),
        );
      }
      await store.client.send(new DeleteBucketCommand({ Bucket: bucket }));
      store.close();
    },
  };
}

/** The backends a store-dependent test file runs against, for `describe.each(storeBackends)`. */
export const storeBackends: Array<[string, () => Promise<StoreBackend>]> = [
  ['local folder', localFolderBackend],
  ['s3 (s3mock)', s3Backend],
];
