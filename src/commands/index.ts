import type { Pool } from '../db/pool';
import type { Boss } from '../jobs/boss';
import { addDeliveryStatus, type AddDeliveryStatusInput } from './add-delivery-status';
import { applyProjectConfig } from './apply-project-config';
import { startImportJob } from './import-documents';
import { runDocumentCommands, type RunDocumentCommandsInput } from './run-document-commands';

/**
 * Every write the routes make, bound to the process's pool and pg-boss; built once by src/context.ts. Each is a
 * use case that owns its transaction (and its outbox jobs); the CLI and the workers call the same functions.
 */
export function createCommands(deps: { pool: Pool; boss: Boss }) {
  return {
    addDeliveryStatus: (input: AddDeliveryStatusInput) => addDeliveryStatus(deps.pool, input),
    applyProjectConfig: (projectId: number, input: Parameters<typeof applyProjectConfig>[2]) =>
      applyProjectConfig(deps.pool, projectId, input),
    runDocumentCommands: (input: RunDocumentCommandsInput) =>
      runDocumentCommands(deps.pool, deps.boss, input),
    startImportJob: (...args: Tail<Parameters<typeof startImportJob>>) => startImportJob(deps, ...args),
  };
}

type Tail<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never;

export type Commands = ReturnType<typeof createCommands>;
