import { loadDemo } from '../../src/commands/load-demo';
import { startTestApp, isolatedEnv, type TestApp } from '../helpers/app';
import { READ, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

/** The demo project (`broadsheet demo`), in a database of its own: its handle `demo` is the same every run. */
describe('demo project', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: await isolatedEnv('demo') });
  });
  afterAll(() => app.close());

  it('when the demo is loaded, then its main menu points at real, published demo pages', async () => {
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

    // Loading the demo again changes nothing the menu shows, so its version stays.
    await loadDemo(app.ctx, { documents: 30, publicBaseUrl: app.url });
    expect((await api.get('menus?handle=main')).body).toEqual(response.body);
  });
});
