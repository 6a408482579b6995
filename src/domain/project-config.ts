import { z } from 'zod';
import { categoryIdIssues, categoryTreeIssues } from './categories';
import type { ConditionDefaults } from './component-conditions';
import { characterCount, quoted } from './shown-input';

/**
 * The project configuration (supplement §8): content types with their metadata fields, categories, brands,
 * languages, channel mode, enrichment and the homepage. Validated with zod; errors become
 * `schemaErrors: [{pointer, message}]` with JSON pointers.
 */
export const METADATA_FIELD_TYPES = [
  'string',
  'text',
  'integer',
  'float',
  'date',
  'boolean',
  'document',
  'documents',
  'image',
  'category',
  'language',
  'object',
] as const;

/** The Elasticsearch type a metadata field gets when it is declared `index: true`. */
export const INDEX_TYPE_OF = {
  string: 'keyword',
  text: 'text',
  integer: 'integer',
  float: 'float',
  date: 'date',
  boolean: 'boolean',
} as const;
export type IndexedFieldType = (typeof INDEX_TYPE_OF)[keyof typeof INDEX_TYPE_OF];

/** Own keys only: `'constructor' in INDEX_TYPE_OF` is true. */
function isIndexable(type: string): type is keyof typeof INDEX_TYPE_OF {
  return Object.hasOwn(INDEX_TYPE_OF, type);
}

export const Handle = z
  .string()
  .regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,62}$/, 'must start with a letter; letters, digits, - and _');

export const MetadataFieldSchema = z
  .object({
    handle: Handle,
    type: z.enum(METADATA_FIELD_TYPES),
    label: z.string().optional(),
    required: z.boolean().optional(),
    index: z.boolean().optional(),
  })
  .strict()
  .refine((field) => !field.index || isIndexable(field.type), {
    message: `index: true is only possible for ${Object.keys(INDEX_TYPE_OF).join(', ')} fields`,
    path: ['index'],
  });

export const ContentTypeSchema = z
  .object({
    handle: Handle,
    documentType: z.enum(['article', 'page', 'data-record']),
    label: z.string().optional(),
    /** A date metadata field whose value is the sortDate of search; visiblePublicationDate otherwise. */
    sortDateField: Handle.optional(),
    metadata: z.array(MetadataFieldSchema).default([]),
  })
  .strict();

export const CategorySchema = z
  .object({
    id: z.string().min(1),
    label: z.string().min(1),
    path: z.string().startsWith('/'),
    parentId: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const BrandSchema = z
  .object({ handle: Handle, label: z.string().optional(), isDefault: z.boolean().optional() })
  .strict();

/**
 * The enrichment service the project's documents are sent to (api-spec §4.16; the protocol: README,
 * "Enrichment"). Every field but `enabled` is optional so that configs stored before it stay valid; the
 * defaults live with the enrichment (src/domain/enrichment.ts).
 */
export const EnrichmentConfigSchema = z
  .object({
    enabled: z.boolean(),
    /** Where the enrichment is asked: POST with the document's text, JSON entities back. */
    url: z.url({ protocol: /^https?$/, message: 'must be an http or https URL' }).optional(),
    /** How long one call may take, answer included; default 5000. */
    timeoutMs: z.number().int().min(100).max(30_000).optional(),
    /** The metadata property that receives the entities; default `entities`. */
    property: Handle.optional(),
    /** A metadata property that receives the entities' labels only (declare it an indexed string to filter by). */
    labelsProperty: Handle.optional(),
  })
  .strict()
  .superRefine((enrichment, ctx) => {
    if (enrichment.enabled && enrichment.url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'is required when enrichment is enabled' });
    }
    if (
      enrichment.labelsProperty !== undefined &&
      enrichment.labelsProperty === (enrichment.property ?? 'entities')
    ) {
      ctx.addIssue({ code: 'custom', path: ['labelsProperty'], message: 'must differ from property' });
    }
  });

/**
 * The planning tool's two integrations (api-spec §4.19), each switched on by itself: element sync
 * (planner/element) and the publication-state integration (planner-integration/*).
 */
export const PlannerConfigSchema = z
  .object({
    elements: z
      .object({
        enabled: z.boolean(),
        /** The content type of the drafts elements create; default the first article content type. */
        contentType: Handle.optional(),
      })
      .strict()
      .optional(),
    integration: z.object({ enabled: z.boolean() }).strict().optional(),
  })
  .strict();

