import type { QueueHandler } from './registry';

/** One handler per queue; workers/main.ts refuses to start unless every queue has exactly one. */
export const HANDLERS: QueueHandler[] = [];
