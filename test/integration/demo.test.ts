import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DemoInterrupted, loadDemo } from '../../src/commands/load-demo';
import { startTestApp, isolatedEnv, type TestApp } from '../helpers/app';
import { CLI_SCRIPT, NODE } from '../helpers/compiled';
import { READ, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';
import { localFolderBackend, type StoreBackend } from '../helpers/object-stores';

/** The demo project (`broadsheet demo`), in a database of its own: its handle `demo` is the same every run. */
describe('demo project', () => {
  let app: TestApp;
  let store: StoreBackend;
  let env: Record<string, string>;
  beforeAll(async () => {
    // A store of its own: the demo's images must not land in the working copy's .data/media.
    store = await localFolderBackend();
    env = { ...(await isolatedEnv('demo')), ...store.env };
    app = await startTestApp({ env });
  });
  afterAll(async () => {
    await app.close();
    await store.dispose();
  });

  it('when the demo is loaded, then its main menu points at real, published demo pages and its lists at articles', async () => {
    const summary = await loadDemo(app.ctx, { documents: 30, publicBaseUrl: app.url });
    expect(summary).toMatchObject({ created: true, menus: 1 });
    const api = apiClient(app.url, (await tokenFor(app.ctx, summary.projectId, READ)).token, 'v1');
    const response = await api.get('menus?handle=main');
    expect(response.status).toBe(200);
    const [menu] = response.body;
    expect(menu).toMatchObject({ handle: 'main', label: 'Main', version: 1, maxDepth: 1 });
    expect(menu.nodes[0]).toMatchObject({
      label: 'Home',
      type: 'document',
      documentId: String(summary.homepageDocumentId),
    });

    const documentNodes: { label: string; documentId: string }[] = [];
    const walk = (nodes: { label: string; type: string; documentId?: string; nodes: never[] }[]) =>
      nodes.forEach((node) => {
        if (node.type === 'document') documentNodes.push({ label: node.label, documentId: node.documentId! });
        walk(node.nodes);
      });
    walk(menu.nodes);
    expect(documentNodes.length).toBeGreaterThan(1);
    for (const node of documentNodes) {
      const page = await api.get(`documents/${node.documentId}/latestPublication`);
      expect({
        label: node.label,
        status: page.status,
        documentType: page.body.systemdata?.documentType,
      }).toEqual({
        label: node.label,
        status: 200,
        documentType: 'page',
      });
    }
    expect(documentNodes.find((node) => node.label === 'News')).toBeDefined();

    // The demo's document lists hold published demo articles.
    const lists = await api.get('document-lists?limit=100');
    expect(lists.status).toBe(200);
    expect(lists.body.map((list: { name: string }) => list.name).sort()).toEqual([
      'Editor picks',
      'Front page',
      'Weekend reads',
    ]);
    for (const list of lists.body as { documents: { systemdata: { documentType: string } }[] }[]) {
      expect(list.documents.length).toBeGreaterThan(0);
      expect(new Set(list.documents.map((document) => document.systemdata.documentType))).toEqual(
        new Set(['article']),
      );
    }

    // Loading the demo again changes nothing the menu or the lists show, so versions and list ids stay.
    await loadDemo(app.ctx, { documents: 30, publicBaseUrl: app.url });
    expect((await api.get('menus?handle=main')).body).toEqual(response.body);
    const reloaded = await api.get('document-lists?limit=100');
    const shape = (body: { id: number; documents: { systemdata: { documentId: number } }[] }[]) =>
      body.map((list) => [list.id, list.documents.map((document) => document.systemdata.documentId)]);
    expect(shape(reloaded.body)).toEqual(shape(lists.body));
  });

  it("when the demo is loaded, then its articles' teaser images are media entries whose bytes are in the store", async () => {
    const summary = await loadDemo(app.ctx, { documents: 30, publicBaseUrl: app.url });
    expect(summary.media).toBe(24);
    const api = apiClient(app.url, (await tokenFor(app.ctx, summary.projectId, READ)).token);
    const article = await app.ctx.pool.query<{ id: number }>(
      `SELECT id FROM documents WHERE project_id = $1 AND content_type = 'article' ORDER BY id LIMIT 1`,
      [summary.projectId],
    );
    const { body: publication } = await api.get(`documents/${article.rows[0]!.id}/latestPublication`);
    const teaser = publication.metadata.teaserImage as { mediaId: string; url: string; width: number };
    const { body: entries } = await api.get(`mediaLibrary?ids=${teaser.mediaId}`);
    const [entry] = entries.results;
    expect(entry).toMatchObject({
      id: teaser.mediaId,
      mediaType: 'image',
      asset: { mimeType: 'image/png', width: 320, height: 180, url: teaser.url },
    });
    expect(teaser.width).toBe(320);
    expect(summary.sampleImageUrl).toMatch(
      new RegExp(`^${app.url}/api/2026-03/mediaLibrary/serve-image/${summary.projectId}/`),
    );
    const stored = await app.ctx.objects.head(entry.asset.key as string);
    expect(stored).toMatchObject({ contentType: 'image/png', size: entry.asset.size });
    // npm run demo prints this URL: it serves the image's bytes to a token of the project.
    const image = await fetch(summary.sampleImageUrl, {
      headers: { authorization: `Bearer ${(await tokenFor(app.ctx, summary.projectId, READ)).token}` },
    });
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await image.arrayBuffer())
        .subarray(1, 4)
        .toString('ascii'),
    ).toBe('PNG');
    // The entry's incoming references name the articles that use it.
    const incoming = await api.get(`mediaLibrary/${teaser.mediaId}/incomingDocumentReferences`);
    expect(incoming.body.total).toBeGreaterThan(0);
  });
  it('when broadsheet demo writes to a log file, not a terminal, then each phase says its count in plain lines, no carriage return', async () => {
    // It wrote the terminal's '\rarticles: 20/20   ' there, and log files filled with carriage returns.
    const { stdout, stderr } = await promisify(execFile)(NODE, [CLI_SCRIPT, 'demo', '--documents', '30'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
      timeout: 120_000,
    });
    expect(JSON.parse(stdout)).toMatchObject({ menus: 1 });
    expect(stderr).not.toContain('\r');
    for (const phase of ['authors', 'articles', 'pages']) {
      expect(stderr).toMatch(new RegExp(`^${phase}: ([1-9]\\d*)/\\1$`, 'm'));
    }
  }, 180_000);

  it('when the demo gets Ctrl-C while loading articles, then it stops with DemoInterrupted and leaves no import job started', async () => {
    // Killed by the signal, `broadsheet demo` left its import job 'started' for good.
    const pages = async () =>
      (
        await app.ctx.pool.query(
          "SELECT 1 FROM documents WHERE system_name = 'demo-generator' AND external_id LIKE 'page-%'",
        )
      ).rowCount;
    const pagesBefore = await pages();
    const stop = new AbortController();
    const loading = loadDemo(app.ctx, {
      documents: 5000,
      publicBaseUrl: app.url,
      signal: stop.signal,
      onProgress: (phase) => {
        if (phase === 'articles') stop.abort();
      },
    });
    await expect(loading).rejects.toThrow(new DemoInterrupted('interrupted while loading the articles'));
    const jobs = await app.ctx.pool.query<{ state: string }>(
      "SELECT state FROM import_jobs WHERE state NOT IN ('success', 'failed')",
    );
    expect(jobs.rows).toEqual([]);
    // Nothing after the articles started: the pages of the 5000-document demo are not there.
    expect(await pages()).toBe(pagesBefore);
  }, 180_000);
});
