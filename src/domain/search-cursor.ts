import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import { BoundedCache } from './bounded-cache';
import { AppError } from './errors';
import type { SortValueKind } from './search-sort';

/**
 * The opaque `cursor` of publications/search (supplement §5): base64url of a MAC followed by the JSON
 * `{v, s, a}`, where `a` is the last hit's sort values (search_after) and `s` a short hash of the sort they
 * belong to. The MAC (HMAC-SHA256 with the server's cursor key, truncated to 128 bits) makes a cursor one this
 * server issued: a hand-made one, or one of another server, is refused before its JSON is even parsed. The
 * values are still checked against the sort in use (count and kind of each), because the sort of a signature
 * can change meaning (a metadata field indexed as integer today may be a keyword tomorrow), and anything
 * search_after cannot take would come back from Elasticsearch as a 400 of its own.
 */

const VERSION = 2;
const MAC_BYTES = 16;
const MAX_CURSOR_LENGTH = 4096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

interface CursorPayload {
  v: number;
  s: string;
  a: estypes.FieldValue[];
}

/** The sort a cursor belongs to: its signature (`parseSort(...).fields.join(',')`) and its value kinds. */
export interface CursorSort {
  signature: string;
  kinds: readonly SortValueKind[];
}

export interface CursorCodec {
  encode(sortValues: estypes.FieldValue[], sortSignature: string): string;
  /** The search_after values of a cursor this server issued under the same sort; otherwise a 400 keyed `after`. */
  decode(raw: string, sort: CursorSort): estypes.FieldValue[];
}

/** Hashes by signature: the sorts a project's clients use are few, and a widget pages with the same one. */
const signatureHashes = new BoundedCache<string, string>(1000);

function hashSignature(sortSignature: string): string {
  return signatureHashes.get(sortSignature, () =>
    createHash('sha256').update(sortSignature).digest('base64url').slice(0, 10),
  );
}

const FLOAT_SENTINELS = new Set(['Infinity', '-Infinity']);

/** Whether a value is one Elasticsearch gives, and search_after takes back, for a sort entry of this kind. */
function fitsKind(value: unknown, kind: SortValueKind): boolean {
  switch (kind) {
    case 'score':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isSafeInteger(value);
    case 'float':
      return (typeof value === 'number' && Number.isFinite(value)) || FLOAT_SENTINELS.has(value as string);
    case 'keyword':
      return value === null || typeof value === 'string';
  }
}

const invalid = () =>
  AppError.validation({ after: 'invalid cursor: pass the cursor of a previous response' });

/** Cursors signed and checked with `key` (see config: derived from CURSOR_SECRET or JWT_SECRET). */
export function cursorCodec(key: Uint8Array): CursorCodec {
  const mac = (payload: Buffer) => createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);

  /** The payload of a cursor whose MAC checks out and whose JSON has the right shape. */
  function open(raw: string): CursorPayload | undefined {
    if (raw.length > MAX_CURSOR_LENGTH || !BASE64URL.test(raw)) return undefined;
    const bytes = Buffer.from(raw, 'base64url');
    // Node skips characters it cannot decode; only a canonical encoding is one we issued.
    if (bytes.toString('base64url') !== raw || bytes.length <= MAC_BYTES) return undefined;
    const payload = bytes.subarray(MAC_BYTES);
    if (!timingSafeEqual(bytes.subarray(0, MAC_BYTES), mac(payload))) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload.toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { v, s, a } = parsed as Record<string, unknown>;
    if (v !== VERSION || typeof s !== 'string' || !Array.isArray(a)) return undefined;
    return { v, s, a: a as estypes.FieldValue[] };
  }

  return {
    encode(sortValues, sortSignature) {
      const payload: CursorPayload = { v: VERSION, s: hashSignature(sortSignature), a: sortValues };
      const json = Buffer.from(JSON.stringify(payload), 'utf8');
      return Buffer.concat([mac(json), json]).toString('base64url');
    },

    decode(raw, sort) {
      const payload = open(raw);
      if (!payload) throw invalid();
      if (payload.s !== hashSignature(sort.signature)) {
        throw AppError.validation({
          after: 'invalid cursor: it was issued for a different sort; start again without after',
        });
      }
      const values = payload.a;
      if (
        values.length !== sort.kinds.length ||
        !values.every((value, i) => fitsKind(value, sort.kinds[i]!))
      ) {
        throw AppError.validation({
          after: 'invalid cursor: its values do not fit the sort; start again without after',
        });
      }
      return values;
    },
  };
}
