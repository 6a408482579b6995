import type { Router } from 'express';
import { onlyIn } from '../../middleware/api-version';
import { requireScope } from '../../middleware/authenticate';
import type { RouteDeps } from '../deps';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';

/** Legacy GET project (v1 to 2025-05, supplement §8): the project with its channels. */
export function projectRoutes(router: Router, { auth, reads }: Pick<RouteDeps, 'auth' | 'reads'>): void {
  router.get(
    '/project',
    onlyIn({ to: '2025-05' }),
    ...auth,
    requireScope('public-api:config:read'),
    async (req, res) => {
      parseQueryOrThrow(noQueryParams, req.query);
      res.json(await reads.projects.legacyProject(req.auth.projectId));
    },
  );
}
