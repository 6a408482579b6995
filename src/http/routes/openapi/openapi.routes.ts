import type { Router } from 'express';
import { buildOpenApiDocument } from './openapi-document';

/** `GET /api/{version}/openapi.json`: the description of the API, no token needed. Built once. */
export function openApiRoutes(router: Router): void {
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  router.get('/openapi.json', (_req, res) => {
    document ??= buildOpenApiDocument();
    res.json(document);
  });
}
