import type { Queryable } from '../db/pool';
import { documentQueries } from '../db/queries/documents';
import type { ProjectRow } from '../db/queries/projects';
import {
  assertPlannerIntegrationEnabled,
  publicationStatesOf,
  type PublicationState,
} from '../domain/planner-integration';

/** What the planning tool reads of the publications it follows (planner-integration). */
export function plannerPublicationReads(db: Queryable) {
  return {
    /** POST planner-integration/statuses: the state of each document asked for, in the order asked. */
    async statuses(project: ProjectRow, ids: readonly number[]): Promise<PublicationState[]> {
      assertPlannerIntegrationEnabled(project);
      return publicationStatesOf(ids, await documentQueries(db).findPublicationStates(project.id, ids));
    },
  };
}

export type PlannerPublicationReads = ReturnType<typeof plannerPublicationReads>;
