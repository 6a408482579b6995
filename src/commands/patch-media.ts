import { withTransaction, type Pool } from '../db/pool';
import { mediaQueries } from '../db/queries/media';
import { mediaReferenceQueries } from '../db/queries/media-references';
import type { ApiVersion } from '../domain/api-versions';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';
import {
  applyMediaPatches,
  assertMediaVersion,
  assetKeys,
  changesNothing,
  mediaReferences,
  toApiEntry,
  type ApiMediaEntry,
  type MediaPatch,
} from '../domain/media';
import {
  assertWritePreconditions,
  type PreconditionTarget,
  type WritePreconditions,
} from '../domain/write-preconditions';
import type { Logger } from '../logger';
import type { ObjectStore } from '../storage/object-store';

/** With its preconditions (If-Match, If-None-Match, If-Unmodified-Since): a 412 before any patch applies. */
export interface PatchMediaInput extends WritePreconditions {
  projectId: number;
  id: string;
  patches: MediaPatch[];
  preserveUpdatedAt: boolean;
  /** The version the client last read: another is a 409 and nothing changes. */
  version?: number | undefined;
}

/** How a precondition's 412 names a media library entry. */
const ENTRY: PreconditionTarget = {
  noun: 'media library entry',
  versionShown: "the entry's version",
  readAgain: 'GET mediaLibrary/{id}',
};

/**
 * PATCH mediaLibrary/{id} (api-spec §3.2, §4.18): the batch applies in order, in one transaction, or not at
 * all (a 409 names the patch, or the version when `version` is not the entry's); the entry gets a new version,
 * and keeps its updatedAt with preserveUpdatedAt. A batch that leaves the entry as stored writes nothing and
 * answers the entry as it was (its version, its updatedAt).
 * Changed metadata replaces the entry's outgoing references in the same transaction.
 */
export async function patchMedia(
  deps: { pool: Pool; objects: ObjectStore; logger: Logger },
  input: PatchMediaInput,
  view: { baseUrl: string; version: ApiVersion },
): Promise<ApiMediaEntry> {
  let before: string[] = [];
  const { row, changed } = await withTransaction(deps.pool, async (tx) => {
    const queries = mediaQueries(tx);
    const current = await queries.findById(input.projectId, input.id, true);
    if (!current) throw AppError.notFound(`Media library entry ${quoted(input.id)} not found`);
    assertWritePreconditions(input, ENTRY, current);
    assertMediaVersion(input.version, current.version);
    before = assetKeys(current);
    const next = applyMediaPatches(current, input.patches, {
      conflictOnRevokeRevoked: view.version.atLeast('2026-01'),
    });
    // A batch whose outcome is the stored entry (a revoke of a revoked entry before 2026-01, translations sent
    // back as read) writes nothing: an UPDATE would give the same entry a new version and updatedAt, making
    // every client that checks them re-read it, and notify every process to drop its cached images.
    if (changesNothing(current, next)) return { row: current, changed: false };
    const stored = await queries.applyPatch(input.projectId, input.id, next, input.preserveUpdatedAt);
    if (next.metadata !== current.metadata || next.translations !== current.translations) {
      await mediaReferenceQueries(tx).replace(
        input.projectId,
        input.id,
        mediaReferences(stored.metadata, stored.translations),
      );
    }
    return { row: stored, changed: true };
  });
  if (!changed) return toApiEntry(row, view.baseUrl, view.version.label);
  // serve-image's cache in this process forgets the project's keys before the answer (others: notified).
  deps.pool.changes.emit('media', input.projectId);
  // A translation the batch removed takes its image with it, once the batch has committed.
  const kept = new Set(assetKeys(row));
  for (const key of before.filter((each) => !kept.has(each))) {
    await deps.objects.delete(key).catch((error: unknown) => {
      deps.logger.error(
        { err: error, key },
        'media object could not be deleted: it is left without an entry',
      );
    });
  }
  return toApiEntry(row, view.baseUrl, view.version.label);
}
