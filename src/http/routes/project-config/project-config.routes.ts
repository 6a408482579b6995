import type { Router } from 'express';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import type { RouteDeps } from '../deps';
import { ApplyProjectConfigBody } from './project-config.schema';

/** GET and POST projectConfig (api-spec §4.19, supplement §8). */
export function projectConfigRoutes(
  router: Router,
  { auth, reads, commands }: Pick<RouteDeps, 'auth' | 'reads' | 'commands'>,
): void {
  router.get('/projectConfig', ...auth, requireScope('public-api:config:read'), async (req, res) => {
    res.json(await reads.projects.config(req.auth.projectId));
  });

  router.post(
    '/projectConfig',
    ...auth,
    requireScope('public-api:config:write'),
    jsonBody,
    async (req, res) => {
      const body = parseOrThrow(ApplyProjectConfigBody, req.body);
      res.json(await commands.applyProjectConfig(req.auth.projectId, body));
    },
  );
}
