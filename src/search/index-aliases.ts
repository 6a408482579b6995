import { readFileSync } from 'node:fs';
import type { estypes, TransportRequestOptions } from '@elastic/elasticsearch';
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

/** Every physical index a write must reach: what the alias points at plus a running rebuild's target. */
export async function writeTargets(search: SearchClient, index: PublicationsIndex): Promise<string[]> {
  const [live, rebuilding] = await Promise.all([
    indicesBehind(search, index.alias),
    indicesBehind(search, rebuildingAlias(index)),
  ]);
  const targets = [...new Set([...live, ...rebuilding])];
  if (targets.length === 0) {
    await ensurePublicationsIndex(search, index);
    return indicesBehind(search, index.alias);
  }
  return targets;
}

/**
 * Creates the first physical index with the alias when the alias is missing. Idempotent and safe when the
 * API and the workers start together: the first index has a fixed name, so only one of them can create it.
 * Two requests when the alias exists: a caller on a hot path asks once (see src/reads/publications.ts).
 * `options` are the caller's request options (reads pass their short timeouts).
 */
export async function ensurePublicationsIndex(
  search: SearchClient,
  index: PublicationsIndex,
  options: TransportRequestOptions = {},
): Promise<void> {
  if (await search.indices.existsAlias({ name: index.alias }, options)) {
    // Another caller, in this process or another, may have created it a moment ago: the alias exists before
    // the index's primaries can answer, and a search in between fails. Wait until they can.
    await search.cluster.health({ index: index.alias, wait_for_status: 'yellow', timeout: '30s' }, options);
    return;
  }
  const { settings, mappings } = publicationsIndexDefinition(index.replicas);
  try {
    await search.indices.create(
      {
        index: index.newPhysicalName(new Date(0)),
        settings,
        mappings,
        aliases: { [index.alias]: {} },
      },
      options,
    );
  } catch (error) {
    const type = (error as { meta?: { body?: { error?: { type?: string } } } }).meta?.body?.error?.type;
    if (type !== 'resource_already_exists_exception') throw error;
  }
}
