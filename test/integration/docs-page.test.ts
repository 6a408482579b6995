import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * The browsable API reference, loaded as a reader would: Debian's Chromium, headless, renders Swagger UI from
 * the files the API serves (no CDN) on the version's own description, under the route's CSP.
 */
let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await app.close();
});

/**
 * The operation paths the page shows once rendered (a deprecated operation's path has a class of its own), those
 * it shows as deprecated, and what the browser complained about meanwhile.
 */
async function load(
  label: string,
): Promise<{ paths: string[]; deprecated: string[]; title: string; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('requestfailed', (request) => problems.push(`${request.url()} failed`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.url()} answered ${response.status()}`);
  });
  try {
    const response = await page.goto(`${app.url}/api/${label}/docs`);
    expect(response?.status()).toBe(200);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const pathsOf = async (selector: string) =>
      (
        await page
          .locator(selector)
          .evaluateAll((elements) =>
            elements.map((element) => element.getAttribute('data-path') ?? element.textContent ?? ''),
          )
      ).map((path) => path.replace(/\u200b/g, '').trim());
    const deprecated = await pathsOf('.opblock-summary-path__deprecated');
    const paths = await pathsOf('.opblock-summary-path, .opblock-summary-path__deprecated');
    const title = (await page.locator('.info .title').textContent()) ?? '';
    return { paths, deprecated, title, problems };
  } finally {
    await page.close();
  }
}

describe('GET /api/{version}/docs in a browser', () => {
  it('when 2026-03 is opened, then the page shows its routes and no legacy ones, with nothing blocked', async () => {
    const { paths, title, problems } = await load('2026-03');
    expect(title).toContain('Broadsheet API');
    expect(paths).toEqual(
      expect.arrayContaining([
        '/documents/latestPublications',
        '/publications/search',
        '/documents/{documentId}/commands',
        '/composition/{documentId}',
        '/docs',
      ]),
    );
    expect(paths).not.toContain('/menus');
    expect(problems).toEqual([]);
  });

  it('when v1 is opened, then the page shows the legacy routes that version has', async () => {
    const { paths, deprecated, problems } = await load('v1');
    expect(paths).toEqual(expect.arrayContaining(['/menus', '/channelConfig', '/legacy-planner/element']));
    // What another route replaces is shown as deprecated (api-spec §4.3, §9); menus have no successor.
    expect(deprecated).toEqual(expect.arrayContaining(['/channelConfig', '/legacy-planner/element']));
    expect(deprecated).not.toContain('/menus');
    expect(problems).toEqual([]);
  });

  it('when the page and its files are fetched, then they carry their own CSP and name no CDN', async () => {
    const page = await fetch(`${app.url}/api/2026-03/docs`);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(page.headers.get('content-security-policy')).toContain("style-src 'self' 'unsafe-inline'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const bundle = await fetch(`${app.url}/api/2026-03/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    const missing = await fetch(`${app.url}/api/2026-03/docs/index.html`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ status: 404, error: 'Not Found' });
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
  });
});
