import express from 'express';
import request from 'supertest';
import { cursorCodec } from '../../src/domain/search-cursor';
import { weakEtag } from '../../src/http/etag';
import { answerConditionalRequestsAtOrigin } from '../../src/http/freshness';
import { apiVersion } from '../../src/http/middleware/api-version';
import { API_MOUNT } from '../../src/http/middleware/metrics';
import { openApiRoutes } from '../../src/http/routes/openapi/openapi.routes';

// The description's builder, counted: it keeps ~1.1 MB of objects and takes about a second.
jest.mock('../../src/http/routes/openapi/openapi-document', () => {
  const actual = jest.requireActual<typeof import('../../src/http/routes/openapi/openapi-document')>(
    '../../src/http/routes/openapi/openapi-document',
  );
  return { ...actual, buildOpenApiDocument: jest.fn(actual.buildOpenApiDocument) };
});
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the mock above, to count its calls
const { buildOpenApiDocument } = require('../../src/http/routes/openapi/openapi-document') as {
  buildOpenApiDocument: jest.Mock;
};

/** The route as the app mounts it: under the version, with the app's ETag and conditional requests. */
function appWithOpenApi(): express.Express {
  const app = express();
  app.set('etag', weakEtag);
  answerConditionalRequestsAtOrigin(app);
  const api = express.Router({ mergeParams: true });
  openApiRoutes(api, { cursors: cursorCodec(Buffer.alloc(32, 7)) });
  api.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(API_MOUNT, apiVersion, api);
  return app;
}

beforeEach(() => buildOpenApiDocument.mockClear());

describe('GET openapi.json', () => {
  it('when the app starts and answers other routes, then the description is not built', async () => {
    const app = appWithOpenApi();
    expect((await request(app).get('/api/2026-03/health')).status).toBe(200);
    expect(buildOpenApiDocument).not.toHaveBeenCalled();
  });

  it("when a version is asked for again, then it is built once and the same JSON comes back, with an ETag a client's copy is current by", async () => {
    const app = appWithOpenApi();
    const first = await request(app).get('/api/2026-03/openapi.json');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.body).toMatchObject({ openapi: '3.1.0', info: { version: '2026-03' } });
    expect(first.headers.etag).toBe(weakEtag(first.text));

    const again = await request(app).get('/api/2026-03/openapi.json');
    expect(again.text).toBe(first.text);
    const current = await request(app)
      .get('/api/2026-03/openapi.json')
      .set('If-None-Match', first.headers.etag!)
      .set('Cache-Control', 'no-cache');
    expect(current.status).toBe(304);
    expect(buildOpenApiDocument).toHaveBeenCalledTimes(1);

    const other = await request(app).get('/api/2025-03/openapi.json');
    expect(other.body).toMatchObject({ openapi: '3.1.0', info: { version: '2025-03' } });
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });
});
