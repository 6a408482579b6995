import { embargoOf } from './document-commands/apply';
import { AppError } from './errors';
import type { ProjectConfig } from './project-config';

/**
 * The planning tool's publication-state integration (planner-integration/*): the short-lived tokens it logs in
 * with, and the state of a document's publication as the tool sees it. Pure.
 */

/** How long a token from planner-integration/oauth/token lives (an hour, the usual client-credentials span). */
export const PLANNER_TOKEN_SECONDS = 3600;

/** Whether the project's config switches the planner integration on. */
export function plannerIntegrationEnabled(config: ProjectConfig): boolean {
  return config.planner?.integration?.enabled === true;
}

/** 400 ConfigurationError naming the project unless its config switches the planner integration on. */
export function assertPlannerIntegrationEnabled(project: {
  id: number;
  handle: string;
  config: ProjectConfig;
}): void {
  if (!plannerIntegrationEnabled(project.config)) {
    throw AppError.configuration(
      `The planner integration is not enabled for project '${project.handle}' (projectId=${project.id})`,
    );
  }
}

/**
 * Seconds the token lives: PLANNER_TOKEN_SECONDS, or less when the client itself expires sooner (a token never
 * outlives its client); 0 when the client has expired.
 */
export function plannerTokenLifetime(clientExpiresAt: Date | null, now: Date): number {
  if (clientExpiresAt === null) return PLANNER_TOKEN_SECONDS;
  const left = Math.floor((clientExpiresAt.getTime() - now.getTime()) / 1000);
  return Math.max(0, Math.min(PLANNER_TOKEN_SECONDS, left));
}

/**
 * `draft`: never published; `published`: live (maybe with unpublished changes); `unpublished`: was live and is
 * not any more; `not-found`: no such document in the project.
 */
export type PublicationStatus = 'draft' | 'published' | 'unpublished' | 'not-found';

/** What a document's state row holds (src/db/queries/documents.ts, findPublicationStates). */
export interface PublicationStateSource {
  id: number;
  version: number;
  updatedAt: Date;
  latestPublicationId: number | null;
  publishedVersion: number | null;
  firstPublicationDate: Date | null;
  lastPublicationDate: Date | null;
  embargoSet: boolean;
  embargoReason: string | null;
  embargoUntil: Date | null;
  publishScheduleAt: Date | null;
  unpublishScheduleAt: Date | null;
  everPublished: boolean;
  elementId: string | null;
  plannerPublication: Record<string, unknown> | null;
}

/** One document's publication state as the planning tool reads it (POST statuses, PUT publication). */
export type PublicationState =
  | { documentId: number; status: 'not-found' }
  | {
      documentId: number;
      status: Exclude<PublicationStatus, 'not-found'>;
      /** The live publication; null unless published. */
      publicationId: number | null;
      /** Published, and the draft has changed since. */
      hasUnpublishedChanges: boolean;
      version: number;
      updatedAt: string;
      firstPublicationDate: string | null;
      lastPublicationDate: string | null;
      publishSchedule: string | null;
      unpublishSchedule: string | null;
      embargo: { reason: string; until: string | null } | null;
      /** The planner element linked to the document (planner/element). */
      elementId: string | null;
      /** The tool's own record of the publication, as it last sent it (PUT publication). */
      publication: Record<string, unknown> | null;
    };

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

export function publicationStateOf(row: PublicationStateSource): PublicationState {
  const published = row.latestPublicationId !== null;
  return {
    documentId: row.id,
    status: published ? 'published' : row.everPublished ? 'unpublished' : 'draft',
    publicationId: row.latestPublicationId,
    hasUnpublishedChanges: published && row.publishedVersion !== row.version,
    version: row.version,
    updatedAt: row.updatedAt.toISOString(),
    firstPublicationDate: iso(row.firstPublicationDate),
    lastPublicationDate: iso(row.lastPublicationDate),
    publishSchedule: iso(row.publishScheduleAt),
    unpublishSchedule: iso(row.unpublishScheduleAt),
    embargo: embargoOf(row),
    elementId: row.elementId,
    publication: row.plannerPublication,
  };
}

/** The states of `ids` in the order asked, an id of no document of the project as `not-found`. */
export function publicationStatesOf(
  ids: readonly number[],
  rows: readonly PublicationStateSource[],
): PublicationState[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => {
    const row = byId.get(id);
    return row ? publicationStateOf(row) : { documentId: id, status: 'not-found' };
  });
}
