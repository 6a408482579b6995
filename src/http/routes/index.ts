import type { Router } from 'express';
import type { RouteDeps } from './deps';
import { designRoutes } from './design/design.routes';
import { enrichmentRoutes } from './enrichment/enrichment.routes';
import { healthRoutes } from './health/health.routes';
import { openApiRoutes } from './openapi/openapi.routes';
import { docsRoutes } from './docs/docs.routes';
import { plannerElementRoutes } from './planner/planner-element.routes';
import { plannerIntegrationRoutes } from './planner-integration/planner-integration.routes';
import { importRoutes } from './import/import.routes';
import { deliveryStatusRoutes } from './documents/delivery-status.routes';
import { documentCommandsRoutes } from './documents/document-commands.routes';
import { latestDraftRoutes } from './documents/latest-draft.routes';
import { latestPublicationRoutes } from './documents/latest-publication.routes';
import { latestPublicationsRoutes } from './documents/latest-publications.routes';
import { publicationsRoutes } from './publications/publications.routes';
import { publicationEventsRoutes } from './publication-events/publication-events.routes';
import { projectConfigRoutes } from './project-config/project-config.routes';
import { categoryRoutes } from './categories/categories.routes';
import { compositionRoutes } from './composition/composition.routes';
import { channelRoutes } from './channels/channels.routes';
import { projectRoutes } from './project/project.routes';
import { menuRoutes } from './menus/menus.routes';
import { documentListRoutes } from './document-lists/document-lists.routes';
import { incomingReferenceRoutes } from './documents/incoming-references.routes';
import { mediaLibraryRoutes } from './media-library/media-library.routes';
import { serveImageRoutes } from './media-library/serve-image.routes';

/**
 * Every resource of `/api/{version}`, one folder each. A route that exists only in some versions says so
 * with `onlyIn(...)` in its own pipeline.
 */
export function registerRoutes(router: Router, deps: RouteDeps): void {
  healthRoutes(router, deps);
  openApiRoutes(router, deps);
  docsRoutes(router);
  // Before any /documents/:documentId route, so 'latestPublications' is never read as a document id.
  latestPublicationsRoutes(router, deps);
  publicationsRoutes(router, deps);
  documentCommandsRoutes(router, deps);
  latestDraftRoutes(router, deps);
  deliveryStatusRoutes(router, deps);
  publicationEventsRoutes(router, deps);
  projectConfigRoutes(router, deps);
  designRoutes(router, deps);
  importRoutes(router, deps);
  enrichmentRoutes(router, deps);
  plannerElementRoutes(router, deps);
  plannerIntegrationRoutes(router, deps);
  latestPublicationRoutes(router, deps);
  incomingReferenceRoutes(router, deps);
  documentListRoutes(router, deps);
  categoryRoutes(router, deps);
  compositionRoutes(router, deps);
  projectRoutes(router, deps);
  channelRoutes(router, deps);
  menuRoutes(router, deps);
  // Before mediaLibrary/:id/..., so that serve-image is never read as an entry id.
  serveImageRoutes(router, deps);
  mediaLibraryRoutes(router, deps);
}
