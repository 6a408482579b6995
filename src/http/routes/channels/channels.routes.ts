import type { Router } from 'express';
import { parseOrThrow } from '../../../domain/validation';
import { onlyIn } from '../../middleware/api-version';
import { requireScope } from '../../middleware/authenticate';
import type { RouteDeps } from '../deps';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import { channelParams } from './channels.schema';

/** Legacy GET channels/{channelHandle} (api-spec §4.3; v1 to 2025-05): one channel of the project. */
export function channelRoutes(router: Router, { auth, reads }: Pick<RouteDeps, 'auth' | 'reads'>): void {
  router.get(
    '/channels/:channelHandle',
    onlyIn({ to: '2025-05' }),
    ...auth,
    requireScope('public-api:read'),
    async (req, res) => {
      const { channelHandle } = parseOrThrow(channelParams, req.params);
      parseQueryOrThrow(noQueryParams, req.query);
      res.json(await reads.projects.channel(req.auth.projectId, channelHandle));
    },
  );
}
