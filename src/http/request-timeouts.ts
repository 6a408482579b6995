/**
 * The timeouts of a request's arrival, for every HTTP server of the project (the API, src/http/server.ts, and
 * the workers' metrics and probes, src/metrics/server.ts), given to node:http's createServer.
 *
 * headersTimeout: how long a request's line and headers may take to arrive, counted from its first byte (a
 * trickle of bytes does not extend it); past it the client gets a 408 and the connection closes. Node's default
 * of 60 s, checked every 30 s, let a client that sends its headers a byte at a time (slowloris) hold a
 * connection, and a file descriptor, for up to 90 s: a few hundred such connections a second used up the
 * process's descriptors. Real clients send their headers in one packet. Idle keep-alive connections are not
 * affected (keepAliveTimeout).
 *
 * requestTimeout: how long a whole request, body included, may take to arrive (Node's default, said here): a
 * 25 MiB upload at 1 Mbit/s. Every other body has a shorter deadline of the app's
 * (middleware/body-deadline.ts).
 *
 * connectionsCheckingInterval: how often Node looks for requests past those timeouts (its default, 30 s, let
 * them run that much longer).
 */
export const SLOW_CLIENT_TIMEOUTS = {
  headersTimeout: 20_000,
  requestTimeout: 300_000,
  connectionsCheckingInterval: 2_000,
} as const;
