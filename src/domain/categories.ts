import { AppError } from './errors';
import { characterCount, quoted } from './shown-input';
import type { Issue } from './validation';

/** api-spec §4.2 and §8: inheritMetadata walks at most this many parents. */
export const MAX_CATEGORY_DEPTH = 20;

/**
 * The longest category id, in characters (code points: an emoji is one, though two UTF-16 code units of a JS
 * string): ids are the key of the categories table, whose index holds at most 2704 bytes an entry (a longer id
 * was a 500 on apply), and the search's categoryId keyword; 256 characters of up to four UTF-8 bytes each
 * (1,024 bytes) stay well inside both.
 */
export const MAX_CATEGORY_ID_LENGTH = 256;

/**
 * Category ids a new config may not use, each reported on its `id` (`[index, 'id']`): longer than
 * MAX_CATEGORY_ID_LENGTH, or `.` / `..`, which GET categories/{categoryId} serves but no client can send
 * (URLs resolve such path segments away). And an empty `parentId`, which names no category (ids are never
 * empty) yet slipped past the unknown-parent check of the config schema, so GET categories listed `parent: ''`.
 */
export function categoryIdIssues(
  categories: readonly { id: string; parentId?: string | undefined }[],
): Issue[] {
  return categories.flatMap(({ id, parentId }, index): Issue[] => {
    const issues: Issue[] = [];
    if (characterCount(id) > MAX_CATEGORY_ID_LENGTH) {
      issues.push({
        path: [index, 'id'],
        message: `must be at most ${MAX_CATEGORY_ID_LENGTH} characters long`,
      });
    } else if (id === '.' || id === '..') {
      issues.push({
        path: [index, 'id'],
        message: "cannot be '.' or '..': no URL can name it in GET categories/{categoryId}",
      });
    }
    if (parentId === '') {
      issues.push({
        path: [index, 'parentId'],
        message: "unknown category '': a category without a parent has no parentId",
      });
    }
    return issues;
  });
}

/** A category as the tree knows it: its id and the id of its parent, if any. */
export interface CategoryNode {
  id: string;
  parentId?: string | undefined;
}

/**
 * Problems of a category tree that a read could not walk: a parent chain that comes back to the category (a
 * cycle), or one longer than MAX_CATEGORY_DEPTH parents. Each is reported on the `parentId` of the category it
 * concerns (`[index, 'parentId']`); a category that only leads into someone else's cycle is not reported again.
 * Unknown parents end the walk (the config schema reports those).
 */
export function categoryTreeIssues(categories: readonly CategoryNode[]): Issue[] {
  const parentOf = new Map(categories.map((category) => [category.id, category.parentId]));
  const issues: Issue[] = [];
  categories.forEach((category, index) => {
    const chain = [category.id];
    let parent = category.parentId;
    while (parent !== undefined && parentOf.has(parent)) {
      if (parent === category.id) {
        issues.push({
          path: [index, 'parentId'],
          message: `makes a cycle: ${[...chain, parent].map((id) => quoted(id)).join(' → ')}`,
        });
        return;
      }
      if (chain.includes(parent)) return;
      chain.push(parent);
      if (chain.length - 1 > MAX_CATEGORY_DEPTH) {
        issues.push({
          path: [index, 'parentId'],
          message: `gives ${quoted(category.id)} more than ${MAX_CATEGORY_DEPTH} parents; metadata inheritance goes at most ${MAX_CATEGORY_DEPTH} levels deep`,
        });
        return;
      }
      parent = parentOf.get(parent);
    }
  });
  return issues;
}

/**
 * The category's metadata with its parents' filled in where it has none (api-spec §4.2): `chain` is the
 * category, then its parent, grandparent and so on; a property is never overwritten, so the nearest value
 * wins. A chain of more than MAX_CATEGORY_DEPTH parents is the documented 500. A config that would make one
 * (or a cycle) is refused when it is created or applied (categoryTreeIssues), so only a config stored before
 * that rule could get here.
 */
export function inheritedMetadata(
  chain: readonly { id: string; metadata: Record<string, unknown> }[],
): Record<string, unknown> {
  if (chain.length - 1 > MAX_CATEGORY_DEPTH) {
    const limit = `metadata inheritance goes at most ${MAX_CATEGORY_DEPTH} levels deep`;
    const ids = chain.map(({ id }) => id);
    // A walk that comes back to a category went round a cycle: saying "more than 20 parents" of a category
    // with one parent sent whoever fixes the config looking for a long chain.
    const back = ids.findIndex((id, index) => ids.indexOf(id) < index);
    const cycle = back < 0 ? undefined : ids.slice(0, back + 1).map((id) => quoted(id));
    throw new AppError(500, {
      name: 'ConfigurationError',
      message:
        cycle === undefined
          ? `Category ${quoted(ids[0] ?? '')} has more than ${MAX_CATEGORY_DEPTH} parents; ${limit}`
          : `Category ${quoted(ids[0] ?? '')} has parents that form a cycle: ${cycle.join(' → ')}; ${limit}`,
    });
  }
  // A Map, then fromEntries: a stored `__proto__` key stays a key instead of becoming the prototype.
  const merged = new Map<string, unknown>();
  for (const { metadata } of chain) {
    for (const [key, value] of Object.entries(metadata)) if (!merged.has(key)) merged.set(key, value);
  }
  return Object.fromEntries(merged);
}
