import { Readable } from 'node:stream';
import { DEFAULT_MAX_IMAGE_PIXELS } from '../domain/media';
import { withTransaction } from '../db/pool';
import { designQueries } from '../db/queries/designs';
import { documentListQueries } from '../db/queries/document-lists';
import { projectQueries } from '../db/queries/projects';
import { ApiVersion } from '../domain/api-versions';
import type { ImportDocument, ImportLog } from '../domain/import-request';
import { MAX_IMPORT_DOCUMENTS } from '../domain/import-request';
import {
  DEMO_DESIGN,
  DEMO_HANDLE,
  DEMO_SYSTEM,
  demoArticles,
  demoAuthors,
  demoConfig,
  demoMedia,
  demoMenu,
  demoPages,
  type DemoMedia,
} from '../demo/content';
import { solidPng } from '../demo/png';
import { MIN_DEMO_DOCUMENTS } from '../demo/minimum';
import { Random } from '../demo/random';
import type { DemoImage } from '../demo/content';
import type { Logger } from '../logger';
import type { ObjectStore } from '../storage/object-store';
import { DecodeBudget, decodeBudgetPixels } from '../media/decode-budget';
import { importMedia } from './import-media';
import { uploadMedia } from './upload-media';
import { applyProjectConfig } from './apply-project-config';
import { createProject } from './create-project';
import { importDocumentsNow, type ImportDeps } from './import-documents';
import { loadMenu } from './load-menu';
import { publicAddressPolicy } from '../domain/public-addresses';
import { withoutTrailingSlashes } from '../domain/trailing-slashes';

export interface DemoOptions {
  documents: number;
  seed?: number;
  /** Base URL of the API, for the image URLs of the media entries. */
  publicBaseUrl: string;
  onProgress?: (phase: string, done: number, total: number) => void;
  /**
   * Aborted (Ctrl-C), the import in flight lets its batches commit and ends its job failed, and nothing after
   * it starts: loadDemo rejects with DemoInterrupted. Killed instead, the job stayed 'started' for good.
   */
  signal?: AbortSignal;
}

/** loadDemo stopped by its signal: what was written stays, and running the demo again finishes it. */
export class DemoInterrupted extends Error {}

/** What the demo needs besides the document import: the media library's store, where its images go. */
export type DemoDeps = ImportDeps & { objects: ObjectStore; logger: Logger };

export interface DemoSummary {
  projectId: number;
  created: boolean;
  documents: { authors: number; articles: number; pages: number; published: number; failed: number };
  languages: Record<string, number>;
  media: number;
  /** A serve-image URL of one demo image, to try the media library with a token of the project. */
  sampleImageUrl: string;
  lists: number;
  menus: number;
  categories: number;
  homepageDocumentId: number;
}

const MEDIA_COUNT = 24;

export { MIN_DEMO_DOCUMENTS } from '../demo/minimum';

/**
 * `broadsheet demo`: creates the demo project (once) and loads deterministic content through the same import
 * use case the API runs, published with autoPublish. Re-running updates the same documents by external id.
 */
