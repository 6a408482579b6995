import type { Pause, Steps } from './domain/steps';
import { RequestAbandonedError } from './media/decode-budget';

/** How long one slice of a long computation may keep the event loop before letting other work run. */
export const SLICE_MS = 10;

/**
 * Work (see Pause) between two reads of the clock: an element of a render is a fraction of a microsecond.
 * A step that is large work by itself (a document) says SLICE_WORK, so that the clock is read before it.
 */
export const SLICE_WORK = 32;

/**
 * Runs `make`'s steps in slices of about SLICE_MS, letting the event loop run (setImmediate) between them:
 * a request that renders a 2 MB content spends seconds of CPU, and every other request of the process
 * waited for all of it. The pause is asked often (before each element); the clock is read once 32 elements'
 * work was done (every 32 asks of a render). Once `signal` is aborted (the client went away) no further slice
 * runs (nor the first, when it was aborted already): the promise rejects with RequestAbandonedError (answered
 * to nobody, not logged as a bug).
 */
export async function runInSlices<T>(make: (pause: Pause) => Steps<T>, signal?: AbortSignal): Promise<T> {
  throwIfAbandoned(signal);
  let deadline = performance.now() + SLICE_MS;
  let work = 0;
  const pause: Pause = (done = 1) => {
    work += done;
    if (work < SLICE_WORK) return false;
    work = 0;
    return performance.now() >= deadline;
  };
  const steps = make(pause);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
    throwIfAbandoned(signal);
    deadline = performance.now() + SLICE_MS;
  }
}

/**
 * Throws RequestAbandonedError once `signal` (the request's lifetime, see requestLifetime) is aborted: between
 * the steps of a read (a 30 MB row read from Postgres, then its view and render), so the next one is not begun
 * for a client that is gone.
 */
export function throwIfAbandoned(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new RequestAbandonedError();
}
