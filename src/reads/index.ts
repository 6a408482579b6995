import type { TransportRequestOptions } from '@elastic/elasticsearch';
import type { Pool } from '../db/pool';
import type { ServedImageLookup } from '../db/served-image-cache';
import type { Logger } from '../logger';
import type { CursorCodec } from '../domain/search-cursor';
import type { SearchClient } from '../search/client';
import type { PublicationsIndex } from '../search/index-names';
import { categoryReads } from './categories';
import { compositionReads } from './composition';
import { designReads } from './designs';
import { documentListReads } from './document-lists';
import { documentReads } from './documents';
import { healthReads } from './health';
import { importJobReads } from './import-jobs';
import { incomingReferenceReads } from './incoming-references';
import { mediaLibraryReads } from './media-library';
import { menuReads } from './menus';
import { plannerPublicationReads } from './planner-publications';
import { projectReads } from './projects';
import { publicationEventReads } from './publication-events';
import { publicationReads } from './publications';
import { servedImageReads } from './served-images';
import type { SearchAnswerCache } from './search-answer-cache';

/**
 * Every read the routes make, one module per read model, built once per process by src/context.ts. A read
 * takes what the edge parsed (and the project, when the config matters) and composes queries, the domain and
 * the search adapter; it never sees a request.
 */
export function createReads(deps: {
  pool: Pool;
  search: SearchClient;
  index: PublicationsIndex;
  cursors: CursorCodec;
  /** Per-request options of searches (searchReadOptions: a short timeout, one retry per node). */
  searchReadOptions: TransportRequestOptions;
  /** PUBLIC_BASE_URL: where media asset URLs point (else the origin of each request). */
  publicBaseUrl?: string | undefined;
  /** Search answers kept per project and query, dropped by the indexer's write windows. */
  answers: SearchAnswerCache;
  /** serve-image's entry lookups, kept until the project's media entries change. */
  servedImages: ServedImageLookup;
  /** Where a search or a readiness check that failed says why (the client sees a 503 without the cause). */
  logger?: Logger;
}) {
  return {
    categories: categoryReads(deps.pool),
    composition: compositionReads(deps.pool),
    designs: designReads(deps.pool),
    documentLists: documentListReads(deps.pool),
    documents: documentReads(deps.pool),
    health: healthReads({ db: deps.pool, search: deps.search, logger: deps.logger }),
    importJobs: importJobReads(deps.pool),
    incomingReferences: incomingReferenceReads({ db: deps.pool, cursors: deps.cursors }),
    mediaLibrary: mediaLibraryReads(deps.pool, deps.publicBaseUrl, deps.cursors),
    menus: menuReads(deps.pool),
    plannerPublications: plannerPublicationReads(deps.pool),
    projects: projectReads(deps.pool),
    publicationEvents: publicationEventReads(deps.pool),
    publications: publicationReads(deps),
    servedImages: servedImageReads(deps.servedImages),
  };
}

export type Reads = ReturnType<typeof createReads>;
