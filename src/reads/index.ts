import type { TransportRequestOptions } from '@elastic/elasticsearch';
import type { Pool } from '../db/pool';
import type { CursorCodec } from '../domain/search-cursor';
import type { SearchClient } from '../search/client';
import type { PublicationsIndex } from '../search/index-names';
import { categoryReads } from './categories';
import { designReads } from './designs';
import { documentReads } from './documents';
import { healthReads } from './health';
import { importJobReads } from './import-jobs';
import { menuReads } from './menus';
import { plannerPublicationReads } from './planner-publications';
import { projectReads } from './projects';
import { publicationEventReads } from './publication-events';
import { publicationReads } from './publications';

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
  /** Per-request options of searches (searchReadOptions: a short timeout, one retry). */
  searchReadOptions: TransportRequestOptions;
}) {
  return {
    categories: categoryReads(deps.pool),
    designs: designReads(deps.pool),
    documents: documentReads(deps.pool),
    health: healthReads({ db: deps.pool, search: deps.search }),
    importJobs: importJobReads(deps.pool),
    menus: menuReads(deps.pool),
    plannerPublications: plannerPublicationReads(deps.pool),
    projects: projectReads(deps.pool),
    publicationEvents: publicationEventReads(deps.pool),
    publications: publicationReads(deps),
  };
}

export type Reads = ReturnType<typeof createReads>;
