import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument, republishDocument, unpublish } from '../helpers/documents';
import { createTestProject, READ, TEST_DESIGN, tokenFor, WRITE } from '../helpers/factories';
import { apiClient, envelope } from '../helpers/http';
import { noisePng } from '../helpers/image-server';
import { localFolderBackend, type StoreBackend } from '../helpers/object-stores';

describe('mediaLibrary entries, patch and incoming references', () => {
  let backend: StoreBackend;
  let app: TestApp;
  let projectId: number;
  let api: ReturnType<typeof apiClient>;
  let reader: ReturnType<typeof apiClient>;
  let other: ReturnType<typeof apiClient>;
  let otherProjectId: number;
  let otherWriteToken: string;
  let writeToken: string;
  let png: Buffer;

  /** An image entry imported the way a client would: the bytes uploaded, then the import naming them. */
  async function importImage(id: string, extra: Record<string, unknown> = {}, token = writeToken) {
    const uploaded = await fetch(`${app.url}/api/2026-03/mediaLibrary/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
      body: png,
    });
    const { uploadId } = (await uploaded.json()) as { uploadId: string };
    const response = await apiClient(app.url, token).post('import/mediaLibrary', {
      mediaLibraryEntries: [{ id, mediaType: 'image', asset: { uploadId }, ...extra }],
    });
    expect(response.body.results[0]).toMatchObject({ ok: true, id });
    return response.body.results[0].record as Record<string, unknown> & { asset: { key: string } };
  }

  beforeAll(async () => {
    backend = await localFolderBackend();
    app = await startTestApp({ env: backend.env });
    png = await noisePng(40, 30);
    ({ projectId } = await createTestProject(app.ctx));
    writeToken = (await tokenFor(app.ctx, projectId, WRITE)).token;
    api = apiClient(app.url, writeToken);
    reader = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token);
    otherProjectId = (await createTestProject(app.ctx)).projectId;
    otherWriteToken = (await tokenFor(app.ctx, otherProjectId, WRITE)).token;
    other = apiClient(app.url, otherWriteToken);
    await importImage('hero', {
      metadata: { title: 'Hero' },
      translations: [{ locale: 'de', metadata: { title: 'Held' } }],
    });
    await importImage('thumb');
    await importImage('gallery-a', { metadata: { related: { mediaId: 'hero' } } });
    await importImage('gallery-b', {
      metadata: { related: { $ref: 'mediaLibrary', reference: { id: 'hero' } }, cover: { mediaId: 'hero' } },
    });
  });
  afterAll(async () => {
    await app.close();
    await backend.dispose();
  });

  describe('GET mediaLibrary/{id} and mediaLibrary', () => {
    it('when no token is sent, then 401; a write-only token still needs public-api:read', async () => {
      expect((await apiClient(app.url).get('mediaLibrary/hero')).status).toBe(401);
      const writeOnly = apiClient(app.url, (await tokenFor(app.ctx, projectId, ['public-api:write'])).token);
      expect((await writeOnly.get('mediaLibrary/hero')).status).toBe(403);
      expect((await writeOnly.get('mediaLibrary?ids=hero')).status).toBe(403);
    });

    it('when the entry exists, then it has exactly the fields of api-spec §2.7', async () => {
      const response = await reader.get('mediaLibrary/hero');
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(
        ['asset', 'createdAt', 'id', 'mediaType', 'metadata', 'translations', 'updatedAt', 'version'].sort(),
      );
      expect(response.body).toMatchObject({
        id: 'hero',
        mediaType: 'image',
        version: 1,
        metadata: { title: 'Hero' },
        translations: [{ locale: 'de', metadata: { title: 'Held' } }],
        asset: { mimeType: 'image/png', width: 40, height: 30, size: png.length, filename: 'upload.png' },
      });
      // Without PUBLIC_BASE_URL the URL is the request's origin, in the request's version.
      expect(response.body.asset.url).toBe(
        `${app.url}/api/2026-03/mediaLibrary/serve-image/${response.body.asset.key as string}`,
      );
      const v1 = await reader.withVersion('v1').get('mediaLibrary/hero');
      expect(v1.body.asset.url).toContain('/api/v1/mediaLibrary/serve-image/');
    });

    it('when the id is unknown, malformed or of another project, then 404 or 400 naming it', async () => {
      expect((await reader.get('mediaLibrary/nope')).body).toEqual(
        envelope(404, 'Not Found', { name: 'NotFound', message: "Media library entry 'nope' not found" }),
      );
      expect((await other.get('mediaLibrary/hero')).status).toBe(404);
      const malformed = await reader.get(`mediaLibrary/${'x'.repeat(33)}`);
      expect(malformed.body).toEqual(
        envelope(400, 'Bad Request', {
          id: 'must be a media library id: 1 to 32 letters, digits or hyphens',
        }),
      );
      expect((await reader.get('mediaLibrary/hero?extra=1')).body.error_details).toMatchObject({
        extra: 'is not allowed',
      });
    });

    it('when ids come as a comma list, bracket array or repeated, then the entries come in that order', async () => {
      const comma = await reader.get('mediaLibrary?ids=thumb,nope,hero');
      expect(comma.body.results.map((entry: { id: string }) => entry.id)).toEqual(['thumb', 'hero']);
      const brackets = await reader.get('mediaLibrary?ids[0]=hero&ids[1]=thumb');
      expect(brackets.body.results.map((entry: { id: string }) => entry.id)).toEqual(['hero', 'thumb']);
      const encoded = await reader.get('mediaLibrary?ids%5B1%5D=hero&ids%5B0%5D=thumb');
      expect(encoded.body.results.map((entry: { id: string }) => entry.id)).toEqual(['thumb', 'hero']);
      const repeated = await reader.get('mediaLibrary?ids=hero&ids=gallery-a');
      expect(repeated.body.results.map((entry: { id: string }) => entry.id)).toEqual(['hero', 'gallery-a']);
      const many = Array.from(
        { length: 25 },
        (_, index) => `ids[${index}]=${index === 24 ? 'hero' : `x${index}`}`,
      );
      const past20 = await reader.get(`mediaLibrary?${many.join('&')}`);
      expect(past20.body.results.map((entry: { id: string }) => entry.id)).toEqual(['hero']);
    });

    it('up to 2025-11 the list is a bare array; from 2026-01 {results}', async () => {
      const bare = await reader.withVersion('2025-11').get('mediaLibrary?ids=hero');
      expect(Array.isArray(bare.body)).toBe(true);
      expect(bare.body[0].id).toBe('hero');
      expect((await reader.withVersion('2026-01').get('mediaLibrary?ids=hero')).body.results[0].id).toBe(
        'hero',
      );
    });

    it('when the query is wrong, then 400 names the parameter', async () => {
      expect((await reader.get('mediaLibrary')).body.error_details).toMatchObject({
        ids: 'is required (or externalId with systemName)',
      });
      expect((await reader.get('mediaLibrary?ids=a,,b')).body.error_details).toMatchObject({
        ids: 'must be a comma separated list of media ids without empty items',
      });
      expect((await reader.get('mediaLibrary?ids=..%2Fetc')).body.error_details).toMatchObject({
        ids: "'../etc' must be a media library id: 1 to 32 letters, digits or hyphens",
      });
      expect(
        (await reader.get('mediaLibrary?ids=a&externalId=b&systemName=c')).body.error_details,
      ).toMatchObject({
        ids: 'cannot be combined with externalId and systemName',
      });
      expect((await reader.get('mediaLibrary?systemName=dam')).body.error_details).toMatchObject({
        externalId: 'is required with systemName',
      });
      const tooMany = Array.from({ length: 101 }, (_, index) => `m${index}`).join(',');
      expect((await reader.get(`mediaLibrary?ids=${tooMany}`)).body.error_details).toMatchObject({
        ids: 'must list at most 100 ids',
      });
    });
  });

  describe('PATCH mediaLibrary/{id}', () => {
    it('when the token lacks public-api:write or names another project, then 403 or 404', async () => {
      const body = { patches: [{ operation: 'revokeAsset' }] };
      expect((await reader.patch('mediaLibrary/thumb', body)).status).toBe(403);
      expect((await other.patch('mediaLibrary/thumb', body)).status).toBe(404);
      expect((await api.patch('mediaLibrary/nope', body)).status).toBe(404);
    });

    it('when an entry is revoked with a note, then revoked again, then 409 and the note is kept', async () => {
      await importImage('revocable');
      const revoked = await api.patch('mediaLibrary/revocable', {
        patches: [{ operation: 'revokeAsset', note: 'rights expired' }],
      });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ id: 'revocable', version: 2 });
      // The entry shows nothing of the revocation (api-spec §2.7): the serve-image endpoint refuses its bytes.
      expect(revoked.body.revoked).toBeUndefined();
      const again = await api.patch('mediaLibrary/revocable', {
        patches: [{ operation: 'revokeAsset', note: 'another' }],
      });
      expect(again.body).toEqual(
        envelope(409, 'Conflict', {
          name: 'ConflictError',
          message: 'The asset of this media library entry is already revoked',
          patchIndex: 0,
        }),
      );
      const row = await app.ctx.pool.query(
        'SELECT revoked, revoke_note, version FROM media_entries WHERE project_id = $1 AND id = $2',
        [projectId, 'revocable'],
      );
      expect(row.rows[0]).toEqual({ revoked: true, revoke_note: 'rights expired', version: 2 });
      // Before 2026-01 revoking a revoked entry changes nothing, and is no error.
      const legacy = await api.withVersion('2025-11').patch('mediaLibrary/revocable', {
        patches: [{ operation: 'revokeAsset' }],
      });
      expect(legacy.status).toBe(200);
      const unrevoked = await api.patch('mediaLibrary/revocable', {
        patches: [{ operation: 'unrevokeAsset' }],
      });
      expect(unrevoked.status).toBe(200);
      const notRevoked = await api.patch('mediaLibrary/revocable', {
        patches: [{ operation: 'unrevokeAsset' }],
      });
      expect(notRevoked.body).toEqual(
        envelope(409, 'Conflict', {
          name: 'ConflictError',
          message: 'The asset of this media library entry is not revoked',
        }),
      );
    });

    /** The row as stored, with its tuple's transaction id: any UPDATE of the row, even to the same values, moves it. */
    const storedRow = async (id: string) =>
      (
        await app.ctx.pool.query(
          `SELECT xmin::text AS xmin, version, updated_at, revoked, revoke_note, metadata, translations
           FROM media_entries WHERE project_id = $1 AND id = $2`,
          [projectId, id],
        )
      ).rows[0] as Record<string, unknown>;

    it('when a revoked entry is revoked again before 2026-01, then 200 with the entry as it was, and nothing is written', async () => {
      await importImage('re-revoked', { metadata: { title: 'Kept' } });
      await api.patch('mediaLibrary/re-revoked', {
        patches: [{ operation: 'revokeAsset', note: 'rights expired' }],
      });
      for (const version of ['2025-03', '2025-11']) {
        const legacy = api.withVersion(version);
        const read = (await legacy.get('mediaLibrary/re-revoked')).body as Record<string, unknown>;
        const row = await storedRow('re-revoked');
        const again = await legacy.patch('mediaLibrary/re-revoked', {
          patches: [{ operation: 'revokeAsset' }],
        });
        expect([again.status, again.body]).toEqual([200, read]);
        expect(read).toMatchObject({ version: 2 });
        expect(await storedRow('re-revoked')).toEqual(row);
        expect(row).toMatchObject({ revoked: true, revoke_note: 'rights expired', version: 2 });
      }
    });

    it('when a batch leaves the entry as stored, then 200 with the entry as it was: no new version, updatedAt or write', async () => {
      await importImage('unchanged', {
        metadata: { title: 'Same', focus: { x: 1, y: 2 } },
        translations: [{ locale: 'de', metadata: { title: 'Gleich' } }],
      });
      const read = (await reader.get('mediaLibrary/unchanged')).body as Record<string, unknown> & {
        translations: unknown[];
      };
      const row = await storedRow('unchanged');
      const unchanged = await api.patch('mediaLibrary/unchanged', {
        version: read.version,
        patches: [
          // The metadata as read, its keys in another order (jsonb keeps none), the translations as read,
          // a property set to what it is and one removed that is not there.
          { operation: 'setMetadata', metadata: { focus: { y: 2, x: 1 }, title: 'Same' } },
          { operation: 'setTranslations', translations: read.translations },
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'Same' },
          { operation: 'setMetadataProperty', propertyName: 'credit', value: null },
          // A change undone within the batch is no change either.
          { operation: 'revokeAsset', note: 'brief' },
          { operation: 'unrevokeAsset' },
        ],
      });
      expect([unchanged.status, unchanged.body]).toEqual([200, read]);
      expect(await storedRow('unchanged')).toEqual(row);
      expect((await reader.get('mediaLibrary/unchanged')).body).toEqual(read);

      // A real change still writes: a new version and updatedAt, the batch's content.
      const changed = await api.patch('mediaLibrary/unchanged', {
        version: read.version,
        patches: [{ operation: 'setMetadataProperty', propertyName: 'credit', value: 'AP' }],
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toEqual({
        ...read,
        version: (read.version as number) + 1,
        updatedAt: expect.any(String),
        metadata: { title: 'Same', focus: { x: 1, y: 2 }, credit: 'AP' },
      });
      expect(Date.parse(changed.body.updatedAt)).toBeGreaterThan(Date.parse(read.updatedAt as string));
      expect(await storedRow('unchanged')).toMatchObject({ version: (row.version as number) + 1 });
      expect((await storedRow('unchanged')).xmin).not.toBe(row.xmin);
      // A property set to null is a change (GET shows it), not the property removed.
      const nulled = await api.patch('mediaLibrary/unchanged', {
        patches: [{ operation: 'setMetadata', metadata: { ...changed.body.metadata, credit: null } }],
      });
      expect(nulled.body).toMatchObject({
        version: (read.version as number) + 2,
        metadata: { title: 'Same', focus: { x: 1, y: 2 }, credit: null },
      });
    });

    it('when an imported entry is revoked and unrevoked, then serve-image refuses and then serves its bytes', async () => {
      const record = await importImage('served');
      const serve = () =>
        fetch(`${app.url}/api/2026-03/mediaLibrary/serve-image/${record.asset.key}`, {
          headers: { authorization: `Bearer ${writeToken}` },
        });
      const served = await serve();
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
      await api.patch('mediaLibrary/served', { patches: [{ operation: 'revokeAsset', note: 'takedown' }] });
      const refused = await serve();
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual(
        envelope(403, 'Forbidden', { message: 'The requested image is revoked or marked as invalid' }),
      );
      await api.patch('mediaLibrary/served', { patches: [{ operation: 'unrevokeAsset' }] });
      expect((await serve()).status).toBe(200);
    });

    it('when a batch fails at its second patch, then nothing of it is kept and the version stays', async () => {
      await importImage('atomic', { metadata: { title: 'Before' } });
      const response = await api.patch('mediaLibrary/atomic', {
        patches: [{ operation: 'setMetadata', metadata: { title: 'After' } }, { operation: 'unrevokeAsset' }],
      });
      expect(response.status).toBe(409);
      expect(response.body.error_details.patchIndex).toBe(1);
      const entry = await reader.get('mediaLibrary/atomic');
      expect(entry.body).toMatchObject({ version: 1, metadata: { title: 'Before' } });
    });

    it('when metadata and translations change, then the entry has them and a new version', async () => {
      await importImage('meta');
      const response = await api.patch('mediaLibrary/meta', {
        patches: [
          { operation: 'setMetadata', metadata: { title: 'New', credit: 'AP' } },
          { operation: 'setTranslations', translations: [{ locale: 'fr', metadata: { title: 'Nouveau' } }] },
        ],
      });
      expect(response.body).toMatchObject({
        version: 2,
        metadata: { title: 'New', credit: 'AP' },
        translations: [{ locale: 'fr', metadata: { title: 'Nouveau' } }],
      });
    });

    it('when a client sends setMetadataProperty (the vendor operation), then that property is set, and removed by null or no value', async () => {
      // It was a 400 "patches.0.operation: must be one of ...": the operation the vendor's reference documents
      // first, and the one a DAM sync or a transcoder sends to update one field.
      await importImage('one-prop', { metadata: { title: 'Old', credit: 'AP', caption: 'c' } });
      const set = await api.patch('mediaLibrary/one-prop', {
        patches: [
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'New' },
          { operation: 'setMetadataProperty', propertyName: 'focus', value: { x: 1, y: 2 } },
          { operation: 'setMetadataProperty', propertyName: 'credit', value: null },
          { operation: 'setMetadataProperty', propertyName: 'caption' },
        ],
      });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({ version: 2, metadata: { title: 'New', focus: { x: 1, y: 2 } } });
      expect(Object.keys(set.body.metadata).sort()).toEqual(['focus', 'title']);
      expect((await reader.get('mediaLibrary/one-prop')).body.metadata).toEqual(set.body.metadata);
      const legacy = await api.withVersion('2025-03').patch('mediaLibrary/one-prop', {
        patches: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'Older API' }],
      });
      expect(legacy.body).toMatchObject({ version: 3, metadata: { title: 'Older API' } });
      const reserved = await api.patch('mediaLibrary/one-prop', {
        patches: [{ operation: 'setMetadataProperty', propertyName: '__proto__', value: 1 }],
      });
      expect(reserved.body).toEqual(
        envelope(400, 'Bad Request', { 'patches.0.propertyName': 'is a reserved name' }),
      );
    });

    it('when a patch sends the version the client read, then it applies; another version is a 409 and nothing changes', async () => {
      // `version` was refused as an unknown key (400): the vendor's optimistic check on this patch, which its
      // clients send, as a number or as the string of its digits.
      await importImage('versioned', { metadata: { title: 'v1' } });
      const first = await api.patch('mediaLibrary/versioned', {
        version: 1,
        patches: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'v2' }],
      });
      expect(first.body).toMatchObject({ version: 2, metadata: { title: 'v2' } });
      const asText = await api.patch('mediaLibrary/versioned', {
        version: '2',
        patches: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'v3' }],
      });
      expect(asText.body).toMatchObject({ version: 3, metadata: { title: 'v3' } });
      const stale = await api.patch('mediaLibrary/versioned', {
        version: 2,
        patches: [{ operation: 'revokeAsset' }],
      });
      expect(stale.body).toEqual(
        envelope(409, 'Conflict', {
          name: 'Conflict',
          message: 'The media library entry you tried to update is outdated',
          expectedVersion: 2,
          currentVersion: 3,
        }),
      );
      const served = await fetch(`${app.url}/api/2026-03/mediaLibrary/serve-image/${first.body.asset.key}`, {
        headers: { authorization: `Bearer ${writeToken}` },
      });
      expect(served.status).toBe(200);
      expect((await reader.get('mediaLibrary/versioned')).body).toMatchObject({
        version: 3,
        metadata: { title: 'v3' },
      });
      const bad = await api.patch('mediaLibrary/versioned', {
        version: 'latest',
        patches: [{ operation: 'revokeAsset' }],
      });
      expect(bad.body).toEqual(
        envelope(400, 'Bad Request', {
          version: "must be the entry's version: a non-negative integer (or its digits as a string)",
        }),
      );
    });

    it('when If-Match names a tag, If-Unmodified-Since is before the last change or If-None-Match is `*`, then 412 and nothing changes', async () => {
      // These preconditions were ignored: a client guarding its write with the headers had it applied over a
      // newer entry (200). An entry has no strong entity tag (GET's weak ETag is of an answer), so only `*` holds.
      const created = await importImage('guarded', { metadata: { title: 'one' } });
      const body = { patches: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'no' }] };
      const etag = (await reader.get('mediaLibrary/guarded')).headers.get('etag')!;
      const updatedAt = new Date(created.updatedAt as string);
      const before = new Date(updatedAt.getTime() - 60_000).toUTCString();
      const refused: [Record<string, string>, Record<string, unknown>][] = [
        ...[etag, '"1"', `"x", ${etag}`].map((ifMatch): [Record<string, string>, Record<string, unknown>] => [
          { 'if-match': ifMatch },
          {
            name: 'PreconditionFailed',
            message:
              'If-Match cannot hold: a media library entry has no entity tag to match. Send the version the ' +
              "change is based on (the entry's version) in the body (`version`) instead",
            currentVersion: 1,
          },
        ]),
        [
          { 'if-unmodified-since': before },
          {
            name: 'PreconditionFailed',
            message:
              `The media library entry was changed after If-Unmodified-Since (${before}): its updatedAt is ` +
              `${updatedAt.toISOString()}. Read it again (GET mediaLibrary/{id}), or send the version the ` +
              'change is based on in the body (`version`)',
            currentVersion: 1,
            updatedAt: updatedAt.toISOString(),
          },
        ],
        ...['*', '"a", *'].map((ifNoneMatch): [Record<string, string>, Record<string, unknown>] => [
          { 'if-none-match': ifNoneMatch },
          {
            name: 'PreconditionFailed',
            message:
              'If-None-Match: * cannot hold: the media library entry exists (it asks to change only what does not)',
            currentVersion: 1,
          },
        ]),
      ];
      for (const [headers, details] of refused) {
        const response = await api.patch('mediaLibrary/guarded', body, headers);
        expect(response.body).toEqual(envelope(412, 'Precondition Failed', details));
      }
      expect((await reader.get('mediaLibrary/guarded')).body).toMatchObject({
        version: 1,
        metadata: { title: 'one' },
        updatedAt: created.updatedAt,
      });

      // An unknown entry stays a 404; `*` holds, as do a date that is no HTTP-date (ignored, RFC 9110 §13.1.4),
      // an If-Unmodified-Since beside an If-Match (which decides), a tag list in If-None-Match, and the updatedAt
      // a client read, cut to the second as an HTTP-date is.
      expect((await api.patch('mediaLibrary/no-such-entry', body, { 'if-match': '"1"' })).status).toBe(404);
      const held: Record<string, string>[] = [
        { 'if-match': '*' },
        { 'if-unmodified-since': 'yesterday' },
        { 'if-match': '*', 'if-unmodified-since': before },
        { 'if-none-match': 'W/"x"' },
      ];
      for (const headers of held) {
        expect((await api.patch('mediaLibrary/guarded', body, headers)).status).toBe(200);
      }
      const read = (await reader.get('mediaLibrary/guarded')).body as { updatedAt: string; version: number };
      const last = await api.patch(
        'mediaLibrary/guarded',
        { patches: [{ operation: 'setMetadataProperty', propertyName: 'title', value: 'yes' }] },
        { 'if-unmodified-since': new Date(read.updatedAt).toUTCString() },
      );
      expect(last.body).toMatchObject({ version: read.version + 1, metadata: { title: 'yes' } });
    });

    it('when translations name a locale twice, then 400 names the repeat and the entry is unchanged', async () => {
      await importImage('locales', { translations: [{ locale: 'de', metadata: { title: 'Eins' } }] });
      const response = await api.patch('mediaLibrary/locales', {
        patches: [
          {
            operation: 'setTranslations',
            translations: [
              { locale: 'de', metadata: { title: 'Eins' } },
              { locale: 'de', metadata: { title: 'Zwei' } },
            ],
          },
        ],
      });
      expect(response.body).toEqual(
        envelope(400, 'Bad Request', {
          'patches.0.translations.1.locale': "repeats 'de' of translations.0: one translation per locale",
        }),
      );
      expect((await reader.get('mediaLibrary/locales')).body).toMatchObject({
        version: 1,
        translations: [{ locale: 'de', metadata: { title: 'Eins' } }],
      });
    });

    it('when a client sends back the translations GET answered (with their images), then 200 and the entry is as it was', async () => {
      const uploaded = await fetch(`${app.url}/api/2026-03/mediaLibrary/uploads?filename=held.png`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writeToken}`, 'content-type': 'image/png' },
        body: png,
      });
      const { uploadId } = (await uploaded.json()) as { uploadId: string };
      await importImage('round-trip', {
        translations: [
          { locale: 'de', metadata: { title: 'Held' }, asset: { uploadId } },
          { locale: 'fr', metadata: { title: 'Héros' } },
        ],
      });
      const read = (await reader.get('mediaLibrary/round-trip')).body as Record<string, unknown> & {
        translations: { asset?: { key: string } }[];
        version: number;
      };
      const germanKey = read.translations[0]!.asset!.key;

      const response = await api.patch('mediaLibrary/round-trip', {
        version: read.version,
        patches: [{ operation: 'setTranslations', translations: read.translations }],
      });
      expect(response.status).toBe(200);
      // The translations as read change nothing, so nothing is written: the entry keeps its version and
      // updatedAt (it was given a new version for the same content).
      expect(response.body).toEqual(read);
      expect((await reader.get('mediaLibrary/round-trip')).body).toEqual(response.body);
      const served = await fetch(`${app.url}/api/2026-03/mediaLibrary/serve-image/${germanKey}`, {
        headers: { authorization: `Bearer ${writeToken}` },
      });
      expect(served.status).toBe(200);

      // An image GET did not answer for that locale is not a patch's to set: 400 says where images come
      // from, and nothing changes.
      const [german, french] = read.translations as Record<string, unknown>[];
      const { asset: germanAsset } = german as { asset: Record<string, unknown> };
      const refused = await api.patch('mediaLibrary/round-trip', {
        patches: [
          {
            operation: 'setTranslations',
            translations: [
              { ...german, asset: { ...germanAsset, filename: 'other.png' } },
              { ...french, asset: germanAsset },
            ],
          },
        ],
      });
      expect(refused.body).toEqual(
        envelope(400, 'Bad Request', {
          'patches.0.translations.0.asset.filename':
            "is not the stored image's ('held.png'): a patch keeps each locale's image as GET shows it " +
            '(send it unchanged, or no asset); POST import/mediaLibrary sets images (translations[].asset with url or uploadId)',
          'patches.0.translations.1.asset':
            "names an image, but locale 'fr' has none: a patch keeps each locale's image as GET shows it " +
            '(send it unchanged, or no asset); POST import/mediaLibrary sets images (translations[].asset with url or uploadId)',
        }),
      );
      expect((await reader.get('mediaLibrary/round-trip')).body).toEqual(response.body);
    });

    it('when a translation locale is longer than 64 characters, then 400 names it, in a patch and in an import, and nothing changes', async () => {
      // The locale had no limit: a 10 kB one was stored, and repeated whole in every answer.
      await importImage('long-locale', { translations: [{ locale: 'de', metadata: { title: 'Eins' } }] });
      const long = `de-${'x'.repeat(62)}`;
      const patched = await api.patch('mediaLibrary/long-locale', {
        patches: [{ operation: 'setTranslations', translations: [{ locale: long, metadata: {} }] }],
      });
      expect(patched.body).toEqual(
        envelope(400, 'Bad Request', {
          'patches.0.translations.0.locale': 'must be at most 64 characters long',
        }),
      );
      const imported = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          {
            id: 'long-locale-2',
            mediaType: 'image',
            asset: { url: 'https://example.com/a.png' },
            translations: [{ locale: long, metadata: {} }],
          },
        ],
      });
      expect(imported.body.results).toEqual([
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          error_details: {
            name: 'ValidationError',
            'translations.0.locale': 'must be at most 64 characters long',
          },
        },
      ]);
      expect((await reader.get('mediaLibrary/long-locale')).body).toMatchObject({
        version: 1,
        translations: [{ locale: 'de', metadata: { title: 'Eins' } }],
      });
      expect((await reader.get('mediaLibrary/long-locale-2')).status).toBe(404);
      const atLimit = await api.patch('mediaLibrary/long-locale', {
        patches: [
          { operation: 'setTranslations', translations: [{ locale: long.slice(0, 64), metadata: {} }] },
        ],
      });
      expect(atLimit.status).toBe(200);
    });

    it('when an import sends an entry as GET answers it, then its 400 names each read-only field and what to send instead', async () => {
      // Each read-only field was "is not allowed": a client copying an entry could not tell what to send.
      const { id: _id, ...read } = (await reader.get('mediaLibrary/hero')).body as Record<string, unknown>;
      const response = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [{ ...read, id: 'hero-copy' }],
      });
      expect(response.status).toBe(200);
      const entryField =
        'is read-only: the server sets it and GET answers it; an import sends id, systemName, externalId, ' +
        'mediaType, asset, metadata and translations';
      const assetField =
        "is read-only: GET answers it for the stored image, read from its bytes; an import's asset is url " +
        '(an http(s) URL to download) or uploadId (of POST mediaLibrary/uploads), and optionally filename';
      expect(response.body.results).toEqual([
        {
          ok: false,
          status: 400,
          error: 'ValidationError',
          error_details: {
            name: 'ValidationError',
            createdAt: entryField,
            updatedAt: entryField,
            version: entryField,
            'asset.key': assetField,
            'asset.mimeType': assetField,
            'asset.size': assetField,
            'asset.width': assetField,
            'asset.height': assetField,
          },
        },
      ]);
      expect((await reader.get('mediaLibrary/hero-copy')).status).toBe(404);
    });

    it('when preserveUpdatedAt is true (2026-03), then updatedAt stays; before 2026-03 it is a 400', async () => {
      const before = await importImage('preserved');
      const kept = await api.patch('mediaLibrary/preserved', {
        preserveUpdatedAt: true,
        patches: [{ operation: 'setMetadata', metadata: { title: 'quiet' } }],
      });
      expect(kept.body).toMatchObject({ version: 2, updatedAt: before.updatedAt });
      const moved = await api.patch('mediaLibrary/preserved', {
        patches: [{ operation: 'setMetadata', metadata: { title: 'loud' } }],
      });
      expect(moved.body.updatedAt).not.toBe(before.updatedAt);
      const early = await api.withVersion('2026-01').patch('mediaLibrary/preserved', {
        preserveUpdatedAt: true,
        patches: [{ operation: 'revokeAsset' }],
      });
      expect(early.body).toEqual(
        envelope(400, 'Bad Request', {
          preserveUpdatedAt: 'is not available in API version 2026-01 (from 2026-03)',
        }),
      );
    });

    it('when the body is invalid, then 400 names each path; not JSON, then 415', async () => {
      const response = await api.patch('mediaLibrary/thumb', {
        patches: [{ operation: 'revokeAsset', note: 'x'.repeat(201) }, { operation: 'explode' }],
      });
      expect(response.body.error_details).toMatchObject({
        'patches.0.note': 'must be at most 200 characters long',
        'patches.1.operation':
          "must be one of 'revokeAsset', 'unrevokeAsset', 'setMetadata', 'setTranslations', 'setMetadataProperty'",
      });
      const legacy = await api.withVersion('2025-11').patch('mediaLibrary/thumb', {
        patches: [{ operation: 'unrevokeAsset' }, { operation: 'revokeAsset', note: 'n' }],
      });
      expect(legacy.body.error_details).toMatchObject({
        'patches.0.operation':
          "must be one of 'revokeAsset', 'setMetadata', 'setTranslations', 'setMetadataProperty'",
        'patches.1.note': 'is not available in API version 2025-11 (from 2026-01)',
      });
      expect((await api.patch('mediaLibrary/thumb', { patches: [] })).body.error_details).toMatchObject({
        patches: 'must have at least 1 item',
      });
      expect((await api.patch('mediaLibrary/thumb', 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    });
  });

  describe('incoming references', () => {
    let documentA: number;
    let documentB: number;

    beforeAll(async () => {
      const imageOf = (mediaId: string) => ({
        id: `img-${mediaId}`,
        identifier: `${TEST_DESIGN.name}.image`,
        content: { image: { mediaId }, caption: 'c' },
      });
      documentA = (
        await createPublishedDocument(app.ctx, projectId, {
          metadata: { title: 'A', teaserImage: { mediaId: 'hero' } },
          content: [imageOf('hero')],
        })
      ).documentId;
      documentB = (
        await createPublishedDocument(app.ctx, projectId, {
          metadata: { title: 'B' },
          content: [imageOf('hero')],
        })
      ).documentId;
      await createPublishedDocument(app.ctx, projectId, {
        metadata: { title: 'C' },
        content: [imageOf('thumb')],
      });
    });

    it('when published documents use the entry, then each is listed with its references', async () => {
      const response = await reader.get('mediaLibrary/hero/incomingDocumentReferences');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        results: [
          {
            id: documentA,
            references: expect.arrayContaining([
              {
                componentId: 'img-hero',
                componentName: 'image',
                directiveName: 'image',
                id: 'hero',
                location: 'image-directive',
                // The entry's mediaType, as the vendor's reference answers it ("type": "image").
                type: 'image',
              },
              { id: 'hero', location: 'metadata', propertyName: 'teaserImage', type: 'image' },
            ]),
          },
          { id: documentB, references: [expect.objectContaining({ location: 'image-directive' })] },
        ],
        total: 2,
        // Two of at most 100: the last page, so no cursor to an empty one.
        cursor: '',
      });
      expect(response.body.results[0].references).toHaveLength(2);
      const bare = await reader.withVersion('2025-11').get('mediaLibrary/hero/incomingDocumentReferences');
      expect(bare.body).toEqual(response.body.results);
    });

    it('when pages are asked by limit, offset or the cursor, then they follow each other', async () => {
      const first = await reader.get('mediaLibrary/hero/incomingDocumentReferences?limit=1');
      expect(first.body).toMatchObject({ results: [{ id: documentA }], total: 2 });
      const second = await reader.get(
        `mediaLibrary/hero/incomingDocumentReferences?limit=1&after=${encodeURIComponent(first.body.cursor as string)}`,
      );
      expect(second.body).toMatchObject({ results: [{ id: documentB }], total: 2 });
      const third = await reader.get(
        `mediaLibrary/hero/incomingDocumentReferences?limit=1&after=${encodeURIComponent(second.body.cursor as string)}`,
      );
      expect(third.body).toEqual({ results: [], total: 2, cursor: '' });
      const byOffset = await reader.get('mediaLibrary/hero/incomingDocumentReferences?limit=1&offset=1');
      expect(byOffset.body.results).toEqual(second.body.results);
    });

    it("when a page is shorter than limit, then its cursor is '' (a string, never null), as on the documents incoming references and search", async () => {
      const first = await reader.get('mediaLibrary/hero/incomingDocumentReferences?limit=1');
      expect(first.body).toMatchObject({
        results: [{ id: documentA }],
        total: 2,
        cursor: expect.any(String),
      });
      const last = await reader.get(
        `mediaLibrary/hero/incomingDocumentReferences?limit=2&after=${encodeURIComponent(first.body.cursor as string)}`,
      );
      expect(last.body).toEqual({
        results: [{ id: documentB, references: expect.any(Array) }],
        total: 2,
        cursor: '',
      });
      expect(
        (await reader.get('mediaLibrary/hero/incomingDocumentReferences?limit=2&offset=1')).body,
      ).toEqual(last.body);
      // The same rule as documents/{id}/incomingDocumentReferences: a cursor only on a full page.
      const documents = await reader.get(`documents/${documentA}/incomingDocumentReferences?limit=100`);
      expect(documents.status).toBe(200);
      expect(documents.body.cursor).toBe('');
      expect((await reader.get('mediaLibrary/hero/incomingMediaReferences?limit=100')).body).toMatchObject({
        total: 2,
        cursor: '',
      });
      expect((await reader.get('mediaLibrary/hero/incomingMediaReferences?limit=2')).body).toMatchObject({
        total: 2,
        cursor: expect.any(String),
      });
    });

    it('when limit=0 is asked, then the total alone, as the documents incoming references answer it', async () => {
      const documents = await reader.get(`documents/${documentA}/incomingDocumentReferences?limit=0`);
      expect(documents.body).toEqual({ results: [], total: expect.any(Number), cursor: '' });
      for (const list of ['incomingDocumentReferences', 'incomingMediaReferences']) {
        const response = await reader.get(`mediaLibrary/hero/${list}?limit=0`);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ results: [], total: 2, cursor: '' });
      }
    });

    it('when a document is unpublished or republished without the image, then its references go with it', async () => {
      const doc = await createPublishedDocument(app.ctx, projectId, {
        content: [
          { id: 'x', identifier: `${TEST_DESIGN.name}.image`, content: { image: { mediaId: 'thumb' } } },
        ],
      });
      const ids = async () =>
        (await reader.get('mediaLibrary/thumb/incomingDocumentReferences')).body.results.map(
          (group: { id: number }) => group.id,
        );
      expect(await ids()).toContain(doc.documentId);
      await unpublish(app.ctx, projectId, doc.documentId);
      expect(await ids()).not.toContain(doc.documentId);
      const republished = await createPublishedDocument(app.ctx, projectId, {
        metadata: { teaserImage: { mediaId: 'thumb' } },
      });
      expect(await ids()).toContain(republished.documentId);
      await republishDocument(app.ctx, projectId, republished.documentId, {});
      expect(await ids()).not.toContain(republished.documentId);
    });

    it('when media entries refer to the entry in their metadata, then they are its incoming media references', async () => {
      const response = await reader.get('mediaLibrary/hero/incomingMediaReferences');
      expect(response.body).toEqual({
        results: [
          {
            id: 'gallery-a',
            references: [{ id: 'hero', location: 'metadata', propertyName: 'related', type: 'image' }],
          },
          {
            id: 'gallery-b',
            references: [
              { id: 'hero', location: 'metadata', propertyName: 'cover', type: 'image' },
              { id: 'hero', location: 'metadata', propertyName: 'related', type: 'image' },
            ],
          },
        ],
        total: 2,
        cursor: '',
      });
      // A patch of the metadata changes them in its transaction.
      await api.patch('mediaLibrary/gallery-a', { patches: [{ operation: 'setMetadata', metadata: {} }] });
      const after = await reader.get('mediaLibrary/hero/incomingMediaReferences');
      expect(after.body.results.map((group: { id: string }) => group.id)).toEqual(['gallery-b']);
      const page = await reader.get('mediaLibrary/hero/incomingMediaReferences?limit=1');
      const next = await reader.get(
        `mediaLibrary/hero/incomingMediaReferences?after=${encodeURIComponent(page.body.cursor as string)}`,
      );
      expect(next.body).toEqual({ results: [], total: 1, cursor: '' });
    });

    it('when metadata refers by an id no document or entry can have (thousands of characters), then the patch and the import store the entry, and its references by real ids are listed', async () => {
      // Both were a 500 (the import's after committing the entries before it): every reference went into the
      // index of stored target ids, and Postgres refuses a key of more than ~2.7 kB there.
      const long = randomBytes(3000).toString('base64');
      await importImage('poster');
      await importImage('long-ref-patched');
      const metadata = {
        odd: { $ref: 'document', reference: { id: long } },
        oddImage: { mediaId: long },
        cover: { mediaId: 'poster' },
      };
      const patched = await api.patch('mediaLibrary/long-ref-patched', {
        patches: [{ operation: 'setMetadata', metadata }],
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ version: 2, metadata });

      const uploaded = await fetch(`${app.url}/api/2026-03/mediaLibrary/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writeToken}`, 'content-type': 'image/png' },
        body: png,
      });
      const { uploadId } = (await uploaded.json()) as { uploadId: string };
      const imported = await api.post('import/mediaLibrary', {
        mediaLibraryEntries: [
          {
            id: 'long-ref-imported',
            mediaType: 'image',
            asset: { uploadId },
            metadata: { odd: { $ref: 'mediaLibrary', reference: { id: long } } },
            translations: [
              { locale: 'de', metadata: { cover: { $ref: 'mediaLibrary', reference: { id: 'poster' } } } },
            ],
          },
        ],
      });
      expect(imported.status).toBe(200);
      expect(imported.body.results).toEqual([
        expect.objectContaining({ ok: true, status: 200, id: 'long-ref-imported' }),
      ]);

      const incoming = await reader.get('mediaLibrary/poster/incomingMediaReferences');
      expect(incoming.body).toEqual({
        results: [
          {
            id: 'long-ref-imported',
            references: [{ id: 'poster', location: 'metadata', propertyName: 'cover', type: 'image' }],
          },
          {
            id: 'long-ref-patched',
            references: [{ id: 'poster', location: 'metadata', propertyName: 'cover', type: 'image' }],
          },
        ],
        total: 2,
        cursor: '',
      });
    });

    it("when the parameters are wrong or the entry is not the project's, then 400 or 404", async () => {
      expect(
        (await reader.get('mediaLibrary/hero/incomingDocumentReferences?limit=101')).body.error_details,
      ).toMatchObject({
        limit: 'must be <= 100',
      });
      expect(
        (await reader.get('mediaLibrary/hero/incomingDocumentReferences?after=forged')).body.error_details,
      ).toMatchObject({
        after: expect.stringContaining('invalid cursor'),
      });
      const mediaCursor = (await reader.get('mediaLibrary/hero/incomingMediaReferences?limit=1')).body
        .cursor as string;
      // A cursor of hero's list does not open another entry's list (it would page that one from hero's key).
      const onOther = await reader.get(
        `mediaLibrary/gallery-b/incomingMediaReferences?after=${encodeURIComponent(mediaCursor)}`,
      );
      expect(onOther.status).toBe(400);
      expect(onOther.body.error_details).toEqual({
        name: 'ValidationError',
        after:
          'invalid cursor: it was issued for another list (the endpoint and its media library entry must stay ' +
          'those of the first page); start again without after',
      });
      expect(
        (
          await reader.get(
            `mediaLibrary/hero/incomingMediaReferences?after=${encodeURIComponent(mediaCursor)}`,
          )
        ).status,
      ).toBe(200);
      // A cursor of the other list does not open here.
      expect(
        (
          await reader.get(
            `mediaLibrary/hero/incomingDocumentReferences?after=${encodeURIComponent(mediaCursor)}`,
          )
        ).status,
      ).toBe(400);
      expect(
        (
          await reader.get(
            `mediaLibrary/hero/incomingMediaReferences?offset=1&after=${encodeURIComponent(mediaCursor)}`,
          )
        ).body.error_details,
      ).toMatchObject({
        after: 'use after or offset, not both: a cursor already says where the page starts',
      });
      expect(
        (await reader.withVersion('2025-11').get('mediaLibrary/hero/incomingMediaReferences?after=x')).body
          .error_details,
      ).toMatchObject({
        after: 'is not available in API version 2025-11; cursors exist from 2026-01',
      });
      expect((await reader.get('mediaLibrary/nope/incomingDocumentReferences')).status).toBe(404);
      expect((await other.get('mediaLibrary/hero/incomingDocumentReferences')).status).toBe(404);
      expect((await other.get('mediaLibrary/hero/incomingMediaReferences')).status).toBe(404);
    });

    it("when a cursor of one project's entry is sent with another project's token for its entry of the same id, then 400 on after and nothing of either list", async () => {
      // Entry ids are the project's own: both projects have an entry 'shared', each pointed at by two entries
      // and two published documents. Project B's referrers come before project A's in id order, so a cursor of
      // A's list, taken up on B's, would page B's list from A's key and silently skip all of it.
      for (const [id, referrers, token, project] of [
        ['shared', ['zz-1', 'zz-2'], writeToken, projectId],
        ['shared', ['aa-1', 'aa-2'], otherWriteToken, otherProjectId],
      ] as const) {
        await importImage(id, {}, token);
        for (const referrer of referrers) {
          await importImage(referrer, { metadata: { related: { mediaId: id } } }, token);
        }
        await createPublishedDocument(app.ctx, project, { metadata: { teaserImage: { mediaId: id } } });
        await createPublishedDocument(app.ctx, project, { metadata: { teaserImage: { mediaId: id } } });
      }
      // (Project B's documents were created last: A's document key would page B's whole list, as A's.)
      const otherProject = 'invalid cursor: it was issued for another project; start again without after';
      for (const endpoint of ['incomingMediaReferences', 'incomingDocumentReferences']) {
        const first = await reader.get(`mediaLibrary/shared/${endpoint}?limit=1`);
        expect(first.body).toMatchObject({ total: 2, cursor: expect.any(String) });
        const cursor = encodeURIComponent(first.body.cursor as string);
        expect((await reader.get(`mediaLibrary/shared/${endpoint}?limit=1&after=${cursor}`)).status).toBe(
          200,
        );
        const replayed = await other.get(`mediaLibrary/shared/${endpoint}?limit=1&after=${cursor}`);
        expect(replayed.status).toBe(400);
        expect(replayed.body).toEqual(
          envelope(400, 'Bad Request', { name: 'ValidationError', after: otherProject }),
        );
        expect(replayed.text).not.toMatch(/zz-|aa-|results/);
        // Project B's own list, paged with its own cursor, is whole.
        const own = await other.get(`mediaLibrary/shared/${endpoint}?limit=1`);
        const next = await other.get(
          `mediaLibrary/shared/${endpoint}?limit=1&after=${encodeURIComponent(own.body.cursor as string)}`,
        );
        expect([...own.body.results, ...next.body.results]).toHaveLength(2);
      }
    });
  });
});
