import { createHash } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import { BoundedCache } from './bounded-cache';
import { AppError } from './errors';

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

/** Hashes by signature: the sorts a project's clients use are few, and a widget pages with the same one. */
const signatureHashes = new BoundedCache<string, string>(1000);

/** Pass `parseSort(...).fields.join(',')` as the signature. */
function hashSignature(sortSignature: string): string {
  return signatureHashes.get(sortSignature, () =>
    createHash('sha256').update(sortSignature).digest('base64url').slice(0, 10),
  );
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

/** The search_after values of a cursor issued under the same sort; otherwise a 400 keyed `after`. */
export function decodeCursor(raw: string, sortSignature: string): estypes.FieldValue[] {
  const payload = parsePayload(raw);
  if (!payload)
    throw AppError.validation({ after: 'invalid cursor: pass the cursor of a previous response' });
  if (payload.s !== hashSignature(sortSignature)) {
    throw AppError.validation({
      after: 'invalid cursor: it was issued for a different sort; start again without after',
    });
  }
  return payload.a;
}
