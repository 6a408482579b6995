import type { Pause, Steps } from './domain/steps';

/** How long one slice of a long computation may keep the event loop before letting other work run. */
export const SLICE_MS = 10;

/**
 * Runs `make`'s steps in slices of about SLICE_MS, letting the event loop run (setImmediate) between them:
 * a request that renders a 2 MB content spends seconds of CPU, and every other request of the process
 * waited for all of it. The pause is asked often (before each element); the clock is read every 32 asks.
 */
export async function runInSlices<T>(make: (pause: Pause) => Steps<T>): Promise<T> {
  let deadline = performance.now() + SLICE_MS;
  let asked = 0;
  const pause: Pause = () => {
    asked += 1;
    return (asked & 31) === 0 && performance.now() >= deadline;
  };
  const steps = make(pause);
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
    deadline = performance.now() + SLICE_MS;
  }
}
