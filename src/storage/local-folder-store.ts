import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import {
  type FileHandle,
  mkdir,
  open,
  readFile,
  rename,
  rmdir,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { LRUCache } from 'lru-cache';
import { pipeline } from 'node:stream/promises';
import {
  checkObjectKey,
  clampRange,
  ObjectSizeMismatchError,
  type ObjectStore,
  type SmallObject,
  type StoredObjectInfo,
} from './object-store';

/** What the folder keeps beside each object's bytes. `ino` ties it to one write of them (see get). */
interface Sidecar {
  size: number;
  contentType: string;
  etag: string;
  lastModified: string;
  ino: number;
}

/** Which write of an object's bytes a sidecar describes: the data file's identity and its last change. */
interface DataFileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

const sameFile = (a: DataFileStamp, b: DataFileStamp) =>
  a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

/** Counts and hashes the bytes going through, so that put knows the size and the etag without a second read. */
class Digest extends Transform {
  readonly hash = createHash('sha256');
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

function strongEtag(hash: ReturnType<typeof createHash>): string {
  return `"${hash.digest('base64url')}"`;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

async function ignoreMissing(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** fsync of a directory, so that a rename into it survives a crash. */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The embedded store: the bytes of key `a/b/c.png` in `<root>/objects/a/b/c.png`, their content type, size
 * and etag (sha256 of the bytes, computed while writing) in `<root>/meta/a/b/c.png.json`. A put writes to
 * `<root>/tmp/` and renames into place (data first, then its sidecar), so no reader sees half an object; an
 * object exists once its sidecar does. Good for one API process or several on one machine; for several
 * machines, configure the S3 store.
 */
export class LocalFolderStore implements ObjectStore {
  /**
   * Sidecars of recently read objects with the stamp of the data file they were read beside: a get whose open
   * file has the same stamp skips reading the sidecar again (four file-system calls of the thread pool per
   * image served). Any put, here or in another process, makes a new file, so a new stamp, so a fresh read.
   */
  private readonly sidecars = new LRUCache<string, { stamp: DataFileStamp; sidecar: Sidecar }>({
    max: 10_000,
  });

  constructor(readonly root: string) {}

  private paths(key: string): { data: string; meta: string } {
    checkObjectKey(key);
    const segments = key.split('/');
    return {
      data: join(this.root, 'objects', ...segments),
      meta: `${join(this.root, 'meta', ...segments)}.json`,
    };
  }

  private temporaryPath(): string {
    return join(this.root, 'tmp', randomUUID());
  }

  async put(
    key: string,
    body: Buffer | NodeJS.ReadableStream,
    info: { contentType: string; size?: number },
  ): Promise<StoredObjectInfo> {
    const paths = this.paths(key);
    await mkdir(join(this.root, 'tmp'), { recursive: true });
    const dataTemp = this.temporaryPath();
    const metaTemp = this.temporaryPath();
    try {
      const digest = new Digest();
      if (Buffer.isBuffer(body)) {
        digest.hash.update(body);
        digest.bytes = body.length;
        await writeFile(dataTemp, body, { flush: true });
      } else {
        await pipeline(body, digest, createWriteStream(dataTemp, { flush: true }));
      }
      if (info.size !== undefined && info.size !== digest.bytes) {
        throw new ObjectSizeMismatchError(info.size, digest.bytes);
      }
      const { ino } = await stat(dataTemp);
      const stored: StoredObjectInfo = {
        key,
        size: digest.bytes,
        contentType: info.contentType,
        etag: strongEtag(digest.hash),
        lastModified: new Date(),
      };
      const sidecar: Sidecar = {
        size: stored.size,
        contentType: stored.contentType,
        etag: stored.etag,
        lastModified: stored.lastModified.toISOString(),
        ino,
      };
      await writeFile(metaTemp, JSON.stringify(sidecar), { flush: true });
      await this.moveInto(dataTemp, paths.data);
      await this.moveInto(metaTemp, paths.meta);
      return stored;
    } finally {
      await ignoreMissing(unlink(dataTemp));
      await ignoreMissing(unlink(metaTemp));
    }
  }

  /** rename into a folder made on demand; again if a concurrent delete pruned the folder in between. */
  private async moveInto(from: string, to: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      await mkdir(dirname(to), { recursive: true });
      try {
        await rename(from, to);
        await syncDirectory(dirname(to));
        return;
      } catch (error) {
        if (!isMissing(error) || attempt === 3) throw error;
      }
    }
  }

  private async readSidecar(path: string): Promise<Sidecar | null> {
    try {
      return JSON.parse(await readFile(path, 'utf8')) as Sidecar;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  private static info(key: string, sidecar: Sidecar): StoredObjectInfo {
    return {
      key,
      size: sidecar.size,
      contentType: sidecar.contentType,
      etag: sidecar.etag,
      lastModified: new Date(sidecar.lastModified),
    };
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    const sidecar = await this.readSidecar(this.paths(key).meta);
    return sidecar === null ? null : LocalFolderStore.info(key, sidecar);
  }

  async get(
    key: string,
    range?: { start: number; end: number },
  ): Promise<{ info: StoredObjectInfo; body: NodeJS.ReadableStream } | null> {
    const opened = await this.openCurrent(key);
    if (opened === null) return null;
    const { handle, info } = opened;
    try {
      const bounds = range === undefined ? undefined : clampRange(range, info.size);
      return { info, body: handle.createReadStream(bounds === undefined ? {} : bounds) };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  async getSmall(key: string, maxBytes: number): Promise<SmallObject | null> {
    const opened = await this.openCurrent(key);
    if (opened === null) return null;
    const { handle, info } = opened;
    if (info.size > maxBytes) return { info, body: handle.createReadStream({}) };
    try {
      // One read of the size the open file has (a put renames a new file in; it never rewrites this one).
      const bytes = Buffer.allocUnsafe(info.size);
      let filled = 0;
      while (filled < info.size) {
        const { bytesRead } = await handle.read(bytes, filled, info.size - filled, filled);
        if (bytesRead === 0)
          throw new Error(`object ${key}: its file ended after ${filled} of ${info.size} bytes`);
        filled += bytesRead;
      }
      return { info, bytes };
    } finally {
      await handle.close();
    }
  }

  /**
   * The object's data file, opened, with the info of its sidecar; null for an unknown key. The file opened and
   * the sidecar read must describe the same write: a put of the same key in between (data renamed, sidecar not
   * yet) shows as another inode, and a second look finds them in step.
   */
  private async openCurrent(key: string): Promise<{ handle: FileHandle; info: StoredObjectInfo } | null> {
    const paths = this.paths(key);
    for (let attempt = 1; ; attempt += 1) {
      let handle;
      try {
        handle = await open(paths.data, 'r');
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      try {
        const stats = await handle.stat();
        const stamp = { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
        const cached = this.sidecars.get(key);
        let sidecar = cached !== undefined && sameFile(cached.stamp, stamp) ? cached.sidecar : undefined;
        if (sidecar === undefined) {
          const read = await this.readSidecar(paths.meta);
          if (read === null) {
            await handle.close();
            return null;
          }
          if (read.ino !== stamp.ino) {
            await handle.close();
            if (attempt === 5) throw new Error(`object ${key}: its bytes and its sidecar disagree`);
            await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
            continue;
          }
          sidecar = read;
          this.sidecars.set(key, { stamp, sidecar });
        }
        return { handle, info: LocalFolderStore.info(key, sidecar) };
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
    }
  }

  async delete(key: string): Promise<void> {
    const paths = this.paths(key);
    this.sidecars.delete(key);
    // Sidecar first: the object is gone the moment it is, even if the bytes outlive a crash.
    await ignoreMissing(unlink(paths.meta));
    await ignoreMissing(unlink(paths.data));
    await this.pruneEmptyFolders(dirname(paths.meta), join(this.root, 'meta'));
    await this.pruneEmptyFolders(dirname(paths.data), join(this.root, 'objects'));
  }

  private async pruneEmptyFolders(from: string, top: string): Promise<void> {
    for (let dir = from; dir.startsWith(`${top}/`); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        return; // not empty (or already gone): the folders above it are not empty either
      }
    }
  }
}
