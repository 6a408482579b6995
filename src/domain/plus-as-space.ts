/**
 * A query string reads `+` as a space, so a date-time `…T10:00:00+01:00` sent unencoded arrives as
 * `…T10:00:00 01:00`, and a 400 calling it no date-time leaves the client looking at a date-time it sees
 * nothing wrong with. What to say of such a value, when it reads as one (`reads`, the caller's own check) once
 * the space before its offset is a `+` again; undefined when it does not. Every date parameter says the same:
 * a query parameter's (dateTimeParam), componentConditions' dateTime and the search's filters.
 */
export function plusLostHint(value: string, reads: (value: string) => boolean): string | undefined {
  const withPlus = value.replace(/ (\d{2}:\d{2})$/, '+$1');
  if (withPlus === value || !reads(withPlus)) return undefined;
  return (
    "its offset's '+' arrived as a space (a '+' in a query string is one): " +
    `send it as %2B, e.g. ${withPlus.replace(/\+(\d{2}:\d{2})$/, '%2B$1')}`
  );
}
