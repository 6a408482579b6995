import type { Pool } from '../db/pool';
import type { ApiVersion } from '../domain/api-versions';
import type { ImportRequest } from '../domain/import-request';
import type { Boss } from '../jobs/boss';
import type { Logger } from '../logger';
import type { DecodeBudget } from '../media/decode-budget';
import type { DownloadLimits } from '../media/download';
import type { PublicAddressPolicy } from '../domain/public-addresses';
import type { WritePreconditions } from '../domain/write-preconditions';
import type { ObjectStore } from '../storage/object-store';
import type { TokenStamp } from './api-clients';
import { addDeliveryStatus, type AddDeliveryStatusInput } from './add-delivery-status';
import { applyProjectConfig } from './apply-project-config';
import { addToDocumentList, createDocumentList } from './document-lists';
import { startImportJob } from './import-documents';
import { loadMenu, type LoadMenuInput } from './load-menu';
import {
  createPlannerElement,
  unlinkPlannerElement,
  updatePlannerElement,
  type PlannerElementInput,
} from './planner-elements';
import { importMedia, type ImportMediaInput } from './import-media';
import { patchMedia, type PatchMediaInput } from './patch-media';
import { uploadMedia, type MediaUploadInput } from './upload-media';
import {
  followPublication,
  issuePlannerToken,
  unfollowPublication,
  type FollowPublicationInput,
} from './planner-integration';
import { reEnrichDocuments } from './re-enrich-documents';
import { runDocumentCommands, type RunDocumentCommandsInput } from './run-document-commands';

/** The version and base URL an answered media entry is shown with. */
type MediaWriteView = { baseUrl: string; version: ApiVersion };

/**
 * Every write the routes make, bound to the process's pool and pg-boss; built once by src/context.ts. Each is a
 * use case that owns its transaction (and its outbox jobs); the CLI and the workers call the same functions.
 */
export function createCommands(deps: {
  pool: Pool;
  boss: Boss;
  /** Where media bytes live (src/storage); writes that store bytes put them here before their entry commits. */
  objects: ObjectStore;
  /** Signs the tokens the planner integration issues (config.auth.jwtSecret, the key tokens verify with). */
  jwtSecret: string;
  /** JWT_ISSUER and JWT_AUDIENCE (config.auth): the `iss` and `aud` of those tokens, required when set. */
  jwtStamp: TokenStamp;
  logger: Logger;
  /** config.mediaLibrary: the limits of uploads and of asset downloads. */
  mediaLibrary: { uploadMaxBytes: number; maxImagePixels: number; download: DownloadLimits };
  /** Which addresses asset downloads may reach (built once in the context). */
  addresses: PublicAddressPolicy;
  /** The pixels the process may be decoding at once (built once in the context). */
  decodeBudget: DecodeBudget;
}) {
  const media = {
    pool: deps.pool,
    objects: deps.objects,
    logger: deps.logger,
    download: deps.mediaLibrary.download,
    addresses: deps.addresses,
    uploadMaxBytes: deps.mediaLibrary.uploadMaxBytes,
    maxImagePixels: deps.mediaLibrary.maxImagePixels,
    decodeBudget: deps.decodeBudget,
  };
  return {
    addDeliveryStatus: (input: AddDeliveryStatusInput) => addDeliveryStatus(deps.pool, input),
    applyProjectConfig: (projectId: number, input: { plan: boolean; projectConfig: unknown }) =>
      applyProjectConfig(deps, projectId, input),
    loadMenu: (input: LoadMenuInput) => loadMenu(deps.pool, input),
    createDocumentList: (input: { projectId: number; name: string }) => createDocumentList(deps.pool, input),
    addToDocumentList: (input: { listId: number; documentIds: readonly number[] }) =>
      addToDocumentList(deps.pool, input),
    createPlannerElement: (
      input: PlannerElementInput &
        WritePreconditions & { element: { id: string }; documentId?: number | undefined },
    ) => createPlannerElement(deps, input),
    updatePlannerElement: (
      input: PlannerElementInput & WritePreconditions & { documentId?: number | undefined },
    ) => updatePlannerElement(deps, input),
    unlinkPlannerElement: (projectId: number, documentId: number, preconditions?: WritePreconditions) =>
      unlinkPlannerElement(deps.pool, projectId, documentId, preconditions),
    issuePlannerToken: (credentials: { clientId: string; secret: string }, now: Date) =>
      issuePlannerToken(deps, credentials, now),
    followPublication: (input: FollowPublicationInput) => followPublication(deps.pool, input),
    unfollowPublication: (projectId: number, documentId: number, preconditions?: WritePreconditions) =>
      unfollowPublication(deps.pool, projectId, documentId, preconditions),
    reEnrichDocuments: (projectId: number, ids: readonly number[]) =>
      reEnrichDocuments(deps.pool, deps.boss, projectId, ids),
    runDocumentCommands: (input: RunDocumentCommandsInput) =>
      runDocumentCommands(deps.pool, deps.boss, input),
    importMedia: (
      projectId: number,
      inputs: readonly ImportMediaInput[],
      view: MediaWriteView,
      signal?: AbortSignal,
    ) => importMedia(media, projectId, inputs, view, signal),
    patchMedia: (input: PatchMediaInput, view: MediaWriteView) => patchMedia(media, input, view),
    uploadMedia: (projectId: number, input: MediaUploadInput) => uploadMedia(media, projectId, input),
    startImportJob: (projectId: number, version: ApiVersion, body: ImportRequest) =>
      startImportJob(deps, projectId, version, body),
  };
}

export type Commands = ReturnType<typeof createCommands>;
