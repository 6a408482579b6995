import { z } from 'zod';
import { jsonEqual } from './document-commands/apply';
import { propertyName, type CommandOf } from './document-commands/schema';
import type { ContentTypeConfig, ProjectConfig } from './project-config';
import { readableIssueMessage } from './validation';

/**
 * A planning tool's element (planner/element, supplement §11) and the one mapping of it onto document
 * commands. The element is stored as the tool sent it; only `title`, `description` and `metadata` reach the
 * document, as setMetadataProperty commands, and only where they differ from what the tool sent last time,
 * so an editor's own change to a field the tool did not change stays.
 */

/** Most bytes an element may take as JSON: an element is a planning record, not a document. */
export const MAX_ELEMENT_BYTES = 256 * 1024;

/**
 * Most metadata properties an element may name: each becomes a setMetadataProperty command of one request
 * (PATCH commands takes 100), far more than a planning record carries.
 */
export const MAX_ELEMENT_METADATA_PROPERTIES = 1000;

/** The tool's id of the element: a string or a number, kept as a string. */
export const elementIdSchema = z
  .union([z.string().trim().min(1).max(200), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)], {
    error: (issue) =>
      issue.code === 'invalid_union' && issue.input !== undefined
        ? 'must be the planning tool’s element id: a non-empty string of at most 200 characters or an integer'
        : undefined,
  })
  .transform(String);

/** The fields of an element the API reads; every other key is kept as the tool sent it. */
export const plannerElementShape = {
  id: elementIdSchema,
  /** metadata.title of the document; null removes it. */
  title: z.string().max(1000).nullable().optional(),
  /** metadata.description of the document; null removes it. */
  description: z.string().max(10_000).nullable().optional(),
  /** Further metadata properties of the document; a null value removes one. */
  metadata: z
    .unknown()
    // Counted before any key or value is checked, which is what costs: 30,000 took seconds.
    .refine(
      (metadata) =>
        typeof metadata !== 'object' ||
        metadata === null ||
        Object.keys(metadata).length <= MAX_ELEMENT_METADATA_PROPERTIES,
      { message: `must have at most ${MAX_ELEMENT_METADATA_PROPERTIES} properties` },
    )
    .pipe(
      z
        .record(z.string(), z.json())
        // Each key is a property name as setMetadataProperty takes it, the problem named at the key's path.
        .superRefine((metadata, ctx) => {
          for (const key of Object.keys(metadata)) {
            const checked = propertyName.safeParse(key, { error: readableIssueMessage });
            if (!checked.success) {
              ctx.addIssue({
                code: 'custom',
                path: [key],
                message: checked.error.issues[0]?.message ?? 'is not allowed',
              });
            }
          }
        }),
    )
    .meta({ type: 'object', maxProperties: MAX_ELEMENT_METADATA_PROPERTIES })
    .optional(),
};

/** What no element may be: a property given twice, or a body beyond MAX_ELEMENT_BYTES. */
export function checkElement(element: ElementFields, ctx: z.RefinementCtx): void {
  for (const key of ['title', 'description'] as const) {
    if (
      element[key] !== undefined &&
      element.metadata !== undefined &&
      Object.hasOwn(element.metadata, key)
    ) {
      ctx.addIssue({ code: 'custom', path: ['metadata', key], message: `is given as ${key} already` });
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(element), 'utf8');
  if (bytes > MAX_ELEMENT_BYTES) {
    ctx.addIssue({ code: 'custom', path: [], message: `must be at most ${MAX_ELEMENT_BYTES} bytes as JSON` });
  }
}

/**
 * An element as it must be: the fields above checked, any other key kept as the tool sent it (a planning
 * tool's element carries much the document does not need: assignments, platforms, its own statuses).
 */
export const plannerElementSchema = z.looseObject(plannerElementShape).superRefine(checkElement);
export type PlannerElement = z.output<typeof plannerElementSchema>;
/** What of an element reaches the document. */
export interface ElementFields {
  title?: string | null | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, z.core.util.JSONType> | undefined;
}

/** The metadata an element asks for: its metadata with title and description as properties of it. */
export function elementMetadata(
  element: Partial<Pick<PlannerElement, 'title' | 'description' | 'metadata'>>,
) {
  const metadata = new Map<string, unknown>(Object.entries(element.metadata ?? {}));
  if (element.title !== undefined) metadata.set('title', element.title);
  if (element.description !== undefined) metadata.set('description', element.description);
  return metadata;
}

/**
 * The commands that bring the document in line with the element: one setMetadataProperty per property whose
 * value differs from what the previous element (undefined: none yet) asked for. A property the previous
 * element had and this one lacks is removed; one no element ever named is never touched.
 */
export function elementCommands(
  previous: ElementFields | undefined,
  next: ElementFields,
): CommandOf<'setMetadataProperty'>[] {
  const before = previous === undefined ? new Map<string, unknown>() : elementMetadata(previous);
  const after = elementMetadata(next);
  const names = [...new Set([...after.keys(), ...before.keys()])];
  return names
    .filter((name) => previous === undefined || !jsonEqual(before.get(name), after.get(name)))
    .map((name) => ({
      operation: 'setMetadataProperty',
      propertyName: name,
      value: (after.get(name) ?? null) as CommandOf<'setMetadataProperty'>['value'],
    }));
}

/** The mapped part of an element stored earlier; nothing when it no longer reads as one. */
export function storedElementFields(
  stored: unknown,
): Pick<PlannerElement, 'title' | 'description' | 'metadata'> {
  const parsed = z.looseObject({ ...plannerElementShape, id: elementIdSchema.optional() }).safeParse(stored);
  if (!parsed.success) return {};
  const { title, description, metadata } = parsed.data;
  return {
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** Whether the project's config switches element sync (planner/element) on. */
export function plannerElementsEnabled(config: ProjectConfig): boolean {
  return config.planner?.elements?.enabled === true;
}

/**
 * The content type of the drafts elements create: the one the config names, else the project's first article
 * content type; undefined when the project has neither.
 */
export function plannerElementContentType(config: ProjectConfig): ContentTypeConfig | undefined {
  const named = config.planner?.elements?.contentType;
  if (named !== undefined) return config.contentTypes.find((type) => type.handle === named);
  return config.contentTypes.find((type) => type.documentType === 'article');
}
