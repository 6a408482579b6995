import type { Pool } from '../db/pool';
import type { ApiVersion } from '../domain/api-versions';
import type { ImportRequest } from '../domain/import-request';
import type { Boss } from '../jobs/boss';
import { addDeliveryStatus, type AddDeliveryStatusInput } from './add-delivery-status';
import { applyProjectConfig } from './apply-project-config';
import { startImportJob } from './import-documents';
import { loadMenu, type LoadMenuInput } from './load-menu';
import {
  createPlannerElement,
  unlinkPlannerElement,
  updatePlannerElement,
  type PlannerElementInput,
} from './planner-elements';
import { followPublication, issuePlannerToken, unfollowPublication } from './planner-integration';
import { reEnrichDocuments } from './re-enrich-documents';
import { runDocumentCommands, type RunDocumentCommandsInput } from './run-document-commands';

/**
 * Every write the routes make, bound to the process's pool and pg-boss; built once by src/context.ts. Each is a
 * use case that owns its transaction (and its outbox jobs); the CLI and the workers call the same functions.
 */
export function createCommands(deps: {
  pool: Pool;
  boss: Boss;
  /** Signs the tokens the planner integration issues (config.auth.jwtSecret, the key tokens verify with). */
  jwtSecret: string;
}) {
  return {
    addDeliveryStatus: (input: AddDeliveryStatusInput) => addDeliveryStatus(deps.pool, input),
    applyProjectConfig: (projectId: number, input: { plan: boolean; projectConfig: unknown }) =>
      applyProjectConfig(deps.pool, projectId, input),
    loadMenu: (input: LoadMenuInput) => loadMenu(deps.pool, input),
    createPlannerElement: (
      input: PlannerElementInput & { element: { id: string }; documentId?: number | undefined },
    ) => createPlannerElement(deps, input),
    updatePlannerElement: (input: PlannerElementInput & { documentId?: number | undefined }) =>
      updatePlannerElement(deps, input),
    unlinkPlannerElement: (projectId: number, documentId: number) =>
      unlinkPlannerElement(deps.pool, projectId, documentId),
    issuePlannerToken: (credentials: { clientId: string; secret: string }, now: Date) =>
      issuePlannerToken(deps, credentials, now),
    followPublication: (input: { projectId: number; documentId: number; record: unknown }) =>
      followPublication(deps.pool, input),
    unfollowPublication: (projectId: number, documentId: number) =>
      unfollowPublication(deps.pool, projectId, documentId),
    reEnrichDocuments: (projectId: number, ids: readonly number[]) =>
      reEnrichDocuments(deps.pool, deps.boss, projectId, ids),
    runDocumentCommands: (input: RunDocumentCommandsInput) =>
      runDocumentCommands(deps.pool, deps.boss, input),
    startImportJob: (projectId: number, version: ApiVersion, body: ImportRequest) =>
      startImportJob(deps, projectId, version, body),
  };
}

export type Commands = ReturnType<typeof createCommands>;
