import type sharp from 'sharp';
import { DEFAULT_MAX_IMAGE_PIXELS, IMAGE_FORMATS } from '../domain/media';
import { lazyModule } from '../lazy-module';
import type { DecodeBudget } from './decode-budget';

/** sharp and libvips: loaded at the first probe, which only an upload or a media import makes. */
const loadSharp = lazyModule<typeof sharp>('sharp');

export interface ImageFacts {
  mimeType: string;
  extension: string;
  width: number;
  height: number;
}

/**
 * What the bytes of a staged file are, read by decoding them with sharp (libvips): the format, its mime type
 * and the dimensions. Undefined with a reason when they are not an image of an accepted format, or a
 * truncated or corrupt one (the whole image is decoded, so a cut file is found, not only a bad header), or
 * one of more than `maxPixels` pixels: that is found from the header alone, before any pixel is decoded.
 * The decoding waits for its pixels in the process's `budget`, for no longer than `signal` (the request's
 * lifetime) lasts: then it rejects with RequestAbandonedError.
 */
export async function probeImage(
  path: string,
  options: { maxPixels?: number; budget: DecodeBudget; signal?: AbortSignal | undefined },
): Promise<{ ok: true; facts: ImageFacts } | { ok: false; reason: string }> {
  const { maxPixels = DEFAULT_MAX_IMAGE_PIXELS, budget, signal } = options;
  const openImage = loadSharp();
  let metadata: sharp.Metadata;
  try {
    // The header only: no pixel is decoded, so whatever it declares costs nothing yet (checked just below).
    metadata = await openImage(path, { failOn: 'truncated', limitInputPixels: false }).metadata();
  } catch {
    return {
      ok: false,
      reason: 'is not an image in a format the library reads (JPEG, PNG, WebP, GIF, AVIF, TIFF)',
    };
  }
  const format = metadata.format === 'heif' && metadata.compression === 'av1' ? 'avif' : metadata.format;
  const known = IMAGE_FORMATS[format];
  if (!known || !metadata.width || !metadata.height) {
    return {
      ok: false,
      reason: `is a ${String(metadata.format)} image, not one of the accepted formats (JPEG, PNG, WebP, GIF, AVIF, TIFF)`,
    };
  }
  // Of an animation, the first frame is decoded (sharp's default): its frame is what counts.
  const height = metadata.pageHeight ?? metadata.height;
  if (metadata.width * height > maxPixels) {
    return {
      ok: false,
      reason:
        `is a ${metadata.width} x ${height} pixel ${format.toUpperCase()} image, more than the ${maxPixels} ` +
        'pixels an image may have (MEDIA_MAX_IMAGE_PIXELS)',
    };
  }
  // Decodes every pixel (sequentially, in strips): a truncated or corrupt image fails here. Its memory grows
  // with its pixels, so it waits until they fit in the process's budget.
  const decoded = await budget.run(
    metadata.width * height,
    () =>
      openImage(path, { failOn: 'truncated', sequentialRead: true, limitInputPixels: maxPixels })
        .stats()
        .then(
          () => true,
          () => false,
        ),
    signal,
  );
  if (!decoded) return { ok: false, reason: `is a truncated or corrupt ${format.toUpperCase()} image` };
  return {
    ok: true,
    facts: {
      mimeType: known.mimeType,
      extension: known.extension,
      width: metadata.width,
      height: metadata.height,
    },
  };
}
