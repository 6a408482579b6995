import type { Queryable } from '../db/pool';
import { designQueries } from '../db/queries/designs';
import { documentListQueries } from '../db/queries/document-lists';
import { latestPublicationQueries } from '../db/queries/latest-publications';
import type { ProjectRow } from '../db/queries/projects';
import type { ConditionRequest } from '../domain/component-conditions';
import {
  applyPreload,
  findIncludeRequests,
  MAX_PRELOADED_REFERENCES,
  preloadBudgetFilled,
  preloadReferences,
  resolveIncludes,
  type CompositionField,
  type PublishedSummary,
} from '../domain/composition';
import type { Design } from '../domain/design';
import { buildDocumentView, type ViewSource } from '../domain/document-view';
import { AppError } from '../domain/errors';
import { renderHtmlSteps } from '../domain/html-render';
import { runInSlices, throwIfAbandoned } from '../time-slices';
import { designView } from './designs';
import { viewOf } from './documents';

/** POST composition/{documentId} as the edge parsed it (api-spec §4.4). */
export interface CompositionRead {
  fields: readonly CompositionField[];
  /** Metadata property → whether to resolve its document references. */
  preload: Readonly<Record<string, boolean>>;
  renderDirectiveInfo: boolean;
  resolveIncludes: boolean;
  /** null: the client asked to ignore component conditions. */
  conditions: ConditionRequest | null;
}

function summaryOf(source: ViewSource): PublishedSummary {
  const view = buildDocumentView(source, { references: false });
  return { systemdata: { ...view.systemdata }, metadata: view.metadata };
}

/**
 * One published document gathered for rendering. Everything it resolves (preloads, includes, lists) is read
 * within the token's project and from latest publications only: drafts and other projects never show.
 */
export function compositionReads(db: Queryable) {
  /** The project's published documents among `ids`, by id. */
  async function summaries(
    projectId: number,
    ids: readonly number[],
  ): Promise<Map<number, PublishedSummary>> {
    const sources = await latestPublicationQueries(db).findViewSources(projectId, [...new Set(ids)]);
    return new Map(sources.map((source) => [source.documentId, summaryOf(source)]));
  }

  /**
   * The published targets a metadata.preload can give a value, read in metadata order a budget's worth at a
   * time until the budget is used up: 512 KB of metadata names some 30,000 documents, and reading them all at
   * once had Postgres read and the API decode each one's latest publication though at most
   * MAX_PRELOADED_REFERENCES get a value. Targets that resolve to nothing (a draft, another project's, none)
   * use none of it, so reading carries on past them as applyPreload does.
   */
  async function preloaded(
    projectId: number,
    references: readonly number[],
  ): Promise<Map<number, PublishedSummary>> {
    const targets = [...new Set(references)];
    const found = new Map<number, PublishedSummary>();
    for (
      let read = 0;
      read < targets.length && !preloadBudgetFilled(references, targets[read]!, found);
      read += MAX_PRELOADED_REFERENCES
    ) {
      const chunk = await summaries(projectId, targets.slice(read, read + MAX_PRELOADED_REFERENCES));
      for (const [id, summary] of chunk) found.set(id, summary);
    }
    return found;
  }

  /** The publication's design; the project's current one when the publication names none that exists. */
  async function designOf(projectId: number, source: ViewSource): Promise<Design | undefined> {
    const designs = designQueries(db);
    const named =
      source.designVersion === null
        ? undefined
        : await designs.findByVersion(projectId, source.designVersion, source.designName ?? undefined);
    return named ?? (await designs.findCurrent(projectId));
  }

  return {
    /**
     * The composition asked for. `signal` (the request's lifetime): once the client went away, what is left
     * (the view, the render, the further reads) is not done (RequestAbandonedError).
     */
    async compose(project: ProjectRow, documentId: number, read: CompositionRead, signal?: AbortSignal) {
      const source = await latestPublicationQueries(db).findViewSource(project.id, documentId);
      if (!source) throw AppError.notFound(`Document ${documentId} has no publication`);
      throwIfAbandoned(signal);
      // A composition answers no references. Content is not copied to apply its conditions (viewOf), but
      // for what held a dropped component: a copy per component held the process for over a second for a
      // 30 MB content, for the same answer.
      const view = viewOf(project, source, read.conditions, []);
      const wants = new Set(read.fields);
      const design =
        wants.has('html') || wants.has('design') ? await designOf(project.id, source) : undefined;

      const body: Record<string, unknown> = {};
      if (wants.has('systemdata')) body.systemdata = view.systemdata;
      if (wants.has('metadata')) {
        const references = preloadReferences(view.metadata, read.preload);
        body.metadata =
          references.length === 0
            ? view.metadata
            : applyPreload(view.metadata, read.preload, await preloaded(project.id, references));
      }
      if (wants.has('content')) body.content = view.content;
      if (wants.has('html')) {
        // In slices: a 2 MB content takes seconds to render, which other requests need not wait for.
        const options = { renderDirectiveInfo: read.renderDirectiveInfo };
        body.html = await runInSlices(
          (pause) => renderHtmlSteps(view.content, design, options, pause),
          signal,
        );
      }
      if (wants.has('includes')) {
        const requests = read.resolveIncludes ? findIncludeRequests(view.content) : [];
        // Every list in one read, each as far as its longest include reaches; resolveIncludes cuts each to its
        // limit.
        const reach = new Map<number, number>();
        for (const { list } of requests) {
          if (list) reach.set(list.id, Math.max(reach.get(list.id) ?? 0, list.limit));
        }
        const lists = await documentListQueries(db).findPublishedDocumentIds(project.id, reach);
        const ids = [...lists.values()].flat().concat(requests.flatMap((request) => request.documentIds));
        body.includes = resolveIncludes(requests, lists, await summaries(project.id, ids));
      }
      if (wants.has('design')) body.design = design ? designView(design) : null;
      return body;
    },
  };
}

export type CompositionReads = ReturnType<typeof compositionReads>;
