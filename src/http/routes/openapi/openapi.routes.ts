import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { listRoutes } from '../../route-table';
import { buildOpenApiDocument } from './openapi-document';
import {
  importWebhook,
  withChallenges,
  withConditionalReads,
  withDatabaseUnavailable,
  withHeads,
  withoutHeadBodies,
  withRateLimits,
} from './operational';
import { documentForVersion } from './per-version';
import { ALL_VERSION_LABELS, ApiVersion } from '../../../domain/api-versions';

type Schema = Record<string, unknown>;

/**
 * `GET /api/{version}/openapi.json`: the description of that version, no token needed. Nothing is built at
 * startup: the first request builds the description of all versions (~1.1 MB of objects, 0.2-0.6 s), makes
 * every version's answer from it and the routes the router has by then (every route is registered before the
 * app serves), and keeps only those bytes, 260-450 kB a version (each GET's HEAD, described since 2026-11-27,
 * adds ~30%), in Buffers off the heap. Held for good, the objects would be marked again by every full
 * collection of a process whose heap drives its GC cost (README,
 * "What bounds each figure"). So a slip the build refuses (`checkPathParameters`, two schemas under one
 * component name) is a 500 on openapi.json, not a refusal to start: `openapi.test.ts` builds every version's.
 */
export function openApiRoutes(router: Router, { cursors }: Pick<RouteDeps, 'cursors'>): void {
  /** Each version's answer: the bytes `res.json` sent for its document (the app sets no JSON options). */
  let byVersion: Map<string, Buffer> | undefined;
  const describeEveryVersion = (): Map<string, Buffer> => {
    const all: Schema = withoutHeadBodies(
      withConditionalReads(
        withDatabaseUnavailable(
          withChallenges(
            withRateLimits(withHeads({ ...buildOpenApiDocument(cursors), webhooks: importWebhook() })),
          ),
        ),
      ),
    );
    const routes = listRoutes(router);
    return new Map(
      ALL_VERSION_LABELS.map((label) => {
        const document = documentForVersion(all, routes, ApiVersion.parse(label)!);
        return [label, Buffer.from(JSON.stringify(document), 'utf8')];
      }),
    );
  };
  router.get('/openapi.json', (req, res) => {
    byVersion ??= describeEveryVersion();
    res.set('Content-Type', 'application/json; charset=utf-8').send(byVersion.get(req.apiVersion.label));
  });
}
