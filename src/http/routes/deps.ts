import type { RequestHandler } from 'express';
import type { Commands } from '../../commands';
import type { ProjectConfigCache } from '../../db/project-config-cache';
import type { CursorCodec } from '../../domain/search-cursor';
import type { Reads } from '../../reads';
import type { ObjectStore } from '../../storage/object-store';
import type { SecretCheckGuard } from '../middleware/auth-failures';
import type { QueryCache } from '../query-cache';

/**
 * What routes get from the process (src/context.ts builds each once): never a pool, a pg-boss or a search
 * client, only reads, commands and the shared HTTP pieces. A route module declares the part it uses with
 * `Pick<RouteDeps, ...>`.
 */
export interface RouteDeps {
  /**
   * The one authentication middleware: bearer token verified, API client loaded, `req.auth` set, then the
   * client's rate limit counted (a 429 past it).
   */
  auth: RequestHandler[];
  /**
   * Runs a check of a client secret (the planner's login) under the failed-attempt limits of the client's
   * address and of the client it names: a 429 before the check once they are used up.
   */
  secretChecks: SecretCheckGuard;
  /** The project (config and revision) of `req.auth.projectId`, for reads whose answer depends on the config. */
  projectConfigs: ProjectConfigCache;
  /** Parsed query strings of the hot list routes. */
  queryCache: QueryCache;
  /** Opens the search cursors clients send back (their signature and sort are checked at the edge). */
  cursors: CursorCodec;
  reads: Reads;
  commands: Commands;
  /** Where media bytes live; routes stream them out (serve-image), commands write them. */
  objects: ObjectStore;
}
