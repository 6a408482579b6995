import { createHash } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import { invalid, valid, type Checked } from './validation';

/**
 * The opaque `cursor` of publications/search (supplement §5): base64url of `{v, s, a}`, where `a` is the last
 * hit's sort values (search_after) and `s` a short hash of the sort they belong to, so a cursor taken under
 * one sort is refused under another instead of silently skipping or repeating hits.
 */

const VERSION = 1;
/** Generous: a sort has one value per field, and the sortable fields are few. */
const MAX_VALUES = 64;
const MAX_CURSOR_LENGTH = 4096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

interface CursorPayload {
  v: number;
  s: string;
  a: estypes.FieldValue[];
}

/** Pass the sort's normalised fields joined by ',' (SortSpec.fields) as the signature. */
function hashSignature(sortSignature: string): string {
  return createHash('sha256').update(sortSignature).digest('base64url').slice(0, 10);
}

function isFieldValue(value: unknown): value is estypes.FieldValue {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

export function encodeCursor(sortValues: estypes.FieldValue[], sortSignature: string): string {
  const payload: CursorPayload = { v: VERSION, s: hashSignature(sortSignature), a: sortValues };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

function parsePayload(raw: string): CursorPayload | undefined {
  if (raw.length > MAX_CURSOR_LENGTH || !BASE64URL.test(raw)) return undefined;
  const bytes = Buffer.from(raw, 'base64url');
  // Node skips characters it cannot decode; only a canonical encoding is one we issued.
  if (bytes.toString('base64url') !== raw) return undefined;
  let payload: unknown;
  try {
    payload = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { v, s, a } = payload as Record<string, unknown>;
  if (v !== VERSION || typeof s !== 'string' || !Array.isArray(a)) return undefined;
  if (a.length === 0 || a.length > MAX_VALUES || !a.every(isFieldValue)) return undefined;
  return { v, s, a };
}

/** The search_after values of a cursor issued under the same sort (problems at the root: keyed `after`). */
export function decodeCursor(raw: string, sortSignature: string): Checked<estypes.FieldValue[]> {
  const payload = parsePayload(raw);
  if (!payload) {
    return invalid([{ path: [], message: 'invalid cursor: pass the cursor of a previous response' }]);
  }
  if (payload.s !== hashSignature(sortSignature)) {
    return invalid([
      { path: [], message: 'invalid cursor: it was issued for a different sort; start again without after' },
    ]);
  }
  return valid(payload.a);
}
