import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';
import { createTestProject, READ, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import { storeBackends, type StoreBackend } from '../helpers/object-stores';
import { mp4, webm } from '../helpers/video-bytes';

/**
 * `broadsheet media backfill-video`, run as an operator runs it (the compiled CLI, a process of its own) on
 * entries stored the way imports stored them before they read video headers: an asset with no duration, width
 * or height. The API then answers what the headers say.
 */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function backfill(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [CLI_SCRIPT, 'media', 'backfill-video', ...args],
      { env: { ...process.env, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const cameraMp4 = mp4({ timescale: 600, duration: 7245, width: 640, height: 360, moovAtEnd: true });
const recordedWebm = webm({ unknownSizes: true, duration: 3500, width: 320, height: 240 });
/** Bytes sent as an MP4 that are none: no header to read. */
const notAVideo = Buffer.from('this was sent as video/mp4 but is a text file\n'.repeat(20));

describe.each(storeBackends)('media backfill-video (%s)', (_name, makeBackend) => {
  let backend: StoreBackend;
  let app: TestApp;
  let projectId: number;
  let reader: ReturnType<typeof apiClient>;

  /** A media entry written as imports wrote it before they read video headers: bytes first, then the row. */
  async function storeOldEntry(entry: {
    id: string;
    mediaType: 'video' | 'file' | 'image';
    bytes: Buffer;
    mimeType: string;
    translations?: Array<{ locale: string; bytes: Buffer; mimeType: string }>;
  }): Promise<{ key: string; translationKeys: string[] }> {
    const asset = async (bytes: Buffer, mimeType: string) => {
      const key = `${projectId}/${entry.id}/${randomBytes(4).toString('hex')}/clip.${mimeType.split('/')[1]}`;
      await backend.store.put(key, bytes, { contentType: mimeType });
      return { key, filename: key.split('/').pop(), mimeType, size: bytes.length };
    };
    const own = await asset(entry.bytes, entry.mimeType);
    const translations = [];
    for (const translation of entry.translations ?? []) {
      translations.push({
        locale: translation.locale,
        metadata: {},
        asset: await asset(translation.bytes, translation.mimeType),
      });
    }
    await app.ctx.pool.query(
      `INSERT INTO media_entries (project_id, id, media_type, asset, translations)
       VALUES ($1, $2, $3, $4, $5)`,
      [projectId, entry.id, entry.mediaType, JSON.stringify(own), JSON.stringify(translations)],
    );
    return { key: own.key, translationKeys: translations.map((translation) => translation.asset.key) };
  }

  beforeAll(async () => {
    backend = await makeBackend();
    app = await startTestApp({ env: backend.env });
    ({ projectId } = await createTestProject(app.ctx));
    reader = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token);
  });
  afterAll(async () => {
    await app.close();
    await backend.dispose();
  });

  it('when old video entries are backfilled, then the API answers their duration, width and height; an unreadable one is reported, skipped, and left as it was', async () => {
    await storeOldEntry({
      id: 'interview',
      mediaType: 'video',
      bytes: cameraMp4,
      mimeType: 'video/mp4',
      translations: [{ locale: 'de', bytes: recordedWebm, mimeType: 'video/webm' }],
    });
    await storeOldEntry({ id: 'recording', mediaType: 'file', bytes: recordedWebm, mimeType: 'video/webm' });
    const broken = await storeOldEntry({
      id: 'broken',
      mediaType: 'video',
      bytes: notAVideo,
      mimeType: 'video/mp4',
    });
    // A sound kept as a file, in a format whose header is not read: nothing to fill, and nothing wrong.
    await storeOldEntry({ id: 'jingle', mediaType: 'file', bytes: notAVideo, mimeType: 'audio/mpeg' });
    const gone = await storeOldEntry({
      id: 'gone',
      mediaType: 'video',
      bytes: cameraMp4,
      mimeType: 'video/mp4',
    });
    await backend.store.delete(gone.key);
    const before = await reader.get('mediaLibrary/interview');
    expect(before.body.asset.duration).toBeUndefined();

    const run = await backfill(backend.env, '--project', String(projectId));

    expect(JSON.parse(run.stdout)).toEqual({ examined: 5, filled: 2, unchanged: 1, left: 0, skipped: 2 });
    // Its stderr is no terminal: the count is said in plain lines (the bar was drawn only on a terminal).
    expect(run.stderr).toMatch(/^backfill-video: 5\/5$/m);
    expect(run.stderr).not.toContain('\r');
    expect(run.stderr).toContain(
      `skipped project ${projectId} entry broken (${broken.key}): its header gives no duration, width or height`,
    );
    expect(run.stderr).toContain(
      `skipped project ${projectId} entry gone (${gone.key}): its object is not in the media store`,
    );
    expect(run.code).toBe(2);

    const interview = await reader.get('mediaLibrary/interview');
    expect(interview.status).toBe(200);
    expect(interview.body.asset).toMatchObject({
      mimeType: 'video/mp4',
      duration: 12.075,
      width: 640,
      height: 360,
    });
    expect(interview.body.translations[0].asset).toMatchObject({ duration: 3.5, width: 320, height: 240 });
    // The entry is the same entry: no new version, no new updatedAt.
    expect(interview.body.version).toBe(before.body.version);
    expect(interview.body.updatedAt).toBe(before.body.updatedAt);
    const recording = await reader.get('mediaLibrary/recording');
    expect(recording.body.asset).toMatchObject({ duration: 3.5, width: 320, height: 240 });
    const stillBroken = await reader.get('mediaLibrary/broken');
    expect(stillBroken.status).toBe(200);
    expect(stillBroken.body.asset).not.toHaveProperty('duration');
    expect(stillBroken.body.asset).not.toHaveProperty('width');

    // Run again: what was filled is not read again; the unreadable ones are reported again.
    const again = await backfill(backend.env, '--project', String(projectId));
    expect(JSON.parse(again.stdout)).toEqual({ examined: 3, filled: 0, unchanged: 1, left: 0, skipped: 2 });
    expect(again.code).toBe(2);
    await app.ctx.pool.query('DELETE FROM media_entries WHERE project_id = $1', [projectId]);
  });
});

describe('media backfill-video: dry runs, locks, usage', () => {
  let backend: StoreBackend;
  let app: TestApp;
  let projectId: number;
  let reader: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    backend = await storeBackends[0]![1]();
    app = await startTestApp({ env: backend.env });
    ({ projectId } = await createTestProject(app.ctx));
    reader = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token);
  });
  afterAll(async () => {
    await app.close();
    await backend.dispose();
  });

  async function storeOldVideo(id: string, bytes: Buffer): Promise<void> {
    const key = `${projectId}/${id}/${randomBytes(4).toString('hex')}/clip.mp4`;
    await backend.store.put(key, bytes, { contentType: 'video/mp4' });
    await app.ctx.pool.query(
      `INSERT INTO media_entries (project_id, id, media_type, asset) VALUES ($1, $2, 'video', $3)`,
      [
        projectId,
        id,
        JSON.stringify({ key, filename: 'clip.mp4', mimeType: 'video/mp4', size: bytes.length }),
      ],
    );
  }

  it('when --dry-run is given, then it reports what it would fill and writes nothing', async () => {
    await storeOldVideo('dry', cameraMp4);
    const run = await backfill(backend.env, '--project', String(projectId), '--dry-run');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ examined: 1, wouldFill: 1, unchanged: 0, left: 0, skipped: 0 });
    expect((await reader.get('mediaLibrary/dry')).body.asset).not.toHaveProperty('duration');
    const real = await backfill(backend.env, '--project', String(projectId));
    expect(real.code).toBe(0);
    expect((await reader.get('mediaLibrary/dry')).body.asset).toMatchObject({ duration: 12.075 });
  });

  it('when another transaction holds an entry, then the backfill does not wait for it: it leaves it for a re-run and exits 2', async () => {
    await storeOldVideo('held', cameraMp4);
    const holder = await app.ctx.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM media_entries WHERE project_id = $1 AND id = 'held' FOR UPDATE`, [
        projectId,
      ]);
      const run = await backfill(backend.env, '--project', String(projectId), '--batch-size', '1');
      expect(JSON.parse(run.stdout)).toEqual({ examined: 1, filled: 0, unchanged: 0, left: 1, skipped: 0 });
      expect(run.stderr).toContain(
        '1 entries changed or were in use while read, not written: run media backfill-video again',
      );
      expect(run.code).toBe(2);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    const again = await backfill(backend.env, '--project', String(projectId));
    expect(JSON.parse(again.stdout)).toMatchObject({ filled: 1, left: 0 });
    expect((await reader.get('mediaLibrary/held')).body.asset).toMatchObject({
      duration: 12.075,
      width: 640,
    });
  });

  it('when the media store cannot be reached, then it stops at once naming the store, exits 1, and writes nothing', async () => {
    await storeOldVideo('unreached', cameraMp4);
    // An S3 store on a port nothing listens on (the discard port): every request is refused.
    const closedPort = {
      MEDIA_S3_BUCKET: 'unreached',
      MEDIA_S3_ENDPOINT: 'http://127.0.0.1:9',
      MEDIA_S3_REGION: 'us-east-1',
      MEDIA_S3_ACCESS_KEY_ID: 'broadsheet-test',
      MEDIA_S3_SECRET_ACCESS_KEY: 'broadsheet-test-secret',
      MEDIA_S3_FORCE_PATH_STYLE: 'true',
    };
    const run = await backfill(closedPort, '--project', String(projectId));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('broadsheet: the object store is unavailable');
    expect(run.stderr).toContain('run media backfill-video again to resume');
    expect(run.stdout).toBe('');
    expect((await reader.get('mediaLibrary/unreached')).body.asset).not.toHaveProperty('duration');
    const fine = await backfill(backend.env, '--project', String(projectId));
    expect(fine.code).toBe(0);
    expect((await reader.get('mediaLibrary/unreached')).body.asset).toMatchObject({ duration: 12.075 });
  });

  it('when the batch size or the project is not one it can use, then it says so and exits 1', async () => {
    const zero = await backfill(backend.env, '--batch-size', '0');
    expect(zero.stderr).toContain("option '-b, --batch-size <n>' argument '0' is invalid");
    expect(zero.code).toBe(1);
    const unknown = await backfill(backend.env, '--project', 'no-such-project');
    expect(unknown.stderr).toContain("project 'no-such-project' does not exist");
    expect(unknown.code).toBe(1);
  });
});
