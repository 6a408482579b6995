/**
 * A long computation as steps (a generator that yields where it may stop and returns its answer), so that
 * it can run at once (finishSteps) or in slices with the event loop running in between (runInSlices in
 * src/time-slices.ts). The renders of a large content are such: seconds of CPU for a 2 MB one.
 */
export type Steps<T = string> = Generator<void, T, void>;

/**
 * Asked before each step: true to stop (yield) there. `work` is how much was done since the last ask, in
 * elements of a render (1 by default); a step that can be large (a document, a serialised value) says more.
 */
export type Pause = (work?: number) => boolean;

/** The answer, computed without stopping. */
export function finishSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
  }
}
