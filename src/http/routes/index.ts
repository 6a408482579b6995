import type { Router } from 'express';
import type { AppContext } from '../../context';
import { designRoutes } from './design/design.routes';
import { healthRoutes } from './health/health.routes';
import { projectConfigRoutes } from './project-config/project-config.routes';

/**
 * Every resource of `/api/{version}`, one folder each. A route that exists only in some versions says so
 * with `onlyIn(...)` in its own pipeline.
 */
export function registerRoutes(router: Router, ctx: AppContext): void {
  healthRoutes(router, ctx);
  projectConfigRoutes(router, ctx);
  designRoutes(router, ctx);
}
