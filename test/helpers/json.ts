/** JSON nested as a string or arrays of it, the shape the nesting tests build. */
export type NestedArrays = string | NestedArrays[];

/** `depth` arrays inside each other around `leaf`, built without recursion (depth 2: `[['leaf']]`). */
export function nestedArrays(depth: number, leaf = 'leaf'): NestedArrays {
  let value: NestedArrays = leaf;
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}
