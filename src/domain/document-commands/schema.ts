import { z } from 'zod';
import { perVersion, type ApiVersion, type VersionLabel } from '../api-versions';
import { parseOrThrow } from '../validation';
import { storableDateTime } from '../storable-dates';

/** Most commands one request may carry; they all run in one transaction. */
export const MAX_COMMANDS = 100;

/**
 * Longest embargo reason, in characters (code points): a person's note of why, like the revoke note the spec
 * bounds at 200 (api-spec §8); it is stored on the document and repeated by every refused publish.
 */
export const MAX_EMBARGO_REASON = 200;

/** The first API version of every operation (spec §9: the newest arrived with 2025-07, the rest before 2025-03). */
const OPERATION_SINCE = {
  setMetadataProperty: '2025-03',
  setEditableDirective: '2025-03',
  publish: '2025-03',
  unpublish: '2025-03',
  removeComponent: '2025-03',
  setComponentCondition: '2025-03',
  setComponentStyle: '2025-03',
  setStyleDirective: '2025-03',
  setLinkDirective: '2025-03',
  setIncludeDirective: '2025-03',
  setEmbargo: '2025-07',
  removeEmbargo: '2025-07',
  addPublishSchedule: '2025-07',
  cancelPublishSchedule: '2025-07',
  addUnpublishSchedule: '2025-07',
  cancelUnpublishSchedule: '2025-07',
} as const satisfies Record<string, VersionLabel>;

export type Operation = keyof typeof OPERATION_SINCE;
export const OPERATIONS = Object.keys(OPERATION_SINCE) as Operation[];

const PRESERVE_UPDATED_AT_SINCE: VersionLabel = '2026-03';

export function operationsIn(version: ApiVersion): Operation[] {
  return OPERATIONS.filter((operation) => version.atLeast(OPERATION_SINCE[operation]));
}

const isOperation = (value: unknown): value is Operation =>
  typeof value === 'string' && Object.hasOwn(OPERATION_SINCE, value);

// A property name ends up as an object key in metadata or content; these would reach the prototype instead.
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
export const propertyName = z
  .string()
  .min(1)
  .refine((name) => !RESERVED_NAMES.has(name), { message: 'is a reserved name' });
const componentId = z.string().min(1);
// Kept as the client wrote it, so an oldValue echoing what the client sent earlier still compares equal.
const isoDateTime = z.iso.datetime({ offset: true });
const jsonValue = z.json();
const oldValue = z.json().optional();

const dateTimeCondition = z
  .strictObject({
    gte: isoDateTime.optional(),
    gt: isoDateTime.optional(),
    lte: isoDateTime.optional(),
    lt: isoDateTime.optional(),
  })
  .refine((range) => Object.values(range).some((bound) => bound !== undefined), {
    message: 'must have at least one of gte, gt, lte, lt',
  });

const linkValue = z
  .strictObject({
    href: z.string().min(1).optional(),
    target: z.string().min(1).optional(),
    $ref: z.literal('document').optional(),
    reference: z
      .strictObject({
        id: z
          .union([z.string().min(1), z.number().int().positive()], {
            error: (issue) =>
              issue.code === 'invalid_union' && issue.input !== undefined
                ? 'must be a document id: a non-empty string or a positive integer'
                : undefined,
          })
          .transform(String),
      })
      .optional(),
  })
  .superRefine((link, ctx) => {
    if (link.$ref !== undefined && link.reference === undefined) {
      ctx.addIssue({ code: 'custom', path: ['reference'], message: 'is required when $ref is given' });
    }
    if (link.href === undefined && link.reference === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must have href or reference (null removes the link)' });
    }
  })
  // A reference always carries its $ref, which is what reference extraction looks for.
  .transform((link) => (link.reference === undefined ? link : { ...link, $ref: 'document' as const }));

const includeOverride = z.strictObject({
  id: z.string().min(1),
  content: z.record(z.string(), jsonValue),
  originalSnapshot: jsonValue,
  contentProperties: jsonValue,
});

const includeValue = z
  .strictObject({
    params: z.record(z.string(), jsonValue).optional(),
    overrides: z.array(includeOverride).optional(),
  })
  .refine((include) => include.overrides === undefined || include.params !== undefined, {
    path: ['overrides'],
    message: 'is only allowed together with params',
  });

const embargoUntil = storableDateTime.nullable().optional();

