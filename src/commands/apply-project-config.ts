import type { z } from 'zod';
import { withTransaction, type Pool } from '../db/pool';
import { categoryQueries } from '../db/queries/categories';
import { channelQueries } from '../db/queries/channels';
import { designQueries } from '../db/queries/designs';
import { documentQueries } from '../db/queries/documents';
import { projectQueries } from '../db/queries/projects';
import { AppError } from '../domain/errors';
import { diffJson, escapePointerToken, type JsonPatch } from '../domain/json-diff';
import { NewProjectConfigSchema, type ProjectConfig } from '../domain/project-config';
import { shownInput } from '../domain/shown-input';
import { readableIssueMessage } from '../domain/validation';
import { enqueueMany, type Boss } from '../jobs/boss';
import { indexJobsFor } from '../jobs/index-jobs';
import { reindexedByConfigChange } from '../search/document-builder';

export interface SchemaError {
  pointer: string;
  message: string;
}

/**
 * What an apply answers (supplement §8), both as a 200: the patches planned or applied, or the config's
 * problems (`ok: false`), which the vendor's project-config CLI reads from the body of a 200 to list them.
 */
export type ApplyProjectConfigResult =
  { ok: true; plan: boolean; patches: JsonPatch[]; revisionNumber: number } | InvalidProjectConfig;

export interface InvalidProjectConfig {
  ok: false;
  schemaErrors: SchemaError[];
}

/** Where a problem is, as a JSON pointer; a token the client chose is cut as error keys are (shownInput). */
const pointerOf = (path: readonly PropertyKey[]): string =>
  path.map((segment) => `/${escapePointerToken(shownInput(String(segment)))}`).join('');

const invalidConfig = (schemaErrors: SchemaError[]): InvalidProjectConfig => ({ ok: false, schemaErrors });

function schemaErrorsOf(issues: readonly z.core.$ZodIssue[]): SchemaError[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ pointer: pointerOf([...issue.path, key]), message: 'is not allowed' }))
      : [{ pointer: pointerOf(issue.path), message: issue.message }],
  );
}

/** The config without the request-only `$baseRevision`: what is stored and what patches compare. */
function storedForm(config: ProjectConfig): ProjectConfig {
  const { $baseRevision: _base, ...rest } = config;
  return rest;
}

/**
 * `POST projectConfig` (supplement §8): validates the config (an invalid one is `{ok: false, schemaErrors}`
 * with JSON pointers, and nothing changes), diffs it against the stored one and, unless
 * `plan` is set, stores it as the next revision with its categories, channel and current design, all in
 * one transaction. A `$baseRevision` that is not the current revision is a 409: someone applied in between.
 * When the new config changes what search documents are built from (reindexedByConfigChange: indexed fields
 * and their types, sortDateField: every published document; the homepage: the old and the new one), those
 * published documents get a new index version and index jobs in the same transaction, so documents
 * published before the change follow it.
 */
export async function applyProjectConfig(
  { pool, boss }: { pool: Pool; boss: Boss },
  projectId: number,
  input: { plan: boolean; projectConfig: unknown },
): Promise<ApplyProjectConfigResult> {
  const parsed = NewProjectConfigSchema.safeParse(input.projectConfig, { error: readableIssueMessage });
  if (!parsed.success) return invalidConfig(schemaErrorsOf(parsed.error.issues));
  const next = parsed.data;

  const result = await withTransaction<ApplyProjectConfigResult>(pool, async (tx) => {
    const projects = projectQueries(tx);
    const designs = designQueries(tx);
    const currentRevision = await projects.lockRevision(projectId);
    const project = await projects.findById(projectId);
    if (currentRevision === undefined || !project)
      throw AppError.notFound(`Project ${projectId} does not exist`);
    if (next.$baseRevision !== undefined && next.$baseRevision !== currentRevision) {
      throw AppError.conflict('The project config was changed since the base revision', {
        baseRevision: next.$baseRevision,
        currentRevision,
      });
    }
    const problems: SchemaError[] = [];
    if (next.settings.handle !== project.handle) {
      problems.push({ pointer: '/settings/handle', message: `cannot be changed (is '${project.handle}')` });
    }
    if (next.design && !(await designs.exists(projectId, next.design.name, next.design.version))) {
      problems.push({
        pointer: '/design',
        message: `unknown design ${shownInput(`${next.design.name}@${next.design.version}`)} in this project`,
      });
    }
    if (problems.length > 0) return invalidConfig(problems);

    const stored = storedForm(next);
    const patches = diffJson(storedForm(project.config), stored);
    if (input.plan || patches.length === 0) {
      return { ok: true, plan: input.plan, patches, revisionNumber: currentRevision };
    }
    const revisionNumber = await projects.storeRevision(projectId, stored);
    await categoryQueries(tx).replaceAll(projectId, stored);
    await channelQueries(tx).updateDefault(projectId, stored);
    if (stored.design) await designs.makeCurrent(projectId, stored.design.name, stored.design.version);
    const reindexed = reindexedByConfigChange(project.config, stored);
    if (reindexed === 'all' || reindexed.length > 0) {
      const published = await documentQueries(tx).bumpPublishedIndexVersions(
        projectId,
        reindexed === 'all' ? undefined : reindexed,
      );
      await enqueueMany(boss, tx, 'indexDocuments', indexJobsFor(projectId, published));
    }
    return { ok: true, plan: false, patches, revisionNumber };
  });
  // Committed: this process's caches drop the project's config at once.
  if (result.ok && !result.plan) pool.changes.emit('project', projectId);
  return result;
}
