/** One change between two JSON values, addressed by an RFC 6901 pointer (supplement §8 `patches`). */
export interface JsonPatch {
  action: 'add' | 'update' | 'remove';
  pointer: string;
  /** The new value (absent for `remove`). */
  value?: unknown;
  /** The old value (absent for `add`). */
  valueBefore?: unknown;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Escapes one reference token: `~` → `~0`, `/` → `~1` (RFC 6901 §3). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => isEqual(item, b[index]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    const otherKeys = Object.keys(b).filter((key) => b[key] !== undefined);
    return (
      keys.length === otherKeys.length &&
      keys.every((key) => Object.hasOwn(b, key) && isEqual(a[key], b[key]))
    );
  }
  return false;
}

/**
 * The smallest set of pointer-addressed changes that turns `before` into `after`: objects are compared key
 * by key, arrays index by index (surplus items are added at the end or removed from the end, highest
 * index first, so the patches can be applied in order). A value whose type changes is one `update`.
 * Keys whose value is `undefined` count as absent, as they would in JSON.
 */
export function diffJson(before: unknown, after: unknown, pointer = ''): JsonPatch[] {
  const patches: JsonPatch[] = [];
  diffInto(patches, before, after, pointer);
  return patches;
}

/**
 * diffJson's walk, appending to one array: a config may hold hundreds of thousands of changes (a category's
 * metadata is free-form), more than a spread call's arguments can carry (a RangeError, answered 500).
 */
function diffInto(patches: JsonPatch[], before: unknown, after: unknown, pointer: string): void {
  if (isEqual(before, after)) return;
  if (isObject(before) && isObject(after)) {
    for (const [key, value] of Object.entries(before)) {
      if (value === undefined) continue;
      const child = `${pointer}/${escapePointerToken(key)}`;
      if (!Object.hasOwn(after, key) || after[key] === undefined) {
        patches.push({ action: 'remove', pointer: child, valueBefore: value });
      } else {
        diffInto(patches, value, after[key], child);
      }
    }
    for (const [key, value] of Object.entries(after)) {
      if (value === undefined || (Object.hasOwn(before, key) && before[key] !== undefined)) continue;
      patches.push({ action: 'add', pointer: `${pointer}/${escapePointerToken(key)}`, value });
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const common = Math.min(before.length, after.length);
    for (let index = 0; index < common; index += 1) {
      diffInto(patches, before[index], after[index], `${pointer}/${index}`);
    }
    for (let index = common; index < after.length; index += 1) {
      patches.push({ action: 'add', pointer: `${pointer}/${index}`, value: after[index] });
    }
    for (let index = before.length - 1; index >= common; index -= 1) {
      patches.push({ action: 'remove', pointer: `${pointer}/${index}`, valueBefore: before[index] });
    }
    return;
  }
  patches.push({ action: 'update', pointer, value: after, valueBefore: before });
}
