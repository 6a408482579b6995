import type { Request, Response, Router } from 'express';
import { parseQueryOrThrow } from '../../query-params';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { channelParams } from '../channels/channels.schema';
import type { RouteDeps } from '../deps';
import { publicationEventsQuery } from './publication-events.schema';

/**
 * GET publicationEvents[/{channelHandle}] (api-spec §4.17, supplement §7): the project's publish, update and
 * unpublish events in id order, for clients that page with id.gt to stay in sync.
 */
export function publicationEventsRoutes(
  router: Router,
  { auth, reads }: Pick<RouteDeps, 'auth' | 'reads'>,
): void {
  const listEvents = async (req: Request, res: Response) => {
    const channelHandle =
      req.params.channelHandle === undefined
        ? undefined
        : parseOrThrow(channelParams, req.params).channelHandle;
    const query = parseQueryOrThrow(publicationEventsQuery, req.query);
    const results = await reads.publicationEvents.list(req.auth.projectId, {
      channelHandle,
      ...(query.contentTypes ? { contentTypes: query.contentTypes } : {}),
      ...(query.documentTypes ? { documentTypes: query.documentTypes } : {}),
      id: { gt: query['id.gt'], gte: query['id.gte'], lt: query['id.lt'], lte: query['id.lte'] },
      createdAt: {
        gt: query['createdAt.gt'],
        gte: query['createdAt.gte'],
        lt: query['createdAt.lt'],
        lte: query['createdAt.lte'],
      },
      reverse: query.reverse,
      limit: query.limit,
    });
    res.json(req.apiVersion.wrapsLists ? { results } : results);
  };

  router.get('/publicationEvents', ...auth, requireScope('public-api:read'), listEvents);
  router.get('/publicationEvents/:channelHandle', ...auth, requireScope('public-api:read'), listEvents);
}
