import { longestBodyMs, type BodyPace } from './middleware/body-deadline';

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
 * requestTimeout: how long a whole request, body included, may take to arrive. The app bounds every body by
 * its pace (middleware/body-deadline.ts); this is the backstop behind it (apiRequestTimeouts), and on a
 * server that reads no body, the headers' timeout.
 *
 * connectionsCheckingInterval: how often Node looks for requests past those timeouts (its default, 30 s, let
 * them run that much longer).
 */
export const SLOW_CLIENT_TIMEOUTS = {
  headersTimeout: 20_000,
  requestTimeout: 300_000,
  connectionsCheckingInterval: 2_000,
} as const;

/**
 * The API's timeouts: requestTimeout leaves the largest body it takes (`largestBodyBytes`, of JSON or an
 * upload) the time its pace gives it after the headers, never less than Node's 300 s. Node's flat 300 s cut an
 * upload larger than 300 s at the pace (25 MiB at 16 KiB/s takes 1,600 s), which the app's deadline allows.
 */
export function apiRequestTimeouts(
  pace: BodyPace,
  largestBodyBytes: number,
): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  const { headersTimeout } = SLOW_CLIENT_TIMEOUTS;
  return {
    ...SLOW_CLIENT_TIMEOUTS,
    requestTimeout: Math.max(
      SLOW_CLIENT_TIMEOUTS.requestTimeout,
      headersTimeout + longestBodyMs(pace, largestBodyBytes),
    ),
  };
}
