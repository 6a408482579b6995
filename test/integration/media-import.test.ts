import fsPromises from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, READ, tokenFor, WRITE } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';
import { noisePng, solidJpeg, startImageServer, type ImageServer } from '../helpers/image-server';
import { storeBackends, type StoreBackend } from '../helpers/object-stores';
import { mp4, webm } from '../helpers/video-bytes';

let png: Buffer;
let jpeg: Buffer;
let images: ImageServer;
/** A camera's MP4 (moov after the media data): 7245 ticks of 1/600 s, 640 x 360. */
const cameraMp4 = mp4({
  moovAtEnd: true,
  timescale: 600,
  duration: 7245,
  width: 640,
  height: 360,
  mdatBytes: 50_000,
});
/** A live recording's WebM (Segment and Cluster of unknown size): 3.5 s, 320 x 240. */
const recordedWebm = webm({ unknownSizes: true, duration: 3500, width: 320, height: 240 });

beforeAll(async () => {
  png = await noisePng(120, 80);
  jpeg = await solidJpeg(64, 48);
  images = await startImageServer({
    png,
    jpeg,
    others: {
      '/clips/interview.mp4': { type: 'video/mp4', body: cameraMp4 },
      '/clips/recording.webm': { type: 'video/webm', body: recordedWebm },
    },
  });
});
afterAll(() => images.close());

