import type { ServerResponse } from 'node:http';

/**
 * Aborts when the request's client goes away before its answer is sent (the connection closed under it), so
 * work that only waits for its turn (an image check queued for the decode budget) gives up its place. `close`
 * of the response is the one event that says so in every case: the request's own `close` also comes once its
 * body has been read.
 */
export function requestLifetime(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (res.closed) controller.abort();
  else {
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
  }
  return controller.signal;
}
