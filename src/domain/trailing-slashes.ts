/**
 * The text without the slashes it ends with (`https://cms.example/` → `https://cms.example`). A loop from the
 * end, not `replace(/\/+$/, '')`: that expression tries every slash of a run as a start and runs to its end
 * each time, so a Host header of 16,000 slashes and one letter cost half a second per use.
 */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return end === text.length ? text : text.slice(0, end);
}
