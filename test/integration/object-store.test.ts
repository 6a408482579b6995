import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { createHash } from 'node:crypto';
import {
  InvalidObjectKeyError,
  ObjectSizeMismatchError,
  UnsatisfiableRangeError,
} from '../../src/storage/object-store';
import { LocalFolderStore } from '../../src/storage/local-folder-store';
import { RecentObjects } from '../../src/storage/recent-objects';
import { S3_PART_BYTES } from '../../src/storage/s3-store';
import { storeBackends, type StoreBackend } from '../helpers/object-stores';

async function bytesOf(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

describe.each(storeBackends)('object store: %s', (_name, makeBackend) => {
  let backend: StoreBackend;

  beforeAll(async () => {
    backend = await makeBackend();
  });

  afterAll(async () => {
    await backend.dispose();
  });

  it('when a buffer is put, then head and get answer its size, content type, a strong etag and the bytes', async () => {
    const bytes = Buffer.from('hello, broadsheet');
    const stored = await backend.store.put('1/m1/a/hello.txt', bytes, { contentType: 'text/plain' });
    expect(stored).toMatchObject({ key: '1/m1/a/hello.txt', size: bytes.length, contentType: 'text/plain' });
    expect(stored.etag).toMatch(/^"[^"]+"$/);
    expect(stored.lastModified).toBeInstanceOf(Date);

    const head = await backend.store.head('1/m1/a/hello.txt');
    expect(head).toMatchObject({ key: '1/m1/a/hello.txt', size: bytes.length, contentType: 'text/plain' });
    expect(head?.etag).toBe(stored.etag);

    const got = await backend.store.get('1/m1/a/hello.txt');
    expect(got?.info.etag).toBe(stored.etag);
    expect(await text(got!.body)).toBe('hello, broadsheet');
  });

  it('when getSmall is asked, then the same info and bytes as get, in memory up to the bound, else a stream', async () => {
    const bytes = Buffer.alloc(200 * 1024);
    for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32BE(i, i);
    const stored = await backend.store.put('1/small/a/img.bin', bytes, { contentType: 'image/png' });
    const asBytes = async (got: Awaited<ReturnType<StoreBackend['store']['getSmall']>>) =>
      got === null ? null : 'bytes' in got ? got.bytes : await bytesOf(got.body);

    const within = await backend.store.getSmall('1/small/a/img.bin', bytes.length);
    expect(within?.info).toMatchObject({ size: bytes.length, contentType: 'image/png', etag: stored.etag });
    expect((await asBytes(within))?.equals(bytes)).toBe(true);
    expect(within !== null && 'bytes' in within).toBe(true);

    const beyond = await backend.store.getSmall('1/small/a/img.bin', bytes.length - 1);
    expect(beyond !== null && 'body' in beyond).toBe(true);
    expect((await asBytes(beyond))?.equals(bytes)).toBe(true);

    expect(await backend.store.getSmall('1/small/none/img.bin', bytes.length)).toBeNull();
  });

  it('when a key has spaces, plus signs, brackets and non-ASCII letters, then get, getSmall and head find it', async () => {
    const key = "1/odd/a b+c/Ünïcödé (1)!'*~=&.png";
    const bytes = Buffer.from('odd key');
    await backend.store.put(key, bytes, { contentType: 'image/png' });
    expect(await text((await backend.store.get(key))!.body)).toBe('odd key');
    const small = await backend.store.getSmall(key, 1024);
    expect(small !== null && ('bytes' in small ? small.bytes : await bytesOf(small.body)).equals(bytes)).toBe(
      true,
    );
    expect(await backend.store.head(key)).toMatchObject({ key, size: bytes.length });
  });

  it('when small objects are read through RecentObjects, then they are kept in memory until put or deleted through it', async () => {
    const recent = new RecentObjects(backend.store, 1024 * 1024);
    const key = '1/recent/a/img.png';
    await recent.put(key, Buffer.from('first'), { contentType: 'image/png' });
    const asText = async (got: Awaited<ReturnType<RecentObjects['getSmall']>>) =>
      got === null ? null : 'bytes' in got ? got.bytes.toString() : await text(got.body);
    expect(await asText(await recent.getSmall(key, 1024))).toBe('first');
    // Gone from the store behind its back: still answered from memory (keys are never rewritten by the app).
    await backend.store.delete(key);
    expect(await asText(await recent.getSmall(key, 1024))).toBe('first');
    expect(await recent.head(key)).toMatchObject({ key, size: 5, contentType: 'image/png' });
    // A bound below its size, or a ranged read, asks the store.
    expect(await recent.getSmall(key, 4)).toBeNull();
    expect(await recent.get(key)).toBeNull();

    // A put through it replaces what it keeps; a delete through it forgets at once.
    await recent.put(key, Buffer.from('second'), { contentType: 'image/png' });
    expect(await asText(await recent.getSmall(key, 1024))).toBe('second');
    await recent.delete(key);
    expect(await recent.getSmall(key, 1024)).toBeNull();
    expect(await recent.head(key)).toBeNull();
  });

  it('when RecentObjects is full, then the least recently read objects leave memory first', async () => {
    const recent = new RecentObjects(backend.store, 3 * (1000 + 1024));
    for (const name of ['a', 'b', 'c', 'd']) {
      await backend.store.put(`1/full/${name}`, Buffer.alloc(1000, name), { contentType: 'image/png' });
      expect(await recent.getSmall(`1/full/${name}`, 1024)).not.toBeNull();
    }
    for (const name of ['a', 'b', 'c', 'd']) await backend.store.delete(`1/full/${name}`);
    // Room for three: `a` was pushed out, so only the store could answer it, and it no longer has it.
    expect(await recent.getSmall('1/full/a', 1024)).toBeNull();
    for (const name of ['b', 'c', 'd']) expect(await recent.getSmall(`1/full/${name}`, 1024)).not.toBeNull();
  });

  it('when a stream is put, then its bytes are stored whole, with or without an announced size', async () => {
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    bytes.write('start', 0);
    const chunks = () => Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]);
    const sized = await backend.store.put('1/m2/b/big.bin', chunks(), {
      contentType: 'application/octet-stream',
      size: bytes.length,
    });
    const unsized = await backend.store.put('1/m2/c/big.bin', chunks(), {
      contentType: 'application/octet-stream',
    });
    expect(sized.size).toBe(bytes.length);
    expect(unsized.size).toBe(bytes.length);
    expect(unsized.etag).toBe(sized.etag);
    const got = await backend.store.get('1/m2/c/big.bin');
    expect((await bytesOf(got!.body)).equals(bytes)).toBe(true);
  });

  it('when an unsized stream is longer than one upload part, then it is stored whole (S3: a multipart upload)', async () => {
    const bytes = Buffer.alloc(S3_PART_BYTES * 2 + 4321);
    for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32BE(i, i);
    const stored = await backend.store.put(
      '1/m3/a/huge.bin',
      Readable.from([
        bytes.subarray(0, 5),
        bytes.subarray(5, S3_PART_BYTES + 3),
        bytes.subarray(S3_PART_BYTES + 3),
      ]),
      { contentType: 'application/octet-stream' },
    );
    expect(stored.size).toBe(bytes.length);
    expect(stored.etag).toMatch(/^"[^"]+"$/);
    const got = await backend.store.get('1/m3/a/huge.bin');
    expect(got?.info).toMatchObject({
      size: bytes.length,
      contentType: 'application/octet-stream',
      etag: stored.etag,
    });
    expect((await bytesOf(got!.body)).equals(bytes)).toBe(true);
    await backend.store.delete('1/m3/a/huge.bin');
  });

  it('when the same bytes are put, then the etag is the same; other bytes, another etag', async () => {
    const a = await backend.store.put('1/e/1/x', Buffer.from('same'), { contentType: 'text/plain' });
    const b = await backend.store.put('1/e/2/x', Buffer.from('same'), { contentType: 'text/plain' });
    const c = await backend.store.put('1/e/3/x', Buffer.from('other'), { contentType: 'text/plain' });
    expect(b.etag).toBe(a.etag);
    expect(c.etag).not.toBe(a.etag);
  });

  it('when a range is asked, then exactly bytes start..end (inclusive) come back, the end clamped to the object', async () => {
    await backend.store.put('1/r/1/digits', Buffer.from('0123456789'), { contentType: 'text/plain' });
    const middle = await backend.store.get('1/r/1/digits', { start: 2, end: 5 });
    expect(middle?.info.size).toBe(10);
    expect(await text(middle!.body)).toBe('2345');
    const tail = await backend.store.get('1/r/1/digits', { start: 8, end: 1000 });
    expect(await text(tail!.body)).toBe('89');
    const last = await backend.store.get('1/r/1/digits', { start: 9, end: 9 });
    expect(await text(last!.body)).toBe('9');
    await expect(backend.store.get('1/r/1/digits', { start: 10, end: 12 })).rejects.toBeInstanceOf(
      UnsatisfiableRangeError,
    );
  });

  it('when a key was never put, then head and get answer null and delete is a no-op', async () => {
    expect(await backend.store.head('1/none/x/y.png')).toBeNull();
    expect(await backend.store.get('1/none/x/y.png')).toBeNull();
    await expect(backend.store.delete('1/none/x/y.png')).resolves.toBeUndefined();
  });

  it('when an object is deleted, then it is gone and a sibling stays', async () => {
    await backend.store.put('1/d/1/gone.txt', Buffer.from('gone'), { contentType: 'text/plain' });
    await backend.store.put('1/d/1/kept.txt', Buffer.from('kept'), { contentType: 'text/plain' });
    await backend.store.delete('1/d/1/gone.txt');
    expect(await backend.store.head('1/d/1/gone.txt')).toBeNull();
    expect(await backend.store.get('1/d/1/gone.txt')).toBeNull();
    expect(await text((await backend.store.get('1/d/1/kept.txt'))!.body)).toBe('kept');
  });

  it('when a key is put again, then the new bytes, type and etag replace the old', async () => {
    const first = await backend.store.put('1/o/1/x', Buffer.from('first'), { contentType: 'text/plain' });
    const second = await backend.store.put('1/o/1/x', Buffer.from('second!'), { contentType: 'image/png' });
    expect(second.etag).not.toBe(first.etag);
    const got = await backend.store.get('1/o/1/x');
    expect(got?.info).toMatchObject({ size: 7, contentType: 'image/png', etag: second.etag });
    expect(await text(got!.body)).toBe('second!');
  });

  it('when the stream has fewer or more bytes than announced, then put fails and nothing is stored', async () => {
    await expect(
      backend.store.put('1/s/1/short', Readable.from([Buffer.from('abc')]), {
        contentType: 'text/plain',
        size: 5,
      }),
    ).rejects.toBeInstanceOf(ObjectSizeMismatchError);
    await expect(
      backend.store.put('1/s/1/long', Buffer.from('abcdef'), { contentType: 'text/plain', size: 5 }),
    ).rejects.toBeInstanceOf(ObjectSizeMismatchError);
    expect(await backend.store.head('1/s/1/short')).toBeNull();
    expect(await backend.store.head('1/s/1/long')).toBeNull();
  });

  it.each([
    ['without', undefined],
    ['with', 64 * 1024],
  ])(
    'when the body stream fails midway (%s an announced size), then put rejects and nothing is stored',
    async (_with, size) => {
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(1024, 1));
          this.destroy(new Error('client went away'));
        },
      });
      await expect(
        backend.store.put('1/f/1/broken', failing, {
          contentType: 'image/png',
          ...(size === undefined ? {} : { size }),
        }),
      ).rejects.toThrow('client went away');
      expect(await backend.store.head('1/f/1/broken')).toBeNull();
    },
  );

  it('when a key climbs out or is otherwise invalid, then every operation refuses it', async () => {
    for (const key of ['../escape', '1/../../escape', '/abs', '1\\x', '1//x', '1/x\u0000']) {
      await expect(
        backend.store.put(key, Buffer.from('x'), { contentType: 'text/plain' }),
      ).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(backend.store.head(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(backend.store.get(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(backend.store.delete(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    }
  });
});

describe('local folder store', () => {
  it('when objects are put and deleted, then the folder keeps the bytes under their key, no temporary file stays, and emptied folders go', async () => {
    const [, makeBackend] = storeBackends[0]!;
    const backend = await makeBackend();
    try {
      const root = (backend.store as LocalFolderStore).root;
      const bytes = Buffer.from('plain bytes on disk');
      const stored = await backend.store.put('9/media/r1/file.txt', bytes, { contentType: 'text/plain' });
      expect(stored.etag).toBe(`"${createHash('sha256').update(bytes).digest('base64url')}"`);
      expect(await readdir(`${root}/objects/9/media/r1`)).toEqual(['file.txt']);
      await expect(
        backend.store.put('9/media/r1/bad', Buffer.from('x'), { contentType: 'text/plain', size: 2 }),
      ).rejects.toBeInstanceOf(ObjectSizeMismatchError);
      expect(await readdir(`${root}/tmp`)).toEqual([]);
      await backend.store.delete('9/media/r1/file.txt');
      expect(await readdir(`${root}/objects`)).toEqual([]);
      expect(await readdir(`${root}/meta`)).toEqual([]);
    } finally {
      await backend.dispose();
    }
  });

  it('when gets run while the same key is put again and again, then every read is one whole version with its own etag', async () => {
    const [, makeBackend] = storeBackends[0]!;
    const backend = await makeBackend();
    try {
      const versions = ['a', 'b', 'c', 'd'].map((letter) => Buffer.alloc(64 * 1024, letter));
      const etags = new Map<string, string>();
      for (const version of versions) {
        const stored = await backend.store.put('1/race/x', version, { contentType: 'text/plain' });
        etags.set(stored.etag, version.toString('latin1', 0, 1));
      }
      const writes = (async () => {
        for (let i = 0; i < 40; i += 1) {
          await backend.store.put('1/race/x', versions[i % versions.length]!, { contentType: 'text/plain' });
        }
      })();
      const reads = Array.from({ length: 40 }, async () => {
        const got = await backend.store.get('1/race/x');
        const body = await bytesOf(got!.body);
        const letter = body.toString('latin1', 0, 1);
        expect(body.equals(Buffer.alloc(64 * 1024, letter))).toBe(true);
        expect(etags.get(got!.info.etag)).toBe(letter);
      });
      await Promise.all([writes, ...reads]);
    } finally {
      await backend.dispose();
    }
  });
});
