import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Router } from 'express';
import helmet from 'helmet';
import { AppError } from '../../../domain/errors';
import { quoted } from '../../../domain/shown-input';
import { parseOrThrow } from '../../../domain/validation';
import { docsAssetParams, type DocsAsset } from './docs.schema';

/** Where swagger-ui-dist lives: the page's renderer is served from node_modules, never from a CDN. */
const SWAGGER_UI = dirname(require.resolve('swagger-ui-dist/package.json'));

/** Starts Swagger UI on the description of the page's own version (the page names it in `data-openapi`). */
const INITIALIZER = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** The page's files, by the name it asks for them with: each of DOCS_ASSETS (which the description lists). */
function loadAssets(): Map<string, { type: string; body: Buffer }> {
  const file = (name: string) => readFileSync(join(SWAGGER_UI, name));
  const byName: Record<DocsAsset, { type: string; body: Buffer }> = {
    'swagger-ui.css': { type: 'text/css', body: file('swagger-ui.css') },
    'swagger-ui-bundle.js': { type: 'text/javascript', body: file('swagger-ui-bundle.js') },
    'docs.js': { type: 'text/javascript', body: Buffer.from(INITIALIZER) },
    'favicon-32x32.png': { type: 'image/png', body: file('favicon-32x32.png') },
  };
  return new Map(Object.entries(byName));
}

/**
 * The page's Content-Security-Policy, on these routes only: Helmet's defaults (scripts and everything else from
 * this origin only), plus the inline styles and data: images Swagger UI renders with. The initializer is a
 * file of its own, so no inline script is needed.
 */
const docsCsp = helmet.contentSecurityPolicy({
  directives: {
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
  },
});

const page = (label: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Broadsheet API ${label} reference</title>
<link rel="icon" type="image/png" href="/api/${label}/docs/favicon-32x32.png">
<link rel="stylesheet" href="/api/${label}/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi="/api/${label}/openapi.json"></div>
<script src="/api/${label}/docs/swagger-ui-bundle.js"></script>
<script src="/api/${label}/docs/docs.js"></script>
</body>
</html>
`;

/**
 * `GET /api/{version}/docs`: the browsable API reference of that version (Swagger UI on its openapi.json), no
 * token needed; `GET /api/{version}/docs/{asset}` serves the page's files.
 */
export function docsRoutes(router: Router): void {
  const assets = loadAssets();
  router.get('/docs', docsCsp, (req, res) => {
    // The label was checked against the known versions (apiVersion middleware): safe in the page.
    res.type('html').send(page(req.apiVersion.label));
  });
  router.get('/docs/:asset', docsCsp, (req, res) => {
    const { asset: name } = parseOrThrow(docsAssetParams, req.params);
    const asset = assets.get(name);
    if (!asset) {
      throw new AppError(404, {
        name: 'NotFound',
        message: `The reference page has no file ${quoted(name)}: ${[...assets.keys()].join(', ')}`,
      });
    }
    res.set('Cache-Control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
}