export const ProjectConfigSchema = z
  .object({
    v: z.literal(2).default(2),
    $baseRevision: z.number().int().optional(),
    settings: z
      .object({
        handle: Handle,
        label: z.string().optional(),
        channelMode: z.enum(['static', 'configurable']).default('configurable'),
        languages: z
          .object({
            available: z.array(z.object({ locale: z.string().min(2), label: z.string() }).strict()).min(1),
            defaultLanguage: z.string().min(2),
          })
          .strict()
          .optional(),
        homepageDocumentId: z.number().int().positive().optional(),
      })
      .strict(),
    design: z
      .object({ name: Handle, version: z.string().min(1) })
      .strict()
      .optional(),
    contentTypes: z.array(ContentTypeSchema).default([]),
    categories: z.array(CategorySchema).default([]),
    brands: z.array(BrandSchema).default([]),
    enrichment: EnrichmentConfigSchema.optional(),
    planner: PlannerConfigSchema.optional(),
  })
  .strict()
  .superRefine((config, ctx) => {
    const unique = (values: string[], path: (string | number)[], what: string) => {
      const seen = new Set<string>();
      values.forEach((value, index) => {
        if (seen.has(value))
          ctx.addIssue({
            code: 'custom',
            path: [...path, index],
            message: `duplicate ${what} ${quoted(value)}`,
          });
        seen.add(value);
      });
    };
    unique(
      config.contentTypes.map((t) => t.handle),
      ['contentTypes'],
      'content type',
    );
    unique(
      config.categories.map((c) => c.id),
      ['categories'],
      'category id',
    );
    unique(
      config.brands.map((b) => b.handle),
      ['brands'],
      'brand',
    );
    config.contentTypes.forEach((type, t) => {
      unique(
        type.metadata.map((m) => m.handle),
        ['contentTypes', t, 'metadata'],
        'metadata field',
      );
      if (type.sortDateField) {
        const field = type.metadata.find((m) => m.handle === type.sortDateField);
        if (field?.type !== 'date') {
          ctx.addIssue({
            code: 'custom',
            path: ['contentTypes', t, 'sortDateField'],
            message: `must name a date metadata field of ${quoted(type.handle)}`,
          });
        }
      }
    });
    const ids = new Set(config.categories.map((c) => c.id));
    config.categories.forEach((category, c) => {
      if (category.parentId && !ids.has(category.parentId)) {
        ctx.addIssue({
          code: 'custom',
          path: ['categories', c, 'parentId'],
          message: `unknown category ${quoted(category.parentId)}`,
        });
      }
    });
    if (config.brands.filter((b) => b.isDefault).length > 1) {
      ctx.addIssue({ code: 'custom', path: ['brands'], message: 'at most one brand can be the default' });
    }
    const plannerType = config.planner?.elements?.contentType;
    if (plannerType !== undefined && !config.contentTypes.some((type) => type.handle === plannerType)) {
      ctx.addIssue({
        code: 'custom',
        path: ['planner', 'elements', 'contentType'],
        message: `unknown content type ${quoted(plannerType)}`,
      });
    }
    const languages = config.settings.languages;
    if (languages && !languages.available.some((l) => l.locale === languages.defaultLanguage)) {
      ctx.addIssue({
        code: 'custom',
        path: ['settings', 'languages', 'defaultLanguage'],
        message: 'must be one of the available locales',
      });
    }
  });

/**
 * Most metadata fields (distinct handles) one project may index. Each is a `meta_<type>.<handle>` field of the
 * one search index all projects share, whose mapping takes at most 5,000 fields (index-mappings/publications.json):
 * past that, Elasticsearch refuses every document that brings a new field, whatever its project.
 */
export const MAX_INDEXED_METADATA_FIELDS = 100;

/**
 * The longest label of a new config (settings, content types, metadata fields, categories, brands, languages),
 * in characters: a label names a thing in an editor's list, and had no limit, so a config could carry
 * megabytes of one that every config read answers.
 */
export const MAX_CONFIG_LABEL_LENGTH = 200;

/**
 * The longest locale (a language tag) of a new config's languages and of a media translation, in characters:
 * RFC 5646 §4.4.1 asks room for 35, this leaves room for extensions (`en-US-u-ca-gregory-nu-latn`).
 */
export const MAX_LOCALE_LENGTH = 64;

/** Every label and locale of a config with its path and its limit, for the length check of a new config. */
function* limitedTexts(
  config: ProjectConfig,
): Generator<{ path: (string | number)[]; text: string; max: number }> {
  const label = (path: (string | number)[], text: string | undefined) =>
    text === undefined ? [] : [{ path: [...path, 'label'], text, max: MAX_CONFIG_LABEL_LENGTH }];
  yield* label(['settings'], config.settings.label);
  for (const [l, language] of (config.settings.languages?.available ?? []).entries()) {
    const at = ['settings', 'languages', 'available', l];
    yield { path: [...at, 'locale'], text: language.locale, max: MAX_LOCALE_LENGTH };
    yield* label(at, language.label);
  }
  for (const [t, type] of config.contentTypes.entries()) {
    yield* label(['contentTypes', t], type.label);
    for (const [m, field] of type.metadata.entries())
      yield* label(['contentTypes', t, 'metadata', m], field.label);
  }
  for (const [c, category] of config.categories.entries()) yield* label(['categories', c], category.label);
  for (const [b, brand] of config.brands.entries()) yield* label(['brands', b], brand.label);
}

