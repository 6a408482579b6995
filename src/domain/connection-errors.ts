/**
 * Socket and DNS errnos of a connection to a service the server talks to (Postgres, an S3 store) that could
 * not be made or was lost: the service's trouble for a while, answered 503, never the request's fault. The
 * database pool counts these (src/db/pool.ts); the object store counts a few more of its own
 * (src/storage/object-store.ts).
 */
export const CONNECTION_ERRNOS: readonly string[] = [
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
];
