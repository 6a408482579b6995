import type { z } from 'zod';
import { withTransaction, type Pool } from '../db/pool';
import { categoryQueries } from '../db/queries/categories';
import { channelQueries } from '../db/queries/channels';
import { designQueries } from '../db/queries/designs';
import { projectQueries } from '../db/queries/projects';
import { AppError } from '../domain/errors';
import { NewProjectConfigSchema } from '../domain/project-config';
import { designSizeProblem, NewDesignSchema } from '../domain/design';
import { findJsonProblem, formatJsonPath, MAX_BODY_DEPTH } from '../domain/json-limits';
import { readableIssueMessage, zodIssuesToPaths } from '../domain/validation';

export interface CreateProjectInput {
  name?: string;
  config: unknown;
  /** Designs to store with the project (checked: NewDesignSchema); the one named by `config.design` becomes current. */
  designs?: unknown[];
}

/**
 * Checks `value` as `schema` (its problems keyed under `root`, e.g. `designs.0.components`), after the walk a
 * request body gets (domain/json-limits.ts): a NUL, an unpaired surrogate or a `__proto__` key is named
 * instead of Postgres's 'invalid byte sequence for encoding "UTF8": 0x00' or a key lost without a word.
 */
function checkStored<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  root: string,
): { ok: true; value: z.output<Schema> } | { ok: false; problems: Record<string, string> } {
  const problem = findJsonProblem(value, MAX_BODY_DEPTH);
  if (problem) return { ok: false, problems: { [formatJsonPath(problem.path, root)]: problem.message } };
  const parsed = schema.safeParse(value, { error: readableIssueMessage });
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, problems: zodIssuesToPaths(parsed.error.issues, root) };
}

/**
 * Creates a project with its default channel `web`, categories and designs, in one transaction. The config
 * and every design are checked first, all problems named at once; a handle another project has is a 409.
 */
export async function createProject(pool: Pool, input: CreateProjectInput) {
  const checkedConfig = checkStored(NewProjectConfigSchema, input.config, 'projectConfig');
  const checkedDesigns = (input.designs ?? []).map((design, index) => {
    const tooLarge = designSizeProblem(design);
    if (tooLarge) return { ok: false as const, problems: { [`designs.${index}`]: tooLarge } };
    return checkStored(NewDesignSchema, design, `designs.${index}`);
  });
  const problems = Object.assign(
    {},
    ...[checkedConfig, ...checkedDesigns].map((checked) => (checked.ok ? {} : checked.problems)),
  ) as Record<string, string>;
  if (!checkedConfig.ok || Object.keys(problems).length > 0) throw AppError.validation(problems);
  const config = checkedConfig.value;
  const designsToStore = checkedDesigns.flatMap((checked) => (checked.ok ? [checked.value] : []));
  return withTransaction(pool, async (tx) => {
    const projects = projectQueries(tx);
    const projectId = await projects.insert({
      handle: config.settings.handle,
      name: input.name ?? config.settings.label ?? config.settings.handle,
      config,
    });
    if (projectId === undefined) {
      const taken = await projects.findByHandle(config.settings.handle);
      throw AppError.conflict(
        `A project with the handle '${config.settings.handle}' exists already` +
          (taken ? ` (projectId=${taken.id})` : ''),
      );
    }
    const channelId = await channelQueries(tx).insert({
      projectId,
      handle: 'web',
      label: 'Web',
      designName: config.design?.name ?? null,
      designVersion: config.design?.version ?? null,
      contentTypes: config.contentTypes.map((type) => type.handle),
      isDefault: true,
    });
    await categoryQueries(tx).replaceAll(projectId, config);
    const designs = designQueries(tx);
    for (const design of designsToStore) {
      const current = design.name === config.design?.name && design.version === config.design.version;
      await designs.insert(projectId, design, current);
    }
    return { projectId, channelId, handle: config.settings.handle };
  });
}