/**
 * What creating a project and applying a config accept: ProjectConfigSchema, labels and locales of at most
 * MAX_CONFIG_LABEL_LENGTH and MAX_LOCALE_LENGTH characters, category ids that can be stored
 * and asked for (categoryIdIssues), a category tree that
 * inheritMetadata can always walk (no cycle, at most MAX_CATEGORY_DEPTH parents), one index type per
 * indexed metadata field and at most MAX_INDEXED_METADATA_FIELDS of them. Stored configs are read with ProjectConfigSchema alone, so one stored before these
 * rules still loads.
 */
export const NewProjectConfigSchema = ProjectConfigSchema.superRefine((config, ctx) => {
  for (const { path, text, max } of limitedTexts(config)) {
    if (characterCount(text) > max) {
      ctx.addIssue({ code: 'custom', path, message: `must be at most ${max} characters long` });
    }
  }
  for (const issue of categoryIdIssues(config.categories)) {
    ctx.addIssue({ code: 'custom', path: ['categories', ...issue.path], message: issue.message });
  }
  for (const issue of categoryTreeIssues(config.categories)) {
    ctx.addIssue({ code: 'custom', path: ['categories', ...issue.path], message: issue.message });
  }
  // The search has one field per name (metadata.<handle>, see indexedMetadataFields): a second type would
  // silently win over the first, and the other content type's values would be left out of the index.
  const indexedAs = new Map<string, { type: IndexedFieldType; contentType: string }>();
  for (const { handle, type, contentType, path } of indexedFields(config)) {
    const first = indexedAs.get(handle);
    if (first === undefined) {
      if (indexedAs.size === MAX_INDEXED_METADATA_FIELDS) {
        ctx.addIssue({
          code: 'custom',
          path: [...path, 'index'],
          message: `${quoted(handle)} would be indexed metadata field number ${MAX_INDEXED_METADATA_FIELDS + 1}: a project indexes at most ${MAX_INDEXED_METADATA_FIELDS} (the search index all projects share has a limit of fields)`,
        });
      }
      indexedAs.set(handle, { type, contentType });
    } else if (first.type !== type) {
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'type'],
        message: `${quoted(handle)} is indexed as ${type} here but as ${first.type} in content type ${quoted(first.contentType)}: an indexed metadata field has one type across content types`,
      });
    }
  }
});

export type ProjectConfig = z.infer<typeof ProjectConfigSchema>;
export type ContentTypeConfig = z.infer<typeof ContentTypeSchema>;

/** Metadata properties declared `index: true`, by name, with their Elasticsearch type (across content types). */
export function indexedMetadataFields(config: ProjectConfig): Record<string, IndexedFieldType> {
  const fields: Record<string, IndexedFieldType> = {};
  for (const { handle, type } of indexedFields(config)) fields[handle] = type;
  return fields;
}

/**
 * Every metadata field a content type indexes, in config order: its handle, its index type, the content type's
 * handle and the field's path in the config. One reading of "indexed" for the search's fields
 * (indexedMetadataFields) and for the rule that a handle has one type (NewProjectConfigSchema).
 */
function* indexedFields(config: ProjectConfig): Generator<{
  handle: string;
  type: IndexedFieldType;
  contentType: string;
  path: (string | number)[];
}> {
  for (const [t, contentType] of config.contentTypes.entries()) {
    for (const [m, field] of contentType.metadata.entries()) {
      if (field.index && isIndexable(field.type)) {
        yield {
          handle: field.handle,
          type: INDEX_TYPE_OF[field.type],
          contentType: contentType.handle,
          path: ['contentTypes', t, 'metadata', m],
        };
      }
    }
  }
}

/** Supplement §6 defaults of componentConditions for this project: now, and its default brand. */
export function conditionDefaults(config: ProjectConfig, now = new Date()): ConditionDefaults {
  const brand = defaultBrand(config);
  return brand === undefined ? { now } : { now, defaultBrand: brand };
}

export function defaultBrand(config: ProjectConfig): string | undefined {
  return config.brands.find((brand) => brand.isDefault)?.handle;
}

export function findContentType(config: ProjectConfig, handle: string): ContentTypeConfig | undefined {
  return config.contentTypes.find((type) => type.handle === handle);
}
