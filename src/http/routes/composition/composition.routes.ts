import type { Router } from 'express';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { sendJsonInSlices } from '../../json-slices';
import { optionalJsonBody } from '../../middleware/json-body';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import { requestLifetime } from '../../request-lifetime';
import type { RouteDeps } from '../deps';
import { compositionBody, compositionParams } from './composition.schema';

/**
 * POST composition/{documentId} (api-spec §4.4), in every API version: the latest publication gathered for
 * rendering. Unpublished, unknown and other projects' documents are 404. Answered in slices (sendJsonInSlices):
 * the content and html of a 30 MB document are seconds of serialising other requests need not wait for; a
 * client that goes away stops the render and the serialising (requestLifetime).
 */
export function compositionRoutes(
  router: Router,
  { auth, projectConfigs, reads }: Pick<RouteDeps, 'auth' | 'projectConfigs' | 'reads'>,
): void {
  router.post(
    '/composition/:documentId',
    ...auth,
    requireScope('public-api:read'),
    optionalJsonBody,
    async (req, res) => {
      const signal = requestLifetime(res);
      const { documentId } = parseOrThrow(compositionParams, req.params);
      parseQueryOrThrow(noQueryParams, req.query);
      const body = parseOrThrow(compositionBody, req.body);
      const project = await projectConfigs.get(req.auth.projectId);
      await sendJsonInSlices(res, await reads.composition.compose(project, documentId, body, signal), signal);
    },
  );
}
