import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { listRoutes } from '../../route-table';
import { buildOpenApiDocument } from './openapi-document';
import { importWebhook, withDatabaseUnavailable, withoutHeadBodies, withRateLimits } from './operational';
import { documentForVersion } from './per-version';

type Schema = Record<string, unknown>;

/**
 * `GET /api/{version}/openapi.json`: the description of that version, no token needed. Nothing is built at
 * startup: a version's first request builds the description of all versions, makes that version's from it and
 * the routes the router has by then (every route is registered before the app serves), and keeps only the
 * bytes it answers with. The description of all versions (~1.1 MB of objects, 0.2-0.6 s to build) is held
 * weakly: another version asked for before the next full collection reuses it, then it is rebuilt. A process
 * keeps on its heap for good what it holds, and every full collection marks it again (README, "What bounds
 * each figure"); the bytes of the versions served, 220-280 kB each, are a Buffer's, off the heap.
 * So a slip the build refuses (`checkPathParameters`, two schemas under one component name) is a 500 on
 * openapi.json, not a refusal to start: `openapi.test.ts` builds every version's.
 */
export function openApiRoutes(router: Router, { cursors }: Pick<RouteDeps, 'cursors'>): void {
  let built: WeakRef<Schema> | undefined;
  const describeAll = (): Schema => {
    let all = built?.deref();
    if (all === undefined) {
      all = withoutHeadBodies(
        withDatabaseUnavailable(
          withRateLimits({ ...buildOpenApiDocument(cursors), webhooks: importWebhook() }),
        ),
      );
      built = new WeakRef(all);
    }
    return all;
  };
  /**
   * Each version's answer: the bytes and the Content-Type `res.json` sent for its document (the app sets no
   * JSON options); the ETag is the app's, of the same bytes.
   */
  const byVersion = new Map<string, Buffer>();
  router.get('/openapi.json', (req, res) => {
    let bytes = byVersion.get(req.apiVersion.label);
    if (bytes === undefined) {
      const document = documentForVersion(describeAll(), listRoutes(router), req.apiVersion);
      bytes = Buffer.from(JSON.stringify(document), 'utf8');
      byVersion.set(req.apiVersion.label, bytes);
    }
    res.set('Content-Type', 'application/json; charset=utf-8').send(bytes);
  });
}
