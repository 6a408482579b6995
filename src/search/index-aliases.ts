import { readFileSync } from 'node:fs';
import { errors, type estypes, type TransportRequestOptions } from '@elastic/elasticsearch';
import { packagePath } from '../package-root';
import type { SearchClient } from './client';
import type { PublicationsIndex } from './index-names';

/** index-mappings/publications.json: the declarative truth of the index's settings and mappings. */
interface IndexDefinition {
  settings: { index: Record<string, unknown> };
  mappings: estypes.MappingTypeMapping;
}

/**
 * Read when an index is created (rarely): the file as it is now, no copy kept. `replicas`
 * (ELASTICSEARCH_REPLICAS, PublicationsIndex.replicas) replaces the file's auto-expanding replicas with a
 * fixed number: a cluster that loses a node then stays yellow until it is back instead of dropping the copy.
 */
export function publicationsIndexDefinition(replicas?: number): IndexDefinition {
  const definition = JSON.parse(
    readFileSync(packagePath('index-mappings', 'publications.json'), 'utf8'),
  ) as IndexDefinition;
  if (replicas !== undefined) {
    definition.settings.index = {
      ...definition.settings.index,
      number_of_replicas: replicas,
      auto_expand_replicas: 'false',
    };
  }
  return definition;
}

/**
 * The definition's settings for an index being bulk-loaded before anyone searches it: no refresh and no
 * replicas until the load is done (a rebuild restores both before the swap).
 */
export function bulkLoadSettings(): { index: Record<string, unknown> } {
  const { settings } = publicationsIndexDefinition();
  return {
    index: {
      ...settings.index,
      refresh_interval: '-1',
      number_of_replicas: 0,
      auto_expand_replicas: 'false',
    },
  };
}

/** The alias a rebuild puts on its target index, so live writes reach it before the swap. */
export function rebuildingAlias(index: PublicationsIndex): string {
  return `${index.alias}-rebuilding`;
}

function isStatus(error: unknown, status: number): boolean {
  return (error as { meta?: { statusCode?: number } }).meta?.statusCode === status;
}

export async function indicesBehind(search: SearchClient, alias: string): Promise<string[]> {
  try {
    const response = await search.indices.getAlias({ name: alias });
    return Object.keys(response);
  } catch (error) {
    if (isStatus(error, 404)) return [];
    throw error;
  }
}

/**
 * The aliases a write must go through: the searched one, plus a running rebuild's while its target exists.
 * Aliases, not the indices behind them: a write written to an index by name after a rebuild dropped it
 * made Elasticsearch create it again, with a guessed mapping, behind no alias and never dropped (the
 * writes use `require_alias`, see BulkOptions.requireAlias).
 */
export async function writeTargets(search: SearchClient, index: PublicationsIndex): Promise<string[]> {
  const [live, rebuilding] = await Promise.all([
    indicesBehind(search, index.alias),
    indicesBehind(search, rebuildingAlias(index)),
  ]);
  if (live.length === 0 && rebuilding.length === 0) await ensurePublicationsIndex(search, index);
  return rebuilding.length > 0 ? [index.alias, rebuildingAlias(index)] : [index.alias];
}

/**
 * Longest a caller waits for the first index to be created and its primaries to start. Under a busy cluster
 * (another index being rebuilt, created or dropped) the master applies a creation and starts the shard in
 * seconds, not milliseconds: a search waits for that, bounded, rather than answering 503.
 */
export const INDEX_READY_WAIT_MS = 10_000;
/** What a request of that wait may take beyond the wait Elasticsearch is told (the answer's own latency). */
const READY_REQUEST_MARGIN_MS = 5_000;

/**
 * Creates the first physical index with the alias when the alias is missing, and returns once the index can
 * answer searches. Idempotent and safe when the API and the workers start together: the first index has a
 * fixed name, so only one of them can create it; the others (told it already exists) and a caller that finds
 * the alias wait for its primaries like the creator does, since the alias exists before they have started
 * and a search in between fails (no_shard_available_action_exception, a 503). Two requests when the alias
 * exists: a caller on a hot path asks once (see src/reads/publications.ts). `options` are the caller's
 * request options (reads pass their short timeouts: the alias check fails fast when Elasticsearch is down or
 * stuck); the creation and the wait are bounded by INDEX_READY_WAIT_MS.
 */
export async function ensurePublicationsIndex(
  search: SearchClient,
  index: PublicationsIndex,
  options: TransportRequestOptions = {},
): Promise<void> {
  const waiting: TransportRequestOptions = {
    ...options,
    requestTimeout: Math.max(
      Number(options.requestTimeout ?? 0),
      INDEX_READY_WAIT_MS + READY_REQUEST_MARGIN_MS,
    ),
  };
  if (!(await search.indices.existsAlias({ name: index.alias }, options))) {
    const { settings, mappings } = publicationsIndexDefinition(index.replicas);
    try {
      await search.indices.create(
        {
          index: index.newPhysicalName(new Date(0)),
          settings,
          mappings,
          aliases: { [index.alias]: {} },
          timeout: `${INDEX_READY_WAIT_MS}ms`,
          master_timeout: `${INDEX_READY_WAIT_MS}ms`,
        },
        waiting,
      );
    } catch (error) {
      const type = (error as { meta?: { body?: { error?: { type?: string } } } }).meta?.body?.error?.type;
      if (type !== 'resource_already_exists_exception') throw error;
    }
  }
  await waitForPrimaries(search, index.alias, waiting);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Returns once every primary shard behind the alias has started. Cluster health's `yellow` alone is not
 * that: Elasticsearch reports a just-created index whose primary is still unassigned as yellow, and a search
 * then fails. So the primaries are counted too, asking again shortly while one is still starting.
 */
async function waitForPrimaries(
  search: SearchClient,
  alias: string,
  options: TransportRequestOptions,
): Promise<void> {
  const deadline = Date.now() + INDEX_READY_WAIT_MS;
  for (;;) {
    const health = await search.cluster.health(
      {
        index: alias,
        level: 'indices',
        wait_for_status: 'yellow',
        timeout: `${Math.max(0, deadline - Date.now())}ms`,
      },
      // Elasticsearch answers a wait that timed out with 408 and the health as it is.
      { ...options, ignore: [408] },
    );
    const indices = Object.values(health.indices ?? {});
    const started =
      !health.timed_out &&
      indices.length > 0 &&
      indices.every((item) => item.active_primary_shards === item.number_of_shards);
    if (started) return;
    if (Date.now() >= deadline) {
      // Elasticsearch cannot answer searches of this index now (a 503 for a search, a retry for the
      // indexer), not a bug in what we asked.
      throw new errors.TimeoutError(
        `The index behind ${alias} did not become searchable within ${INDEX_READY_WAIT_MS} ms (${health.status})`,
      );
    }
    await sleep(50);
  }
}
