import { open } from 'node:fs/promises';
import { readVideoFacts, type VideoFacts } from '../domain/video-header';

/**
 * A staged file's video facts (duration, width, height) from its container's header (src/domain/video-header.ts):
 * a few small reads at the offsets the header names, never the whole file. Undefined when the bytes are no
 * MP4/MOV or Matroska/WebM, say none of them, or cannot be read.
 */
export async function probeVideo(path: string): Promise<VideoFacts | undefined> {
  let file;
  try {
    file = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = await file.stat();
    return await readVideoFacts({
      size,
      async read(offset, length) {
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
        let filled = 0;
        while (filled < buffer.length) {
          const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, offset + filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        return buffer.subarray(0, filled);
      },
    });
  } finally {
    await file.close().catch(() => undefined);
  }
}
