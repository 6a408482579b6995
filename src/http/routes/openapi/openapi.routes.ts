import type { Router } from 'express';
import { buildOpenApiDocument } from './openapi-document';

/** `GET /api/{version}/openapi.json`: the description of the API, no token needed. Built when registered. */
export function openApiRoutes(router: Router): void {
  const document = buildOpenApiDocument();
  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
}