describe.each(storeBackends)(
  'POST import/mediaLibrary and mediaLibrary/uploads (%s store)',
  (_name, makeBackend) => {
    let backend: StoreBackend;
    let app: TestApp;
    let projectId: number;
    let api: ReturnType<typeof apiClient>;
    let token: string;
    const projectIds: number[] = [];

    beforeAll(async () => {
      backend = await makeBackend();
      app = await startTestApp({
        env: {
          ...backend.env,
          MEDIA_DOWNLOAD_ALLOW_PRIVATE: 'true',
          MEDIA_DOWNLOAD_TIMEOUT_MS: '1500',
          MEDIA_DOWNLOAD_MAX_REDIRECTS: '3',
          MEDIA_DOWNLOAD_MAX_BYTES: String(200 * 1024),
          MEDIA_UPLOAD_MAX_BYTES: String(200 * 1024),
          PUBLIC_BASE_URL: 'https://media.example',
        },
      });
      ({ projectId } = await createTestProject(app.ctx));
      projectIds.push(projectId);
      token = (await tokenFor(app.ctx, projectId, WRITE)).token;
      api = apiClient(app.url, token);
    });
    afterAll(async () => {
      await app.close();
      await backend.dispose();
    });

    /** Every object key the app's store holds that an entry or an upload of the project names. */
    async function namedKeys(): Promise<string[]> {
      // The projects of this store only: other test files share the database, not the store.
      const rows = await app.ctx.pool.query<{ key: string }>(
        `SELECT asset ->> 'key' AS key FROM media_entries WHERE asset IS NOT NULL AND project_id = ANY($1)
         UNION SELECT t.value -> 'asset' ->> 'key' FROM media_entries, jsonb_array_elements(translations) AS t
           WHERE project_id = ANY($1) AND t.value ? 'asset'
         UNION SELECT key FROM media_uploads WHERE project_id = ANY($1)`,
        [projectIds],
      );
      return rows.rows.map((row) => row.key).sort();
    }

    /** The objects in the store (the folder's files, the bucket's keys) are exactly those entries and uploads name. */
    async function expectNoOrphans(): Promise<void> {
      expect(await backend.keys()).toEqual(await namedKeys());
    }

    const upload = (body: Buffer, contentType: string | undefined, query = '') =>
      fetch(`${app.url}/api/2026-03/mediaLibrary/uploads${query}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          ...(contentType ? { 'content-type': contentType } : {}),
        },
        body,
      });

    it('when no token is sent, then 401; with only public-api:read, then 403', async () => {
      const body = {
        mediaLibraryEntries: [{ mediaType: 'image', asset: { url: `${images.url}/photo.png` } }],
      };
      expect((await apiClient(app.url).post('import/mediaLibrary', body)).status).toBe(401);
      const reader = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token);
      expect((await reader.post('import/mediaLibrary', body)).status).toBe(403);
      const uploaded = await fetch(`${app.url}/api/2026-03/mediaLibrary/uploads`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${(await tokenFor(app.ctx, projectId, READ)).token}`,
          'content-type': 'image/png',
        },
        body: png,
      });
      expect(uploaded.status).toBe(403);
    });

    it('when the body is not JSON or has no entries, then 415 or 400 for the whole request', async () => {
      const text = await api.post('import/mediaLibrary', 'x', { 'content-type': 'text/plain' });
      expect(text.status).toBe(415);
      const empty = await api.post('import/mediaLibrary', { mediaLibraryEntries: [] });
      expect(empty.body).toEqual(
        envelope(400, 'Bad Request', { mediaLibraryEntries: 'must have at least 1 item' }),
      );
      const unknown = await api.post('import/mediaLibrary', { entries: [] });
      expect(unknown.body.error_details).toMatchObject({
        entries: 'is not allowed',
        mediaLibraryEntries: 'is required',
      });
    });

    it('when an image is imported from a URL, then its facts come from the bytes and the bytes are stored', async () => {
      const response = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          {
            id: 'photo-1',
            mediaType: 'image',
            asset: { url: `${images.url}/photo.png` },
            metadata: { title: 'Noise' },
          },
        ],
      });
      expect(response.status).toBe(200);
      const [result] = response.body.results;
      expect(result).toEqual({
        ok: true,
        status: 200,
        id: 'photo-1',
        record: {
          id: 'photo-1',
          mediaType: 'image',
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          version: 1,
          metadata: { title: 'Noise' },
          asset: {
            key: expect.stringMatching(new RegExp(`^${projectId}/\\d{4}/\\d{2}/\\d{2}/[0-9a-f-]{36}\\.png$`)),
            filename: 'photo.png',
            // The server said text/plain: the bytes say PNG.
            mimeType: 'image/png',
            size: png.length,
            width: 120,
            height: 80,
            url: expect.stringMatching(
              /^https:\/\/media\.example\/api\/2026-03\/mediaLibrary\/serve-image\/\d+\//,
            ),
          },
          translations: [],
        },
      });
      const stored = await app.ctx.objects.get(result.record.asset.key);
      expect(stored?.info).toMatchObject({ size: png.length, contentType: 'image/png' });
      const chunks: Buffer[] = [];
      for await (const chunk of stored!.body) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(png)).toBe(true);
      const got = await api.get('mediaLibrary/photo-1');
      expect(got.body).toEqual(result.record);
      await expectNoOrphans();
    });

    it('when entries come without an id, then one is generated; a redirect chain within the limit is followed', async () => {
      const response = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          { mediaType: 'image', asset: { url: `${images.url}/photos/Sommer%20Bild.jpg` } },
          { mediaType: 'image', asset: { url: `${images.url}/redirect/2`, filename: '../../evil name.png' } },
        ],
      });
      expect(response.status).toBe(200);
      const [first, second] = response.body.results;
      expect(first).toMatchObject({
        ok: true,
        status: 200,
        record: { asset: { mimeType: 'image/jpeg', width: 64, height: 48, filename: 'Sommer-Bild.jpg' } },
      });
      expect(first.id).toMatch(/^[a-zA-Z0-9-]{1,32}$/);
      expect(second).toMatchObject({
        ok: true,
        record: { asset: { mimeType: 'image/png', filename: 'evil-name.png' } },
      });
      await expectNoOrphans();
    });

    it('when an id is taken or an entry is invalid, then that entry fails on its own, in request order', async () => {
      const response = await api.withVersion('2025-11').post('import/mediaLibrary', {
        mediaLibraryEntries: [
          { id: 'photo-1', mediaType: 'image', asset: { url: `${images.url}/photo.png` } },
          { id: 'bad id!', mediaType: 'sound', asset: {} },
          { id: 'fresh-1', mediaType: 'image', asset: { url: `${images.url}/photo.png` } },
          { id: 'fresh-1', mediaType: 'image', asset: { url: `${images.url}/photo.png` } },
          { externalId: 'x', mediaType: 'image', asset: { url: `${images.url}/photo.png` } },
          'not an object',
          { name: 'photo.png', mediaType: 'image', asset: { url: `${images.url}/photo.png` } },
          null,
        ],
      });
      expect(response.status).toBe(200);
      // Up to 2025-11 a bare array.
      expect(response.body).toEqual([
        {
          ok: false,
          status: 409,
          error: 'UniqueIdViolation',
          error_details: {
            name: 'UniqueIdViolation',
            message: "A media library entry with the id 'photo-1' already exists",
          },
        },
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          error_details: {
            name: 'ValidationError',
            id: 'must be a media library id: 1 to 32 letters, digits or hyphens',
            mediaType: "must be one of 'image', 'video', 'file'",
            'asset.url': 'is required: an http(s) URL to download, or uploadId of an upload',
          },
        },
        expect.objectContaining({ ok: true, status: 200, id: 'fresh-1' }),
        expect.objectContaining({ ok: false, status: 409, error: 'UniqueIdViolation' }),
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          error_details: { name: 'ValidationError', systemName: 'is required with externalId' },
        },
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          // Not the body: the sixth entry (it was keyed body).
          error_details: { name: 'ValidationError', 'mediaLibraryEntries.5': 'must be an object' },
        },
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          // An unknown key called name does not take the place of the error's own name.
          error_details: { name: 'ValidationError', message: 'name: is not allowed' },
        },
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          error_details: { name: 'ValidationError', 'mediaLibraryEntries.7': 'must be an object' },
        },
      ]);
      await expectNoOrphans();
    });

    it('when an entry names a known externalId and systemName, then it is updated and its old object deleted', async () => {
      const entry = { systemName: 'dam', externalId: 'asset-77', mediaType: 'image', metadata: { v: 1 } };
      const created = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [{ ...entry, asset: { url: `${images.url}/photo.png` } }],
      });
      const first = created.body.results[0];
      expect(first).toMatchObject({ ok: true, record: { version: 1, metadata: { v: 1 } } });
      const updated = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          { ...entry, metadata: { v: 2 }, asset: { url: `${images.url}/photos/Sommer%20Bild.jpg` } },
        ],
      });
      const second = updated.body.results[0];
      expect(second).toMatchObject({
        ok: true,
        id: first.id,
        record: { version: 2, metadata: { v: 2 }, asset: { mimeType: 'image/jpeg' } },
      });
      expect(second.record.createdAt).toBe(first.record.createdAt);
      expect(await app.ctx.objects.head(first.record.asset.key)).toBeNull();
      expect(await app.ctx.objects.head(second.record.asset.key)).not.toBeNull();
      const byExternal = await api.get('mediaLibrary?externalId=asset-77&systemName=dam');
      expect(byExternal.body).toEqual({ results: [second.record] });
      // Another id for the same external entry is refused.
      const clash = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [{ ...entry, id: 'other-id', asset: { url: `${images.url}/photo.png` } }],
      });
      expect(clash.body.results[0]).toMatchObject({ ok: false, status: 409, error: 'UniqueIdViolation' });
      await expectNoOrphans();
    });

    it('when one new externalId is imported several times at once, then one entry takes every import in turn, as one after another', async () => {
      // Each import looked the external id up before downloading, found nothing, and inserted: all but one
      // lost on the unique key and answered 409 "already exists", where a moment later they would update it.
      const entry = { systemName: 'dam', externalId: `raced-${Date.now()}`, mediaType: 'image' };
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          api.post('import/mediaLibrary', {
            mediaLibraryEntries: [
              { ...entry, metadata: { index }, asset: { url: `${images.url}/photo.png` } },
            ],
          }),
        ),
      );
      const results = answers.map((answer) => answer.body.results[0]);
      expect(results.map((result) => result.ok)).toEqual([true, true, true, true, true]);
      const ids = new Set(results.map((result) => result.id as string));
      expect(ids.size).toBe(1);
      const versions = results.map((result) => result.record.version as number).sort();
      expect(versions).toEqual([1, 2, 3, 4, 5]);
      await expectNoOrphans();
    });

    it.each([
      [
        'a text file',
        '/notes.txt',
        'the downloaded file is not an image in a format the library reads (JPEG, PNG, WebP, GIF, AVIF, TIFF)',
      ],
      ['a truncated image', '/truncated.png', 'the downloaded file is a truncated or corrupt PNG image'],
      [
        'a redirect loop',
        '/loop-a',
        expect.stringMatching(/^redirect loop: .*\/loop-a redirects back to itself$/),
      ],
      ['too many redirects', '/redirect/5', 'too many redirects (more than 3)'],
      ['a redirect to file://', '/to-file', 'the URL must be an http or https URL (file is not allowed)'],
      ['a server that never answers', '/hang', 'the download took longer than 1500 ms'],
      [
        'a body over the limit',
        '/unannounced-big',
        `the asset is larger than the limit of ${200 * 1024} bytes`,
      ],
      ['a 404', '/missing.png', expect.stringMatching(/^the server answered 404 for /)],
    ])(
      'when the URL gives %s, then that entry is a 400 naming asset.url and nothing is stored',
      async (_what, path, message) => {
        const before = await namedKeys();
        const response = await api.post('import/mediaLibrary', {
          mediaLibraryEntries: [{ mediaType: 'image', asset: { url: `${images.url}${path}` } }],
        });
        expect(response.status).toBe(200);
        expect(response.body.results).toEqual([
          {
            ok: false,
            status: 400,
            error: 'ValidationError',
            error_details: { name: 'ValidationError', 'asset.url': message },
          },
        ]);
        expect(await namedKeys()).toEqual(before);
        await expectNoOrphans();
      },
    );

    it('when the URL is file:// or ftp://, then it is refused before anything is fetched', async () => {
      const response = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          { mediaType: 'image', asset: { url: 'file:///etc/passwd' } },
          { mediaType: 'image', asset: { url: 'ftp://127.0.0.1/a.png' } },
        ],
      });
      expect(
        response.body.results.map(
          (r: { error_details: Record<string, string> }) => r.error_details['asset.url'],
        ),
      ).toEqual([
        'the URL must be an http or https URL (file is not allowed)',
        'the URL must be an http or https URL (ftp is not allowed)',
      ]);
    });

    it('when translations bring images of their own, then each is probed and stored, and goes when replaced', async () => {
      const created = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          {
            systemName: 'dam',
            externalId: 'localized',
            mediaType: 'image',
            asset: { url: `${images.url}/photo.png` },
            translations: [
              {
                locale: 'de',
                metadata: { title: 'Bild' },
                asset: { url: `${images.url}/photos/Sommer%20Bild.jpg` },
              },
              { locale: 'fr', metadata: { title: 'Image' } },
            ],
          },
        ],
      });
      const record = created.body.results[0].record;
      expect(record.translations).toEqual([
        {
          locale: 'de',
          metadata: { title: 'Bild' },
          asset: expect.objectContaining({
            mimeType: 'image/jpeg',
            width: 64,
            height: 48,
            url: expect.any(String),
          }),
        },
        { locale: 'fr', metadata: { title: 'Image' } },
      ]);
      const germanKey = record.translations[0].asset.key as string;
      expect(await app.ctx.objects.head(germanKey)).not.toBeNull();
      await expectNoOrphans();

      // A patch that drops the German translation drops its image, once committed.
      const patched = await api.patch(`mediaLibrary/${record.id as string}`, {
        patches: [
          { operation: 'setTranslations', translations: [{ locale: 'fr', metadata: { title: 'Image' } }] },
        ],
      });
      expect(patched.body.translations).toEqual([{ locale: 'fr', metadata: { title: 'Image' } }]);
      expect(await app.ctx.objects.head(germanKey)).toBeNull();
      await expectNoOrphans();
    });

    it('when a translation image is refused, then the entry is a 400 keyed by it and its other bytes are deleted', async () => {
      const before = await namedKeys();
      const response = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          {
            mediaType: 'image',
            asset: { url: `${images.url}/photo.png` },
            translations: [{ locale: 'de', metadata: {}, asset: { url: `${images.url}/truncated.png` } }],
          },
        ],
      });
      expect(response.body.results[0].error_details).toEqual({
        name: 'ValidationError',
        'translations.0.asset.url': 'the downloaded file is a truncated or corrupt PNG image',
      });
      expect(await namedKeys()).toEqual(before);
      await expectNoOrphans();
    });

    it('when a video or file entry is imported, then its type is the one its source declared', async () => {
      const response = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          { id: 'report', mediaType: 'file', asset: { url: `${images.url}/report.pdf` } },
        ],
      });
      expect(response.body.results[0]).toMatchObject({
        ok: true,
        record: { mediaType: 'file', asset: { mimeType: 'application/pdf', filename: 'report.pdf' } },
      });
      expect(response.body.results[0].record.asset.width).toBeUndefined();
    });

    it('when an MP4 or a WebM is uploaded, then the upload and the imported entry show its duration, width and height', async () => {
      for (const [bytes, type, facts] of [
        [cameraMp4, 'video/mp4', { duration: 12.075, width: 640, height: 360 }],
        [recordedWebm, 'video/webm', { duration: 3.5, width: 320, height: 240 }],
      ] as const) {
        const uploaded = await upload(bytes, type, '?filename=clip');
        expect(uploaded.status).toBe(201);
        const body = (await uploaded.json()) as Record<string, unknown>;
        expect(body).toEqual({
          uploadId: expect.any(String),
          filename: 'clip',
          mimeType: type,
          size: bytes.length,
          ...facts,
          expiresAt: expect.any(String),
        });
        const imported = await api.post('import/mediaLibrary', {
          mediaLibraryEntries: [{ mediaType: 'video', asset: { uploadId: body.uploadId } }],
        });
        expect(imported.body.results[0]).toMatchObject({ ok: true, record: { asset: facts } });
        const read = await api.get(`mediaLibrary/${imported.body.results[0].id}`);
        expect(read.status).toBe(200);
        expect(read.body.asset).toEqual({
          key: expect.any(String),
          filename: 'clip',
          mimeType: type,
          size: bytes.length,
          ...facts,
          url: expect.any(String),
        });
      }
      await expectNoOrphans();
    });

    it('when a video is imported from a URL, then its duration, width and height come from its header', async () => {
      const response = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          { id: 'interview', mediaType: 'video', asset: { url: `${images.url}/clips/interview.mp4` } },
          { id: 'recording', mediaType: 'video', asset: { url: `${images.url}/clips/recording.webm` } },
        ],
      });
      expect(response.body.results.map((result: { ok: boolean }) => result.ok)).toEqual([true, true]);
      expect((await api.get('mediaLibrary/interview')).body.asset).toMatchObject({
        mimeType: 'video/mp4',
        duration: 12.075,
        width: 640,
        height: 360,
      });
      expect((await api.get('mediaLibrary/recording')).body.asset).toMatchObject({
        mimeType: 'video/webm',
        duration: 3.5,
        width: 320,
        height: 240,
      });
    });

    it('when a video upload is cut before its header, then it is kept with no duration, width or height', async () => {
      const cut = cameraMp4.subarray(0, cameraMp4.length - 20);
      const uploaded = await upload(cut, 'video/mp4');
      expect(uploaded.status).toBe(201);
      const body = (await uploaded.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['expiresAt', 'filename', 'mimeType', 'size', 'uploadId']);
    });

    it('when the URL answers an empty body, then the entry is a 400 keyed by asset.url, as an empty upload is, and nothing is kept', async () => {
      const before = await namedKeys();
      const response = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          { id: 'empty-report', mediaType: 'file', asset: { url: `${images.url}/empty.pdf` } },
          {
            mediaType: 'image',
            asset: { url: `${images.url}/photo.png` },
            translations: [{ locale: 'de', metadata: {}, asset: { url: `${images.url}/empty.pdf` } }],
          },
        ],
      });
      expect(response.status).toBe(200);
      expect(response.body.results).toEqual([
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          error_details: { name: 'ValidationError', 'asset.url': 'the downloaded file is empty' },
        },
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          error_details: {
            name: 'ValidationError',
            'translations.0.asset.url': 'the downloaded file is empty',
          },
        },
      ]);
      expect((await api.get('mediaLibrary/empty-report')).status).toBe(404);
      expect(await namedKeys()).toEqual(before);
      await expectNoOrphans();
    });

    it('when an upload is named with nothing safe before its extension, then it is named upload.<type>, not the bare extension', async () => {
      const uploaded = await upload(png, 'image/png', `?filename=${encodeURIComponent('✓.png')}`);
      expect(uploaded.status).toBe(201);
      expect(((await uploaded.json()) as Record<string, unknown>).filename).toBe('upload.png');
    });

    it('when bytes are uploaded, then the upload answers what they are and an import names it once', async () => {
      const uploaded = await upload(png, 'image/png', '?filename=cover.png');
      expect(uploaded.status).toBe(201);
      const body = (await uploaded.json()) as Record<string, unknown>;
      expect(body).toEqual({
        uploadId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        filename: 'cover.png',
        mimeType: 'image/png',
        size: png.length,
        width: 120,
        height: 80,
        expiresAt: expect.any(String),
      });
      const imported = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [{ id: 'cover', mediaType: 'image', asset: { uploadId: body.uploadId } }],
      });
      expect(imported.body.results[0]).toMatchObject({
        ok: true,
        record: {
          id: 'cover',
          asset: { filename: 'cover.png', mimeType: 'image/png', width: 120, height: 80, size: png.length },
        },
      });
      const again = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [{ id: 'cover-2', mediaType: 'image', asset: { uploadId: body.uploadId } }],
      });
      expect(again.body.results[0]).toEqual({
        ok: false,
        status: 400,
        error: 'ValidationError',
        error_details: {
          name: 'ValidationError',
          'asset.uploadId': 'names no upload of this project (unknown, expired or already imported)',
        },
      });
      await expectNoOrphans();
    });

    it('when an upload is named after its expiresAt, then that entry is a 400, whether or not it was swept yet', async () => {
      const uploaded = (await (await upload(png, 'image/png')).json()) as {
        uploadId: string;
        expiresAt: string;
      };
      // A day and an hour later, before any other upload has swept it.
      await app.ctx.pool.query(
        `UPDATE media_uploads SET created_at = created_at - interval '25 hours' WHERE id = $1`,
        [uploaded.uploadId],
      );
      const late = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          { id: 'too-late', mediaType: 'image', asset: { uploadId: uploaded.uploadId } },
          {
            mediaType: 'image',
            asset: { url: `${images.url}/photo.png` },
            translations: [{ locale: 'de', metadata: {}, asset: { uploadId: uploaded.uploadId } }],
          },
        ],
      });
      expect(late.body.results).toEqual([
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          error_details: {
            name: 'ValidationError',
            'asset.uploadId': 'names no upload of this project (unknown, expired or already imported)',
          },
        },
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          error_details: {
            name: 'ValidationError',
            'translations.0.asset.uploadId':
              'names no upload of this project (unknown, expired or already imported)',
          },
        },
      ]);
      expect((await api.get('mediaLibrary/too-late')).status).toBe(404);
      // The next upload sweeps it, row and object; that one imports as usual.
      const next = (await (await upload(png, 'image/png')).json()) as { uploadId: string };
      const left = await app.ctx.pool.query(`SELECT 1 FROM media_uploads WHERE id = $1`, [uploaded.uploadId]);
      expect(left.rowCount).toBe(0);
      const onTime = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [{ id: 'on-time', mediaType: 'image', asset: { uploadId: next.uploadId } }],
      });
      expect(onTime.body.results[0]).toMatchObject({ ok: true, id: 'on-time' });
      await expectNoOrphans();
    });

    it('when an upload is too large, not an image, truncated or untyped, then 413, 400 or 415 and nothing is kept', async () => {
      const before = await namedKeys();
      const big = await upload(Buffer.alloc(300 * 1024, 1), 'image/png');
      expect(big.status).toBe(413);
      expect(await big.json()).toEqual(
        envelope(413, 'Payload Too Large', {
          name: 'PayloadTooLarge',
          message: `The upload is larger than the limit of ${200 * 1024} bytes (MEDIA_UPLOAD_MAX_BYTES)`,
        }),
      );
      // Sent chunked, without Content-Length: the limit is found while the bytes come.
      const chunked = await fetch(`${app.url}/api/2026-03/mediaLibrary/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
        body: new ReadableStream({
          start(controller) {
            for (let index = 0; index < 30; index += 1) controller.enqueue(new Uint8Array(10 * 1024));
            controller.close();
          },
        }),
        duplex: 'half',
      });
      expect(chunked.status).toBe(413);
      const text = await upload(Buffer.from('hello'), 'image/jpeg');
      expect(await text.json()).toEqual(
        envelope(400, 'Bad Request', {
          body: 'is not an image in a format the library reads (JPEG, PNG, WebP, GIF, AVIF, TIFF) (sent as image/jpeg)',
        }),
      );
      const cut = await upload(png.subarray(0, 600), 'image/png');
      expect(((await cut.json()) as { error_details: Record<string, string> }).error_details.body).toBe(
        'is a truncated or corrupt PNG image (sent as image/png)',
      );
      const untyped = await upload(png, undefined);
      expect(untyped.status).toBe(415);
      expect(await namedKeys()).toEqual(before);
      await expectNoOrphans();
    });

    it('when the client goes away in the middle of an upload, then it ends at once with nothing staged or stored', async () => {
      // The body was piped into the staging, and pipe() passes on an end, not a closed connection: the upload
      // waited for the rest for ever, its staging file open and left on disk.
      const staged: string[] = [];
      const realMkdtemp = fsPromises.mkdtemp.bind(fsPromises);
      const spy = jest.spyOn(fsPromises, 'mkdtemp').mockImplementation(async (prefix: string) => {
        const dir = await realMkdtemp(prefix);
        staged.push(dir);
        return dir;
      });
      try {
        const before = await namedKeys();
        const body = new PassThrough();
        body.write(Buffer.alloc(64 * 1024, 1));
        setTimeout(() => body.destroy(), 50);
        const outcome = await Promise.race([
          app.ctx.commands
            .uploadMedia(projectId, {
              body,
              contentType: 'application/octet-stream',
              contentLength: 128 * 1024,
              filename: 'cut.bin',
            })
            .then(
              () => 'stored',
              (error: unknown) => error,
            ),
          new Promise((resolve) => setTimeout(() => resolve('still waiting'), 5000)),
        ]);
        expect(outcome).toMatchObject({
          status: 400,
          details: { name: 'ValidationError', body: expect.stringContaining('ended before all its bytes') },
        });
        expect(staged).toHaveLength(1);
        await expect(fsPromises.access(staged[0]!)).rejects.toThrow(/ENOENT/);
        expect(await namedKeys()).toEqual(before);
        await expectNoOrphans();
      } finally {
        spy.mockRestore();
      }
    });

    it('when a file upload is named by an image entry, then that entry is a 400', async () => {
      const uploaded = await upload(Buffer.from('%PDF-1.4'), 'application/pdf');
      const { uploadId, mimeType } = (await uploaded.json()) as { uploadId: string; mimeType: string };
      expect(mimeType).toBe('application/pdf');
      const imported = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [{ mediaType: 'image', asset: { uploadId } }],
      });
      expect(imported.body.results[0].error_details).toEqual({
        name: 'ValidationError',
        'asset.uploadId': 'names an upload of application/pdf, which is not an image',
      });
    });

    it('when a video upload (which has a width and a height) is named by an image entry, then that entry is a 400', async () => {
      const uploaded = await upload(cameraMp4, 'video/mp4');
      const { uploadId, width } = (await uploaded.json()) as { uploadId: string; width: number };
      expect(width).toBe(640);
      const imported = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [{ mediaType: 'image', asset: { uploadId } }],
      });
      expect(imported.body.results[0].error_details).toEqual({
        name: 'ValidationError',
        'asset.uploadId': 'names an upload of video/mp4, which is not an image',
      });
    });

    it("when another project's token names an upload or an entry, then it is unknown to it", async () => {
      const uploaded = (await (await upload(png, 'image/png')).json()) as { uploadId: string };
      const other = await createTestProject(app.ctx);
      projectIds.push(other.projectId);
      const otherApi = apiClient(app.url, (await tokenFor(app.ctx, other.projectId, WRITE)).token);
      const imported = await otherApi.post('import/mediaLibrary', {
        mediaLibraryEntries: [{ id: 'photo-1', mediaType: 'image', asset: { uploadId: uploaded.uploadId } }],
      });
      expect(imported.body.results[0].error_details['asset.uploadId']).toBe(
        'names no upload of this project (unknown, expired or already imported)',
      );
      expect((await otherApi.get('mediaLibrary/photo-1')).status).toBe(404);
      expect((await otherApi.get('mediaLibrary?ids=photo-1')).body).toEqual({ results: [] });
    });
  },
);

describe('POST import/mediaLibrary without MEDIA_DOWNLOAD_ALLOW_PRIVATE', () => {
  let app: TestApp;
  let backend: StoreBackend;

  beforeAll(async () => {
    backend = await storeBackends[0]![1]();
    app = await startTestApp({ env: { ...backend.env } });
  });
  afterAll(async () => {
    await app.close();
    await backend.dispose();
  });

  it('when a URL points at a loopback or private address, then it is refused and never fetched', async () => {
    const { projectId } = await createTestProject(app.ctx);
    const api = apiClient(app.url, (await tokenFor(app.ctx, projectId, WRITE)).token);
    const hitsBefore = images.hits.get('/photo.png') ?? 0;
    const response = await api.post('import/mediaLibrary', {
      mediaLibraryEntries: [
        { mediaType: 'image', asset: { url: `${images.url}/photo.png` } },
        { mediaType: 'image', asset: { url: 'http://169.254.169.254/latest/meta-data' } },
        { mediaType: 'image', asset: { url: 'http://[::1]:9/a.png' } },
      ],
    });
    expect(
      response.body.results.map(
        (r: { error_details: Record<string, string> }) => r.error_details['asset.url'],
      ),
    ).toEqual([
      "host '127.0.0.1' resolves to 127.0.0.1, a private, loopback or link-local address, which downloads may not reach",
      "host '169.254.169.254' resolves to 169.254.169.254, a private, loopback or link-local address, which downloads may not reach",
      "host '::1' resolves to ::1, a private, loopback or link-local address, which downloads may not reach",
    ]);
    expect(images.hits.get('/photo.png') ?? 0).toBe(hitsBefore);
  });
});
