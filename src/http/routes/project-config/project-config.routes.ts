import type { Request, Response, Router } from 'express';
import { parseOrThrow } from '../../../domain/validation';
import { onlyIn } from '../../middleware/api-version';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import type { RouteDeps } from '../deps';
import { ApplyProjectConfigBody } from './project-config.schema';

/**
 * GET and POST projectConfig (api-spec §4.19, supplement §8), and their legacy names GET and POST
 * channelConfig (v1 to 2025-05, api-spec §9): the same reads and the same plan/apply answers.
 */
export function projectConfigRoutes(
  router: Router,
  { auth, reads, commands }: Pick<RouteDeps, 'auth' | 'reads' | 'commands'>,
): void {
  const readConfig = async (req: Request, res: Response) => {
    parseQueryOrThrow(noQueryParams, req.query);
    res.json(await reads.projects.config(req.auth.projectId));
  };
  const applyConfig = async (req: Request, res: Response) => {
    parseQueryOrThrow(noQueryParams, req.query);
    const body = parseOrThrow(ApplyProjectConfigBody, req.body);
    res.json(await commands.applyProjectConfig(req.auth.projectId, body));
  };
  const legacy = onlyIn({ to: '2025-05' });

  router.get('/projectConfig', ...auth, requireScope('public-api:config:read'), readConfig);
  router.post('/projectConfig', ...auth, requireScope('public-api:config:write'), jsonBody, applyConfig);
  router.get('/channelConfig', legacy, ...auth, requireScope('public-api:config:read'), readConfig);
  router.post(
    '/channelConfig',
    legacy,
    ...auth,
    requireScope('public-api:config:write'),
    jsonBody,
    applyConfig,
  );
}
