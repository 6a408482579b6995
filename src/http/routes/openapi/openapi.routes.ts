import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { listRoutes } from '../../route-table';
import { buildOpenApiDocument } from './openapi-document';
import { importWebhook, withDatabaseUnavailable, withoutHeadBodies, withRateLimits } from './operational';
import { documentForVersion } from './per-version';

type Schema = Record<string, unknown>;

/**
 * `GET /api/{version}/openapi.json`: the description of that version, no token needed. The description of all
 * versions is built when registered; each version's, from it and the routes the router has by then, on its
 * first request (every route is registered before the app serves), and kept.
 */
export function openApiRoutes(router: Router, { cursors }: Pick<RouteDeps, 'cursors'>): void {
  const all = withoutHeadBodies(
    withDatabaseUnavailable(withRateLimits({ ...buildOpenApiDocument(cursors), webhooks: importWebhook() })),
  );
  const byVersion = new Map<string, Schema>();
  router.get('/openapi.json', (req, res) => {
    let document = byVersion.get(req.apiVersion.label);
    if (!document) {
      document = documentForVersion(all, listRoutes(router), req.apiVersion);
      byVersion.set(req.apiVersion.label, document);
    }
    res.json(document);
  });
}
