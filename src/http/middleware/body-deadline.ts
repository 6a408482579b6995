import type { RequestHandler } from 'express';
import { AppError } from '../../domain/errors';
import { errorEnvelope, errorNameOf, sendErrorAnswer } from './errors';

/** How a request body must arrive (BODY_TIMEOUT_MS, BODY_MIN_BYTES_PER_SECOND). */
export interface BodyPace {
  /** The time every body has, however little of it arrived. */
  floorMs: number;
  /** The least rate a body must keep up, on average, past the floor: each such many bytes earn one more second. */
  minBytesPerSecond: number;
}

/**
 * When a body that has sent `receivedBytes` is due, in ms after the request reached the app: the floor, plus a
 * second for every `minBytesPerSecond` bytes that arrived (Apache's mod_reqtimeout `MinRate`, Kestrel's
 * MinRequestBodyDataRate). A client that keeps up the rate is never cut, however large its body; one that
 * stalls or drips is cut once its average falls below it, and by the floor at the latest when nothing comes.
 */
export function bodyDueAfterMs(pace: BodyPace, receivedBytes: number): number {
  return pace.floorMs + (receivedBytes * 1000) / pace.minBytesPerSecond;
}

/**
 * The longest time a body within `largestBodyBytes` that keeps the pace may take: what the server's
 * requestTimeout (request-timeouts.ts) must allow on top of the headers' time, so that it only stops what
 * the pace cannot (a route that stopped reading for good).
 */
export function longestBodyMs(pace: BodyPace, largestBodyBytes: number): number {
  return Math.ceil(bodyDueAfterMs(pace, largestBodyBytes));
}

/** How long a check waits while the app, not the client, holds up a body: it has bytes the app did not read. */
const APP_BEHIND_RECHECK_MS = 1000;

/**
 * A request body's deadline, on every route, uploads included: the server's requestTimeout let a client that
 * declared a body and sent it a byte at a time hold its connection, and a body-parser waiting on it, for
 * minutes, where headersTimeout closes a slowloris on the headers in 20 s; and one flat deadline either cut an
 * honest slow client of a large body (BODY_LIMIT raised, a 25 MiB upload) or let a dripping one hold on.
 * A body has `pace.floorMs` from the request reaching the app and a second more for every
 * `pace.minBytesPerSecond` bytes of it that arrive (bodyDueAfterMs); past that it is a 408 in the envelope and
 * the connection closes. A body still arriving after the answer went out (one the route did not read, which
 * Node reads off) has its connection closed then. While the app holds bytes of the body it has not read (a
 * route busy before it reads it), the client waits on the app: its time starts again, with the floor, from
 * the last moment the app was seen behind.
 *
 * The bytes are counted off the socket (bytesRead) when a timer fires, so nothing runs per chunk: the timer
 * first fires at the floor and, while the body keeps the pace, again when what had arrived by then is due.
 */
export function bodyDeadline(pace: BodyPace): RequestHandler {
  return (req, res, next) => {
    const declared =
      req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!declared || req.complete) {
      next();
      return;
    }
    const socket = req.socket;
    let started = Date.now();
    // The body's bytes already read off the socket wait in the request, unread yet: they count as arrived.
    let before = socket.bytesRead - req.readableLength;
    let timer: NodeJS.Timeout;
    const check = () => {
      if (req.complete) return;
      if (!res.headersSent && req.readableLength > 0) {
        // The app holds bytes it has not read, and Node stopped reading the socket: the client waits on the
        // app. Its time starts again from here, as it would once the app reads.
        started = Date.now();
        before = socket.bytesRead;
        schedule(APP_BEHIND_RECHECK_MS);
        return;
      }
      const dueAt = started + bodyDueAfterMs(pace, socket.bytesRead - before);
      const now = Date.now();
      if (now < dueAt) {
        schedule(dueAt - now);
        return;
      }
      if (!res.headersSent) {
        // renderErrors: the body's reader fails as the connection closes (body-parser's 'request aborted'),
        // after this answer went out, which is no news.
        res.locals.bodyTimedOut = true;
        const error = new AppError(408, {
          name: errorNameOf(408),
          message: bodyTooSlowMessage(pace),
        });
        res.set('Connection', 'close');
        sendErrorAnswer(res, 408, errorEnvelope(error));
      } else if (res.writableEnded) {
        socket.destroy();
      }
    };
    const schedule = (ms: number) => {
      timer = setTimeout(check, ms);
      timer.unref();
    };
    schedule(pace.floorMs);
    const clear = () => clearTimeout(timer);
    req.once('end', clear);
    req.once('close', clear);
    next();
  };
}

/** The 408's message: what the client must do, in its terms. */
export const bodyTooSlowMessage = (pace: BodyPace) =>
  `The request body did not arrive in time: a body has ${pace.floorMs / 1000} s, ` +
  `and 1 s more for every ${pace.minBytesPerSecond} bytes of it that arrive`;
