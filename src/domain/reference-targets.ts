import { MEDIA_ID_PATTERN } from './media';
import type { ReferenceRow } from './references';

/** A document id as the incoming reference reads ask for it: its digits, at most a bigint's 19. */
const DOCUMENT_ID = /^[1-9][0-9]{0,18}$/;

/**
 * Whether a reference can name anything an incoming reference read may ask for: a document by the digits of
 * its id, a media library entry by an id of its form (MEDIA_ID_PATTERN). A `$ref` in free-form metadata or
 * content may carry any text as its id (imports and media metadata are stored as sent); such a reference
 * names nothing, and an id of a few thousand characters is more than the index of stored target ids takes
 * (Postgres refuses a b-tree key past ~2.7 kB), which failed the whole write with a 500.
 */
export function namesPossibleTarget(row: Pick<ReferenceRow, 'targetType' | 'targetId'>): boolean {
  return row.targetType === 'document' ? DOCUMENT_ID.test(row.targetId) : MEDIA_ID_PATTERN.test(row.targetId);
}

/** The references worth storing for the incoming reference reads: those that can name a target. */
export function storableReferences<T extends Pick<ReferenceRow, 'targetType' | 'targetId'>>(
  rows: readonly T[],
): T[] {
  return rows.filter(namesPossibleTarget);
}
