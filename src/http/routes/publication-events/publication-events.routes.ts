import type { Request, Response, Router } from 'express';
import type { AppContext } from '../../../context';
import { channelQueries } from '../../../db/queries/channels';
import { publicationEventQueries } from '../../../db/queries/publication-events';
import { AppError } from '../../../domain/errors';
import { parseOrThrow } from '../../../domain/validation';
import { requireScope } from '../../middleware/authenticate';
import { publicationEventsQuery } from './publication-events.schema';

/**
 * GET publicationEvents[/{channelHandle}] (api-spec §4.17, supplement §7): the project's publish, update and
 * unpublish events in id order, for clients that page with id.gt to stay in sync.
 */
export function publicationEventsRoutes(router: Router, ctx: AppContext): void {
  const { auth } = ctx;
  const events = publicationEventQueries(ctx.pool);

  const listEvents = async (req: Request, res: Response) => {
    const query = parseOrThrow(publicationEventsQuery, req.query);
    const { projectId } = req.auth;
    let channelId: number | undefined;
    if (req.params.channelHandle !== undefined) {
      const handle = String(req.params.channelHandle);
      channelId = await channelQueries(ctx.pool).findIdByHandle(projectId, handle);
      if (channelId === undefined) throw AppError.notFound(`Channel '${handle}' not found`);
    }
    const rows = await events.list({
      projectId,
      ...(channelId === undefined ? {} : { channelId }),
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
    const results = rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
    res.json(req.apiVersion.wrapsLists ? { results } : results);
  };

  router.get('/publicationEvents', ...auth, requireScope('public-api:read'), listEvents);
  router.get('/publicationEvents/:channelHandle', ...auth, requireScope('public-api:read'), listEvents);
}
