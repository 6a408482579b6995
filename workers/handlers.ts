import { importDocumentsHandler } from './import-documents';
import { indexDocumentQueueHandler } from './index-document';
import type { QueueHandler } from './registry';
import { scheduledPublishHandler } from './scheduled-publish';
import { scheduledUnpublishHandler } from './scheduled-unpublish';

/** One handler per queue; workers/main.ts refuses to start unless every queue has exactly one. */
export const HANDLERS: QueueHandler[] = [
  scheduledPublishHandler,
  scheduledUnpublishHandler,
  indexDocumentQueueHandler,
  importDocumentsHandler,
];
