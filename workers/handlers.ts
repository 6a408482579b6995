import type { Config } from '../src/config';
import { importDocumentsHandler } from './import-documents';
import { importWebhookHandler } from './import-webhook';
import { indexDocumentHandler } from './index-document';
import { indexDocumentsHandler } from './index-documents';
import { reEnrichDocumentHandler } from './re-enrich-document';
import type { QueueHandler } from './registry';
import { scheduledPublishHandler } from './scheduled-publish';
import { scheduledUnpublishHandler } from './scheduled-unpublish';

/** One handler per queue; workers/main.ts refuses to start unless every queue has exactly one. */
export function queueHandlers(config: Config): QueueHandler[] {
  return [
    scheduledPublishHandler,
    scheduledUnpublishHandler,
    indexDocumentHandler(config.indexer.batchSize),
    indexDocumentsHandler(config.indexer.batchSize),
    importDocumentsHandler,
    importWebhookHandler,
    reEnrichDocumentHandler,
  ];
}
