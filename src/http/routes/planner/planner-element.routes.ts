import type { Request, RequestHandler, Router } from 'express';
import { parseOrThrow } from '../../../domain/validation';
import { preconditionHeaders, writePreconditionsOf } from '../../conditional-get';
import { onlyIn } from '../../middleware/api-version';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody } from '../../middleware/json-body';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import type { RouteDeps } from '../deps';
import {
  createElementBody,
  elementDocumentParams,
  updateElementBody,
  updateLinkedElementBody,
} from './planner-element.schema';

/** The segment of each version: `planner` in every version, `legacy-planner` up to 2025-03 (supplement §1). */
const SEGMENTS: readonly { segment: string; gate: RequestHandler[] }[] = [
  { segment: 'planner', gate: [] },
  { segment: 'legacy-planner', gate: [onlyIn({ to: '2025-03' })] },
];

/**
 * Planning-tool element sync (api-spec §4.19, supplement §11): POST creates a draft (or links a document) and
 * answers `{id}` (an element it knows already is updated, as PUT would); PUT updates through the element's id
 * or the document's; DELETE unlinks; all under the request's If-Match, If-None-Match and If-Unmodified-Since.
 * The element is stored as sent and its title and metadata become document commands
 * (src/domain/planner-element.ts).
 */
export function plannerElementRoutes(
  router: Router,
  { auth, commands }: Pick<RouteDeps, 'auth' | 'commands'>,
): void {
  const received = (req: Request) => ({
    projectId: req.auth.projectId,
    received: req.body as unknown,
    clientId: req.auth.clientId,
    now: new Date(),
  });
  /** What a POST or PUT writes: the element as received, under the request's preconditions. */
  const preconditioned = (req: Request) => ({
    ...received(req),
    ...writePreconditionsOf(preconditionHeaders(req)),
  });
  for (const { segment, gate } of SEGMENTS) {
    const path = `/${segment}/element`;
    router.post(path, ...gate, ...auth, requireScope('planner'), jsonBody, async (req, res) => {
      parseQueryOrThrow(noQueryParams, req.query);
      const { documentId, ...element } = parseOrThrow(createElementBody, req.body);
      const result = await commands.createPlannerElement({ ...preconditioned(req), element, documentId });
      res.status(result.created ? 201 : 200).json({ id: result.id });
    });

    router.put(path, ...gate, ...auth, requireScope('planner'), jsonBody, async (req, res) => {
      parseQueryOrThrow(noQueryParams, req.query);
      const element = parseOrThrow(updateElementBody, req.body);
      res.json({ id: (await commands.updatePlannerElement({ ...preconditioned(req), element })).id });
    });

    router.put(
      `${path}/:documentId`,
      ...gate,
      ...auth,
      requireScope('planner'),
      jsonBody,
      async (req, res) => {
        const { documentId } = parseOrThrow(elementDocumentParams, req.params);
        parseQueryOrThrow(noQueryParams, req.query);
        const element = parseOrThrow(updateLinkedElementBody, req.body);
        res.json({
          id: (await commands.updatePlannerElement({ ...preconditioned(req), element, documentId })).id,
        });
      },
    );

    router.delete(`${path}/:documentId`, ...gate, ...auth, requireScope('planner'), async (req, res) => {
      const { documentId } = parseOrThrow(elementDocumentParams, req.params);
      parseQueryOrThrow(noQueryParams, req.query);
      await commands.unlinkPlannerElement(
        req.auth.projectId,
        documentId,
        writePreconditionsOf(preconditionHeaders(req)),
      );
      res.status(204).end();
    });
  }
}
