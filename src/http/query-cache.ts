import type { Request } from 'express';
import { LRUCache } from 'lru-cache';
import type { z } from 'zod';
import { rawQueryString, parseQueryOrThrow } from './query-params';

const MAX_ENTRIES = 1000;

/**
 * Query strings already parsed and checked, by schema and the text as sent: widgets send the same query many
 * times a second, and qs, zod and the domain parsers were ~15% of a repeated search's CPU. Bounded (LRU), so
 * queries that never repeat (cursors, id ranges) cannot grow it; a bad query throws and is not kept. Built once
 * per process (src/context.ts) for the hot list routes; other routes call parseQueryOrThrow(schema, req.query).
 */
export class QueryCache {
  private readonly parsed = new LRUCache<string, object>({ max: MAX_ENTRIES });
  private readonly schemaIds = new WeakMap<z.ZodType, number>();
  private nextSchemaId = 0;

  /** Like parseQueryOrThrow(schema, req.query), the result frozen: it is shared by every request that sends it. */
  parse<Schema extends z.ZodType<object>>(schema: Schema, req: Request): Readonly<z.output<Schema>> {
    let id = this.schemaIds.get(schema);
    if (id === undefined) {
      id = this.nextSchemaId++;
      this.schemaIds.set(schema, id);
    }
    const key = `${id}?${rawQueryString(req.originalUrl)}`;
    const known = this.parsed.get(key) as Readonly<z.output<Schema>> | undefined;
    if (known) return known;
    // req.query is parsed (qs) only here, on a miss.
    const parsed = Object.freeze(parseQueryOrThrow(schema, req.query));
    this.parsed.set(key, parsed);
    return parsed;
  }
}
