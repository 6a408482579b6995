import {
  createServer,
  maxHeaderSize,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { AppError } from '../domain/errors';
import { errorEnvelope, errorNameOf } from './middleware/errors';
import { helmetHeaders } from './middleware/security-headers';
import type { BodyPace } from './middleware/body-deadline';
import { apiRequestTimeouts } from './request-timeouts';

/**
 * How long an idle keep-alive connection stays open. Longer than the idle timeouts of the balancers and clients
 * in front (AWS ALB and nginx's upstream keepalive_timeout: 60 s; undici: 4 s), so that they close an idle
 * connection first: when the server closes one while the other side sends a request on it, that request fails
 * with a reset (a 502 behind a balancer). Node's default is 5 s.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Serves the app on `host:port`: the one way the API process (src/main.ts) and the tests' in-process app
 * start it, so both answer what never reaches Express (see clientErrorAnswerer) the same way. `bodies`, of
 * the config: what the server's requestTimeout must leave the largest body, JSON or upload (apiRequestTimeouts).
 */
export function listen(
  app: Express,
  port: number,
  host: string,
  bodies: {
    http: { bodyPace: BodyPace; bodyLimitBytes: number };
    mediaLibrary: { uploadMaxBytes: number };
  },
): Promise<Server> {
  const largestBodyBytes = Math.max(bodies.http.bodyLimitBytes, bodies.mediaLibrary.uploadMaxBytes);
  const draining = drainState();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    draining.admit(res);
    app(req, res);
  };
  // A missing Host and every Expect go to the app (admitRequest, json-body.ts), which answers them with the
  // envelope: Node's own handling answered a bare 400 or 417, and 100 Continue even to a body past the limit.
  const server = createServer(
    {
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      ...apiRequestTimeouts(bodies.http.bodyPace, largestBodyBytes),
      requireHostHeader: false,
    },
    handle,
  );
  drainStates.set(server, draining);
  server.on('clientError', clientErrorAnswerer());
  server.on('connect', connectAnswerer());
  server.on('checkContinue', handle);
  server.on('checkExpectation', handle);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** What an operator can do about a port that could not be opened, by the error's code. */
const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: 'another process is listening on that port',
  EACCES: 'permission denied (a port below 1024 needs privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
};

/**
 * What a process throws when its port cannot be opened: the address and the variables that set it, with what
 * it means. `listen EADDRINUSE: address already in use 127.0.0.1:9464` named no setting, and for the workers
 * did not say it was their metrics port. Any other error is returned as it is.
 */
export function listenStartError(error: unknown, host: string, port: number, variables: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const reason = typeof code === 'string' ? LISTEN_FAILURES[code] : undefined;
  if (reason === undefined) return error;
  return new Error(`cannot listen on ${host}:${port} (${variables}): ${reason} (${code as string})`, {
    cause: error,
  });
}

/** The responses of one server that are not finished yet, and whether it is draining (closeGracefully). */
interface DrainState {
  /** Tracks a response from its request's arrival; once draining, it closes its connection. */
  admit(res: ServerResponse): void;
  /** From now on every answer closes its connection (the ones in flight included). */
  drain(onIdle: () => void): void;
}

const drainStates = new WeakMap<Server, DrainState>();

function drainState(): DrainState {
  const inFlight = new Set<ServerResponse>();
  let onIdle: (() => void) | undefined;
  // After the answer went out: a connection whose answer was sent before draining began (so without
  // `Connection: close`) is idle now and closed by onIdle, not left open for the keep-alive timeout.
  const finished = (res: ServerResponse) => {
    inFlight.delete(res);
    if (onIdle) setImmediate(onIdle);
  };
  const closeAfter = (res: ServerResponse) => {
    // Node ends the connection once an answer that says `Connection: close` is sent.
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  return {
    admit(res) {
      inFlight.add(res);
      res.once('close', () => finished(res));
      if (onIdle) closeAfter(res);
    },
    drain(idle) {
      onIdle = idle;
      for (const res of inFlight) closeAfter(res);
    },
  };
}

/**
 * Stops the server as a balancer expects on SIGTERM: the port closes at once (new connections are refused),
 * idle keep-alive connections are closed, every request already received is answered, each of those
 * answers and any later one on an open connection says `Connection: close`, and every connection ends
 * after its answer. Resolves once the last connection has closed. Before, an answer in flight went out
 * with `Connection: keep-alive` and its connection stayed open, so clients kept sending requests on it and
 * the process waited out the 65 s keep-alive timeout (or was killed first).
 */
export function closeGracefully(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    const closeIdle = () => server.closeIdleConnections();
    drainStates.get(server)?.drain(closeIdle);
    closeIdle();
  });
}

/** How long a client that sent a request Node could not parse gets to read the answer before the socket goes. */
const LINGER_MS = 1000;

function clientErrorOf(code: string | undefined, message: string): AppError {
  const status =
    code === 'HPE_HEADER_OVERFLOW'
      ? 431
      : code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 408
        : code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? 413
          : 400;
  const explanation =
    status === 431
      ? `The request line and headers are larger than the ${maxHeaderSize / 1024} KB this server reads`
      : status === 408
        ? 'The request did not arrive in time'
        : `The request is not valid HTTP: ${message}`;
  return new AppError(status, { name: errorNameOf(status), message: explanation });
}

/**
 * The server's `clientError` handler, with the sockets it has answered (its own: nothing is kept per module).
 * A request Node's parser refuses (headers over the limit, a malformed request line or header, a timeout)
 * never reaches Express; without this Node answers a bare `431` or `400` with no body. This answers the
 * spec's envelope instead, as Node would have: only when nothing of another response went out on the socket.
 * Node may report the same socket again as more of the bad request arrives; it is answered once, and closed
 * after a moment so the client can read the answer first.
 */
function clientErrorAnswerer(): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  const answered = new WeakSet<Duplex>();
  const security = securityHeaderLines();
  return (error, socket) => {
    if (answered.has(socket)) return;
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    answerOnSocket(socket, clientErrorOf(error.code, error.message), security);
  };
}

/**
 * The server's `connect` handler. CONNECT (a proxy's tunnel) is no method of this API, but Node hands such a
 * request to a `connect` listener instead of the app, and without one destroyed the socket: the client got no
 * answer at all. It gets the plain 404 of any method a route lacks (errors.ts, noOptions), naming the target
 * it asked for, and the connection is closed (what follows on it would be the tunnel's bytes, not HTTP).
 */
function connectAnswerer(): (req: IncomingMessage, socket: Duplex) => void {
  const security = securityHeaderLines();
  return (req, socket) => {
    // Node took its own error listener off the socket it hands over: a client resetting it now would be an
    // uncaught 'error' that stops the process.
    socket.on('error', () => socket.destroy());
    answerOnSocket(socket, new AppError(404, { url: (req.url ?? '').split('?')[0] ?? '' }), security);
  };
}

/** The security headers every answer of the app carries (securityHeaders), as raw header lines. */
function securityHeaderLines(): string {
  return helmetHeaders()
    .set.map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}

/** Writes an error in the envelope straight to a socket the app never saw, and closes it after a moment. */
function answerOnSocket(socket: Duplex, appError: AppError, security: string): void {
  const body = JSON.stringify(errorEnvelope(appError));
  socket.end(
    `HTTP/1.1 ${appError.status} ${appError.reason}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      security +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
