import { z } from 'zod';
import type { Content, Metadata } from './content';
import { jsonEqual } from './document-commands/apply';
import type { CommandOf } from './document-commands/schema';
import { findJsonProblem } from './json-limits';
import type { ProjectConfig } from './project-config';
import { extractSearchText } from './publication-text';
import { invalid, issuesToPaths, readableIssueMessage, valid, type Checked, type Issue } from './validation';

/**
 * The enrichment protocol (README, "Enrichment"): what the project's enrichment service is sent for one
 * document, what it must answer, and how its answer becomes document commands. Pure; the HTTP call and the
 * write are src/commands/enrich-document.ts.
 */

export const ENRICHMENT_DEFAULTS = { timeoutMs: 5_000, property: 'entities' } as const;

/** Most entities one answer may hold; with the lengths below they stay far inside the metadata limit. */
export const MAX_ENTITIES = 500;
/** An answer nests a few levels; anything deeper is not an entity list. */
const MAX_ANSWER_DEPTH = 8;

export interface EnrichmentSettings {
  url: string;
  timeoutMs: number;
  property: string;
  labelsProperty?: string;
}

/** The project's enrichment with its defaults, or undefined when it is not enabled (or has nowhere to call). */
export function enrichmentSettings(config: ProjectConfig): EnrichmentSettings | undefined {
  const enrichment = config.enrichment;
  if (!enrichment?.enabled || enrichment.url === undefined) return undefined;
  return {
    url: enrichment.url,
    timeoutMs: enrichment.timeoutMs ?? ENRICHMENT_DEFAULTS.timeoutMs,
    property: enrichment.property ?? ENRICHMENT_DEFAULTS.property,
    ...(enrichment.labelsProperty === undefined ? {} : { labelsProperty: enrichment.labelsProperty }),
  };
}

/** The body POSTed to the service: the document's words as plain text, and what names it. */
export interface EnrichmentRequest {
  projectId: number;
  projectHandle: string;
  documentId: number;
  contentType: string;
  /** `metadata.language.locale`, when the document has one. */
  language?: string;
  title?: string;
  description?: string;
  /** The plain text of the content's text directives, one per line (what full-text search indexes). */
  text: string;
}

export function enrichmentRequest(
  project: { id: number; handle: string },
  document: { id: number; contentType: string; metadata: Metadata; content: Content },
): EnrichmentRequest {
  const language = document.metadata.language;
  const locale =
    typeof language === 'object' && language !== null ? (language as { locale?: unknown }).locale : undefined;
  return {
    projectId: project.id,
    projectHandle: project.handle,
    documentId: document.id,
    contentType: document.contentType,
    ...(typeof locale === 'string' ? { language: locale } : {}),
    ...extractSearchText(document.metadata, document.content),
  };
}

/** One entity as the service answers it and as it is stored; other keys of the answer are dropped. */
const EntitySchema = z.object({
  type: z.string().trim().min(1).max(50),
  label: z.string().trim().min(1).max(200),
  id: z.string().trim().min(1).max(200).optional(),
  score: z.number().min(0).max(1).optional(),
});
export type Entity = z.output<typeof EntitySchema>;

const AnswerSchema = z.object({ entities: z.array(EntitySchema).max(MAX_ENTITIES) });

/**
 * The entities of a service's parsed JSON answer, or every reason it is not an answer: anything Postgres
 * could not store (NUL, unpaired surrogates) or nested beyond an entity list, then the shape.
 */
export function parseEnrichmentAnswer(answer: unknown): Checked<Entity[]> {
  const problem = findJsonProblem(answer, MAX_ANSWER_DEPTH);
  if (problem) return invalid([{ path: problem.path, message: problem.message }]);
  const parsed = AnswerSchema.safeParse(answer, { error: readableIssueMessage });
  if (!parsed.success) return invalid(parsed.error.issues.map(({ path, message }) => ({ path, message })));
  return valid(parsed.data.entities);
}

/** The issues of a refused answer in one line, for the log: `entities.0.label: ...; entities.3: ...`. */
export function describeIssues(issues: readonly Issue[]): string {
  const lines = Object.entries(issuesToPaths(issues)).map(([path, message]) => `${path}: ${message}`);
  const more = lines.length > 5 ? ` (and ${lines.length - 5} more)` : '';
  return `${lines.slice(0, 5).join('; ')}${more}`;
}

/**
 * The document commands that write the entities into the metadata: the entities under `property` and, when
 * configured, their distinct labels under `labelsProperty`. A property that already holds the same value gets
 * no command, so an unchanged answer writes nothing (no new version, no republish).
 */
export function enrichmentCommands(
  metadata: Metadata,
  entities: readonly Entity[],
  settings: Pick<EnrichmentSettings, 'property' | 'labelsProperty'>,
): CommandOf<'setMetadataProperty'>[] {
  const wanted: [string, CommandOf<'setMetadataProperty'>['value']][] = [[settings.property, [...entities]]];
  if (settings.labelsProperty !== undefined) {
    wanted.push([settings.labelsProperty, [...new Set(entities.map((entity) => entity.label))]]);
  }
  return wanted
    .filter(
      ([property, value]) =>
        !jsonEqual(Object.hasOwn(metadata, property) ? metadata[property] : undefined, value),
    )
    .map(([propertyName, value]) => ({ operation: 'setMetadataProperty', propertyName, value }));
}
