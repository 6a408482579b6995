import { z } from 'zod';
import {
  checkConditionRequest,
  parseConditionRequest,
  type ConditionRequest,
} from '../../../domain/component-conditions';
import {
  COMPOSITION_FIELDS,
  DEFAULT_COMPOSITION_FIELDS,
  type CompositionField,
} from '../../../domain/composition';
import { isRecord } from '../../../domain/content';
import { under, valid, type Checked } from '../../../domain/validation';
import { fromCheck } from '../../../domain/validation';
import { documentIdParam } from '../../query-params';
import { designAnswer } from '../design/design.schema';
import { contentAnswer, metadataAnswer, systemdataAnswer } from '../documents/document-view.schema';

export const compositionParams = z.object({ documentId: documentIdParam });

/** Metadata properties a request may preload at once: more than a content type has. */
export const MAX_PRELOAD_PROPERTIES = 100;

/**
 * api-spec §4.4: every key of the body of POST composition/{documentId}, all optional; component conditions
 * as the body carries them (supplement §6): `componentConditions` an object (or its JSON string) and
 * `ignoreComponentConditions`. An unknown key anywhere is a 400 keyed by its path.
 */
export const compositionBodySchema = z.strictObject({
  fields: z
    .array(z.enum(COMPOSITION_FIELDS, { message: `must be one of ${COMPOSITION_FIELDS.join(', ')}` }))
    .min(1)
    .max(COMPOSITION_FIELDS.length * 2)
    .optional()
    .describe('default: every field'),
  metadata: z
    .strictObject({
      // At most MAX_PRELOAD_PROPERTIES, judged before the entries (see compositionBody).
      preload: z
        .record(z.string().min(1), z.boolean())
        .meta({ maxProperties: MAX_PRELOAD_PROPERTIES })
        .describe('metadata property name → true to resolve its document references')
        .optional(),
    })
    .optional(),
  renderOptions: z.strictObject({ renderDirectiveInfo: z.boolean().optional() }).optional(),
  resolveIncludes: z.boolean().optional(),
  // "default false" as api-spec gives it wherever it names it; optional in the type, described with it.
  ignoreComponentConditions: z.boolean().optional().meta({ default: false }),
  componentConditions: z
    .unknown()
    .describe(
      '{dateTime?: ISO date-time, brand?: string} or that object as a JSON string; default now and the default brand',
    )
    .optional(),
});

export interface CompositionBody {
  fields: CompositionField[];
  preload: Record<string, boolean>;
  renderDirectiveInfo: boolean;
  resolveIncludes: boolean;
  conditions: ConditionRequest | null;
}

/**
 * The body's defaults filled in and its conditions read; an invalid componentConditions is a 400 even when
 * ignoreComponentConditions is true (supplement §6), as on the GET routes.
 */
function readBody(body: z.output<typeof compositionBodySchema>): Checked<CompositionBody> {
  const raw = body.componentConditions;
  const request = under(
    'componentConditions',
    typeof raw === 'string' ? parseConditionRequest(raw) : checkConditionRequest(raw),
  );
  if (!request.ok) return request;
  return valid({
    fields: body.fields ? [...new Set(body.fields)] : [...DEFAULT_COMPOSITION_FIELDS],
    preload: body.metadata?.preload ?? {},
    renderDirectiveInfo: body.renderOptions?.renderDirectiveInfo ?? false,
    // Asking for includes asks for them resolved, unless the body says otherwise.
    resolveIncludes: body.resolveIncludes ?? true,
    conditions: body.ignoreComponentConditions === true ? null : request.value,
  });
}

/**
 * More preload properties than a request may name is refused before any entry is checked: a 5 MB body holds
 * some 300,000, and checking each (an issue for each that is not a boolean) kept the process busy for seconds.
 */
function preloadTooLarge(value: unknown, ctx: z.RefinementCtx): void {
  const preload = isRecord(value) && isRecord(value.metadata) ? value.metadata.preload : undefined;
  if (isRecord(preload) && Object.keys(preload).length > MAX_PRELOAD_PROPERTIES) {
    ctx.addIssue({
      code: 'custom',
      path: ['metadata', 'preload'],
      message: `must name at most ${MAX_PRELOAD_PROPERTIES} metadata properties`,
      input: preload,
    });
  }
}

/** The body, typed and complete; no body at all is `{}`. */
export const compositionBody = z
  .preprocess((value, ctx) => {
    if (value === undefined) return {};
    preloadTooLarge(value, ctx);
    return value;
  }, compositionBodySchema)
  .transform(fromCheck(readBody));

/** One resolved include (api-spec §4.4): a component per published document the include names. */
const resolvedInclude = z.strictObject({
  componentId: z.string().describe('the component id, or its position (0.footer.1)'),
  directiveName: z.string(),
  resolvedValue: z.strictObject({
    content: z.array(
      z.strictObject({
        id: z.string().describe('include-<documentId>'),
        component: z.string().describe("the include's service"),
        content: z.strictObject({
          documentId: z.number().int(),
          layout: z.string().optional().describe("the include's params.layout"),
          systemdata: systemdataAnswer,
          metadata: metadataAnswer,
        }),
      }),
    ),
  }),
});

/**
 * The answer of POST composition/{documentId} (api-spec §4.4): the fields asked for. metadata has the
 * preloaded references resolved in place ({$ref, isPreloaded, reference, value: {systemdata, metadata}}).
 */
export const compositionAnswer = z.strictObject({
  systemdata: systemdataAnswer.optional(),
  metadata: metadataAnswer.optional(),
  content: contentAnswer.optional(),
  html: z.string().optional().describe("the content through the design's component templates"),
  includes: z.array(resolvedInclude).optional(),
  design: designAnswer.nullable().optional().describe('null when the project has no design'),
});
