import type { Router } from 'express';
import { applyProjectConfig } from '../../../commands/apply-project-config';
import type { AppContext } from '../../../context';
import { projectQueries } from '../../../db/queries/projects';
import { AppError } from '../../../domain/errors';
import { parseOrThrow } from '../../../domain/validation';
import { authenticate, requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import { ApplyProjectConfigBody } from './project-config.schema';

/** GET and POST projectConfig (api-spec §4.19, supplement §8). */
export function projectConfigRoutes(router: Router, ctx: AppContext): void {
  const auth = authenticate(ctx.pool, ctx.config.auth);

  router.get('/projectConfig', ...auth, requireScope('public-api:config:read'), async (req, res) => {
    const project = await projectQueries(ctx.pool).findById(req.auth.projectId);
    if (!project) throw AppError.notFound(`Project ${req.auth.projectId} does not exist`);
    res.json({ ...project.config, $baseRevision: project.revisionNumber });
  });

  router.post(
    '/projectConfig',
    ...auth,
    requireScope('public-api:config:write'),
    jsonBody,
    async (req, res) => {
      const body = parseOrThrow(ApplyProjectConfigBody, req.body);
      res.json(await applyProjectConfig(ctx.pool, req.auth.projectId, body));
    },
  );
}
