import type { Router } from 'express';
import type { AppContext } from '../../../context';
import { designQueries } from '../../../db/queries/designs';
import { AppError } from '../../../domain/errors';
import type { Design } from '../../../domain/design';
import { requireScope } from '../../middleware/authenticate';

/** The design as the API shows it (supplement §8): every key present, empty where the design has none. */
function designView(design: Design) {
  return {
    name: design.name,
    version: design.version,
    components: design.components.map((component) => ({
      name: component.name,
      label: component.label ?? component.name,
      html: component.html ?? '',
      directives: component.directives,
      ...(component.containers ? { containers: component.containers } : {}),
    })),
    defaultComponents: design.defaultComponents ?? {},
    groups: design.groups ?? [],
    metadata: design.metadata ?? [],
    assets: design.assets ?? {},
  };
}

/** GET design and GET design/{designVersion} (api-spec §4.5, §4.6). */
export function designRoutes(router: Router, ctx: AppContext): void {
  const { auth } = ctx;

  router.get('/design', ...auth, requireScope('public-api:read'), async (req, res) => {
    const design = await designQueries(ctx.pool).findCurrent(req.auth.projectId);
    if (!design) throw AppError.notFound('The project has no current design');
    res.json(designView(design));
  });

  router.get('/design/:designVersion', ...auth, requireScope('public-api:read'), async (req, res) => {
    const version = String(req.params.designVersion);
    const design = await designQueries(ctx.pool).findByVersion(req.auth.projectId, version);
    if (!design) throw AppError.notFound(`Design version '${version}' does not exist`);
    res.json(designView(design));
  });
}
