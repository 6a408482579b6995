/**
 * Socket and DNS errnos of a connection to a service the server talks to (Postgres, an S3 store) that could
 * not be made or was lost: the service's trouble for a while, answered 503, never the request's fault. The
 * database pool counts these (src/db/pool.ts); the object store counts a few more of its own as an HTTP
 * client (src/storage/object-store.ts). A network or host down or without a route (ENETUNREACH, ENETDOWN,
 * EHOSTDOWN) and a DNS server that cannot answer for now (EAI_AGAIN) are as much an outage: the pool
 * answered them 500 before, as if the request were a bug.
 */
export const CONNECTION_ERRNOS: readonly string[] = [
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
];
