/**
 * The pixels this process may be decoding at once, above which most of an image check's memory is: libvips
 * holds about 18 bytes per pixel decoding an AVIF, so ~900 MB for one image at the 50 MP default of
 * MEDIA_MAX_IMAGE_PIXELS. Two of the largest images at once, and never more than 100 MP unless one image alone
 * is allowed more than that (it then runs alone).
 *
 * A budget in pixels rather than a count of decodes: many small images (the usual upload) still run side by
 * side, while large ones queue. Memory grows with pixels, not with the number of images.
 */
export function decodeBudgetPixels(maxImagePixels: number): number {
  return Math.max(maxImagePixels, Math.min(2 * maxImagePixels, 100_000_000));
}

/** The request's client went away before its work began (an image check still waiting for the budget). */
export class RequestAbandonedError extends Error {
  constructor() {
    super('the client closed the connection before the request was answered');
    this.name = 'RequestAbandonedError';
  }
}

interface Waiter {
  pixels: number;
  grant: () => void;
}

/**
 * A semaphore over pixels, first come first served: an image waits until its pixels fit beside those being
 * decoded, and one that does not fit holds up the ones behind it, so a large image is never starved by a
 * stream of small ones. An image larger than the whole budget waits until nothing else is decoded.
 */
export class DecodeBudget {
  private used = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly pixels: number) {}

  /** Pixels being decoded now. */
  get inUse(): number {
    return this.used;
  }

  /** Image checks waiting for their turn. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `work` once `pixels` fit in the budget. Waiting ends early with RequestAbandonedError when `signal`
   * aborts (the request's client went away): the place in the queue is given up and `work` never runs.
   */
  async run<T>(pixels: number, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const weight = Math.min(Math.max(1, pixels), this.pixels);
    await this.acquire(weight, signal);
    try {
      return await work();
    } finally {
      this.used -= weight;
      this.grantWaiting();
    }
  }

  private acquire(pixels: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new RequestAbandonedError());
    if (this.queue.length === 0 && this.used + pixels <= this.pixels) {
      this.used += pixels;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.queue.indexOf(waiter);
        if (at === -1) return;
        this.queue.splice(at, 1);
        reject(new RequestAbandonedError());
        // The one that left may have held up smaller ones behind it that fit now.
        this.grantWaiting();
      };
      const waiter: Waiter = {
        pixels,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private grantWaiting(): void {
    for (;;) {
      const next = this.queue[0];
      if (!next || this.used + next.pixels > this.pixels) return;
      this.queue.shift();
      this.used += next.pixels;
      next.grant();
    }
  }
}
