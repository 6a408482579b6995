import pg from 'pg';
import { parseJsonSteps } from '../domain/json-parse-steps';
import { runInSlices } from '../time-slices';
import { typeParsers } from './pool';

/**
 * A json or jsonb value this long (in characters of its text) or longer is left as its text by the driver
 * (JsonText) and parsed in slices by parseLargeJson; a shorter one is one JSON.parse as usual (about a
 * millisecond for 256 KB: a document of a few KB costs what it did).
 */
export const LARGE_JSON_CHARS = 256 * 1024;

/** The text of a json or jsonb value too large to parse in one go (see LARGE_JSON_CHARS). */
export class JsonText {
  constructor(readonly text: string) {}
}

function parseJsonColumn(text: string): unknown {
  return text.length < LARGE_JSON_CHARS ? JSON.parse(text) : new JsonText(text);
}

/**
 * The pool's parsers (typeParsers) with json and jsonb as parseJsonColumn: for the reads of single documents,
 * whose content can be tens of megabytes. node-postgres parsed such a column with one JSON.parse as its row
 * arrived, hundreds of ms during which the process answered nothing (not even /health). A query made with
 * them hands its rows to parseLargeJson, naming every json and jsonb column it selects.
 */
export const LARGE_JSON_TYPES: pg.CustomTypesConfig = (() => {
  const types = new pg.TypeOverrides(typeParsers());
  types.setTypeParser(pg.types.builtins.JSON, parseJsonColumn);
  types.setTypeParser(pg.types.builtins.JSONB, parseJsonColumn);
  return types;
})();

/**
 * `row` with each of its `columns` (its json and jsonb ones) that the driver left as JsonText (a query with
 * LARGE_JSON_TYPES) replaced by its value, parsed in slices (runInSlices, parseJsonSteps); the same row, as
 * it is and not in a promise, when there is none (a document of a few KB: two property reads, where going
 * over every column of the row cost some µs). Once `signal` (the request's lifetime) is aborted, no further
 * slice runs (RequestAbandonedError).
 */
export function parseLargeJson<T extends object>(
  row: T,
  columns: readonly (keyof T & string)[],
  signal?: AbortSignal,
): T | Promise<T> {
  for (const column of columns) {
    if (row[column] instanceof JsonText) return parsedInSlices(row, columns, signal);
  }
  return row;
}

async function parsedInSlices<T extends object>(
  row: T,
  columns: readonly (keyof T & string)[],
  signal: AbortSignal | undefined,
): Promise<T> {
  const values = row as Record<string, unknown>;
  for (const column of columns) {
    const value = values[column];
    if (value instanceof JsonText) {
      values[column] = await runInSlices((pause) => parseJsonSteps(value.text, pause), signal);
    }
  }
  return row;
}