const COMMAND_SCHEMAS = [
  z.strictObject({ operation: z.literal('setMetadataProperty'), propertyName, value: jsonValue, oldValue }),
  z.strictObject({
    operation: z.literal('setEditableDirective'),
    componentId,
    directiveName: propertyName,
    value: z.string(),
  }),
  z.strictObject({ operation: z.literal('publish') }),
  z.strictObject({ operation: z.literal('unpublish') }),
  z.strictObject({ operation: z.literal('removeComponent'), componentId }),
  z.discriminatedUnion(
    'conditionName',
    [
      z.strictObject({
        operation: z.literal('setComponentCondition'),
        componentId,
        conditionName: z.literal('dateTime'),
        value: dateTimeCondition.nullable(),
        oldValue,
      }),
      z.strictObject({
        operation: z.literal('setComponentCondition'),
        componentId,
        conditionName: z.literal('brands'),
        value: z.array(z.string().min(1)).min(1).nullable(),
        oldValue,
      }),
    ],
    {
      error: (issue) => (issue.code === 'invalid_union' ? "must be one of 'dateTime', 'brands'" : undefined),
    },
  ),
  z.strictObject({
    operation: z.literal('setComponentStyle'),
    componentId,
    propertyName,
    value: jsonValue,
    oldValue,
  }),
  z.strictObject({
    operation: z.literal('setStyleDirective'),
    componentId,
    directiveName: propertyName,
    propertyName,
    value: jsonValue,
    oldValue,
  }),
  z.strictObject({
    operation: z.literal('setLinkDirective'),
    componentId,
    directiveName: propertyName,
    value: linkValue.nullable(),
    oldValue,
  }),
  z.strictObject({
    operation: z.literal('setIncludeDirective'),
    componentId,
    directiveName: propertyName,
    value: includeValue,
    oldValue,
  }),
  z.strictObject({
    operation: z.literal('setEmbargo'),
    reason: z.string().min(1).max(MAX_EMBARGO_REASON),
    until: embargoUntil,
  }),
  z.strictObject({ operation: z.literal('removeEmbargo') }),
  z.strictObject({ operation: z.literal('addPublishSchedule'), date: storableDateTime }),
  z.strictObject({ operation: z.literal('cancelPublishSchedule') }),
  z.strictObject({ operation: z.literal('addUnpublishSchedule'), date: storableDateTime }),
  z.strictObject({ operation: z.literal('cancelUnpublishSchedule') }),
] as const;

type CommandSchema = (typeof COMMAND_SCHEMAS)[number];

/** Every operation of every version; parse through `parseCommandRequest`, which knows what a version allows. */
export const commandSchema = z.discriminatedUnion('operation', COMMAND_SCHEMAS);
export type Command = z.output<typeof commandSchema>;
export type CommandOf<O extends Operation> = Extract<Command, { operation: O }>;

/**
 * `{type, value}` (api-spec §4.11). isPublished says which state it asserts in `value`; isPublishedAndHasNoChanges
 * may leave it out, as the vendor's reference sends it (`{"type": "isPublishedAndHasNoChanges"}`), and then
 * asserts that the document is live without unpublished changes (value true).
 */
const preconditionSchema = z
  .strictObject({
    type: z.enum(['isPublished', 'isPublishedAndHasNoChanges']),
    value: z
      .boolean()
      .optional()
      .describe('required for isPublished; default true for isPublishedAndHasNoChanges'),
  })
  .superRefine((precondition, ctx) => {
    if (precondition.type === 'isPublished' && precondition.value === undefined) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'is required for isPublished' });
    }
  })
  .transform(({ type, value }) => ({ type, value: value ?? true }));
export type Precondition = z.output<typeof preconditionSchema>;

const requestShape = {
  commands: z.array(commandSchema).min(1).max(MAX_COMMANDS),
  preconditions: z.array(preconditionSchema).optional(),
  version: z.number().int().min(0).optional(),
  // api-spec §4.11 "default false": optional in the type (callers other than the route leave it out), and
  // described with its default.
  preserveUpdatedAt: z.boolean().optional().meta({ default: false }),
};

/** The request body as the newest API version accepts it. */
export const commandRequestSchema = z.strictObject(requestShape);
export type CommandRequest = z.output<typeof commandRequestSchema>;

/** The operation literal of a command schema, read from zod's discriminator bookkeeping. */
function operationOf(schema: CommandSchema): Operation {
  const [operation] = schema._zod.propValues.operation ?? [];
  if (!isOperation(operation)) throw new Error('every command schema has one operation literal');
  return operation;
}

const operationField = (input: unknown): unknown =>
  typeof input === 'object' && input !== null ? Reflect.get(input, 'operation') : undefined;

function buildRequestSchema(version: ApiVersion): z.ZodType<CommandRequest> {
  const available = new Set(operationsIn(version));
  const [first, ...rest] = COMMAND_SCHEMAS.filter((schema) => available.has(operationOf(schema)));
  if (first === undefined) throw new Error(`API version ${version.label} has no command operations`);

  const unknownOperation = (operation: unknown): string =>
    isOperation(operation)
      ? `operation '${operation}' is not available in API version ${version.label}`
      : `must be one of ${[...available].join(', ')}`;
  const command = z.discriminatedUnion('operation', [first, ...rest], {
    error: (issue) =>
      issue.code === 'invalid_union' && issue.note === 'No matching discriminator'
        ? unknownOperation(operationField(issue.input))
        : undefined,
  });

  const preserveUpdatedAt = version.atLeast(PRESERVE_UPDATED_AT_SINCE)
    ? requestShape.preserveUpdatedAt
    : z
        .never({
          error: `is not available in API version ${version.label}, only from ${PRESERVE_UPDATED_AT_SINCE}`,
        })
        .optional();

  return z.strictObject({
    ...requestShape,
    commands: z.array(command).min(1).max(MAX_COMMANDS),
    preserveUpdatedAt,
  });
}

/** The request schema of each API version, built once when this module loads (the OpenAPI documents show it). */
export const requestSchema = perVersion(buildRequestSchema);

/**
 * Validates the body of `PATCH documents/{documentId}/commands` for one API version; throws the spec's 400
 * with one key per offending path (`commands.2.operation`, `commands.0.value.overrides`, `preserveUpdatedAt`).
 */
export function parseCommandRequest(body: unknown, version: ApiVersion): CommandRequest {
  return parseOrThrow(requestSchema(version), body);
}