export async function loadDemo(deps: DemoDeps, options: DemoOptions): Promise<DemoSummary> {
  const random = new Random(options.seed ?? 20260115);
  const existing = await projectQueries(deps.pool).findByHandle(DEMO_HANDLE);
  const projectId = existing
    ? existing.id
    : (await createProject(deps.pool, { config: demoConfig(), designs: [DEMO_DESIGN] })).projectId;
  if (existing) await designQueries(deps.pool).insert(projectId, DEMO_DESIGN, true);

  const media = await importDemoMedia(deps, projectId, demoMedia(random, MEDIA_COUNT), options.publicBaseUrl);

  const total = Math.max(options.documents, MIN_DEMO_DOCUMENTS);
  const authorCount = Math.max(10, Math.round(total * 0.02));
  const pageCount = Math.max(5, Math.round(total * 0.01));
  const articleCount = total - authorCount - pageCount;

  const version = ApiVersion.latest();
  const failed: ImportLog[] = [];
  const run = async (phase: string, documents: ImportDocument[]): Promise<number[]> => {
    const ids: number[] = [];
    for (let start = 0; start < documents.length; start += MAX_IMPORT_DOCUMENTS) {
      const batch = documents.slice(start, start + MAX_IMPORT_DOCUMENTS);
      if (options.signal?.aborted) throw new DemoInterrupted(`interrupted while loading the ${phase}`);
      const job = await importDocumentsNow(
        deps,
        projectId,
        version,
        { systemName: DEMO_SYSTEM, documents: batch },
        {
          onProgress: (done) => options.onProgress?.(phase, start + done, documents.length),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      );
      if (options.signal?.aborted) throw new DemoInterrupted(`interrupted while loading the ${phase}`);
      for (const log of job.logs) {
        if (log.state === 'failed') failed.push(log);
        else if (log.document_id !== null) ids.push(log.document_id);
      }
    }
    return ids;
  };

  const authorIds = await run('authors', demoAuthors(random, authorCount));
  const articles = demoArticles(random, articleCount, authorIds, media);
  const articleIds = await run('articles', articles);
  const pageIds = await run('pages', demoPages(random, pageCount, articleIds));
  if (failed.length > 0) {
    throw new Error(
      `${failed.length} demo documents failed, first: ${failed[0]!.external_id}: ${failed[0]!.reason ?? ''}`,
    );
  }
  const homepageDocumentId = pageIds[0]!;

  const project = (await projectQueries(deps.pool).findById(projectId))!;
  if (project.config.settings.homepageDocumentId !== homepageDocumentId) {
    const applied = await applyProjectConfig(deps, projectId, {
      plan: false,
      projectConfig: demoConfig(homepageDocumentId),
    });
    if (!applied.ok) throw new Error(`the demo config is invalid: ${JSON.stringify(applied.schemaErrors)}`);
  }

  const lists = [
    { name: 'Front page', ids: articleIds.slice(0, 20) },
    { name: 'Editor picks', ids: random.sample(articleIds, 15) },
    { name: 'Weekend reads', ids: random.sample(articleIds, 10) },
  ];
  await withTransaction(deps.pool, async (tx) => {
    for (const list of lists) await documentListQueries(tx).replace(projectId, list.name, list.ids);
  });

  await loadMenu(deps.pool, { projectId, menu: demoMenu(pageIds) });

  const languages: Record<string, number> = {};
  for (const article of articles) {
    const locale = (article.metadata.language as { locale: string }).locale;
    languages[locale] = (languages[locale] ?? 0) + 1;
  }
  return {
    projectId,
    created: !existing,
    documents: {
      authors: authorIds.length,
      articles: articleIds.length,
      pages: pageIds.length,
      published: authorIds.length + articleIds.length + pageIds.length,
      failed: failed.length,
    },
    languages,
    media: media.length,
    sampleImageUrl: media[0]!.url,
    lists: lists.length,
    menus: 1,
    categories: project.config.categories.length,
    homepageDocumentId,
  };
}

/**
 * The demo's images, generated PNGs, go in through the media library's own way in: each uploaded (probed and
 * put in the object store) and imported by its external id, so a second run updates the same entries.
 */
async function importDemoMedia(
  deps: DemoDeps,
  projectId: number,
  media: readonly DemoMedia[],
  publicBaseUrl: string,
): Promise<DemoImage[]> {
  const decodeBudget = new DecodeBudget(decodeBudgetPixels(DEFAULT_MAX_IMAGE_PIXELS));
  const uploadDeps = {
    ...deps,
    uploadMaxBytes: 10 * 1024 * 1024,
    maxImagePixels: DEFAULT_MAX_IMAGE_PIXELS,
    decodeBudget,
  };
  const inputs = [];
  for (const item of media) {
    const bytes = solidPng(item.width, item.height, item.rgb);
    const upload = await uploadMedia(uploadDeps, projectId, {
      body: Readable.from([bytes]),
      contentType: 'image/png',
      contentLength: bytes.length,
      filename: item.filename,
    });
    inputs.push({
      ok: true as const,
      entry: {
        id: item.id,
        systemName: DEMO_SYSTEM,
        externalId: item.id,
        mediaType: 'image' as const,
        asset: { uploadId: upload.uploadId },
        metadata: { title: item.title, caption: item.title },
        translations: [],
      },
    });
  }
  // Every asset is an upload: nothing is downloaded, so downloads are refused outright.
  const download = { maxBytes: 0, timeoutMs: 1, maxRedirects: 0, allowPrivate: false };
  const addresses = publicAddressPolicy();
  const results = await importMedia(
    { ...deps, download, addresses, maxImagePixels: DEFAULT_MAX_IMAGE_PIXELS, decodeBudget },
    projectId,
    inputs,
    {
      baseUrl: withoutTrailingSlashes(publicBaseUrl),
      version: ApiVersion.latest(),
    },
  );
  return results.map((result, index) => {
    if (!result.ok) {
      throw new Error(`demo image ${media[index]!.id} failed: ${JSON.stringify(result.error_details)}`);
    }
    const asset = result.record.asset!;
    return {
      id: result.id,
      url: asset.url,
      width: asset.width!,
      height: asset.height!,
      mimeType: asset.mimeType,
    };
  });
}
