import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** A PNG of `width` × `height` pixels of noise (so it does not compress to nothing), made by sharp. */
export async function noisePng(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let index = 0; index < pixels.length; index += 1) pixels[index] = (index * 7919) % 251;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A JPEG of one colour. */
export async function solidJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .jpeg()
    .toBuffer();
}

export interface ImageServer {
  url: string;
  /** How many requests each path got. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A local HTTP server playing the web an import downloads from: images (sent with a lying Content-Type, so
 * the test shows the bytes decide), text, a truncated image, an empty file, a redirect chain and a redirect loop, a server
 * that never answers, one that sends more than it announced, and a 404.
 */
export async function startImageServer(files: {
  png: Buffer;
  jpeg: Buffer;
  /** More files by path, each with the Content-Type it is sent with. */
  others?: Record<string, { type: string; body: Buffer }>;
}): Promise<ImageServer> {
  const hits = new Map<string, number>();
  const sockets = new Set<import('node:net').Socket>();
  const send = (res: ServerResponse, type: string, body: Buffer) => {
    res.writeHead(200, { 'content-type': type, 'content-length': body.length });
    res.end(body);
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const redirect = /^\/redirect\/(\d+)$/.exec(url.pathname);
    if (redirect) {
      const left = Number(redirect[1]);
      res.writeHead(302, { location: left === 0 ? '/photo.png' : `/redirect/${left - 1}` });
      res.end();
      return;
    }
    switch (url.pathname) {
      case '/photo.png':
        return send(res, 'text/plain', files.png);
      case '/photos/Sommer%20Bild.jpg':
        return send(res, 'image/jpeg', files.jpeg);
      case '/truncated.png':
        return send(res, 'image/png', files.png.subarray(0, Math.floor(files.png.length * 0.6)));
      case '/notes.txt':
        return send(res, 'image/png', Buffer.from('these are not the bytes of an image\n'.repeat(20)));
      case '/report.pdf':
        return send(res, 'application/pdf', Buffer.from('%PDF-1.4 not really a pdf'));
      case '/empty.pdf':
        return send(res, 'application/pdf', Buffer.alloc(0));
      case '/loop-a':
        res.writeHead(301, { location: '/loop-b' });
        return res.end();
      case '/loop-b':
        res.writeHead(301, { location: '/loop-a' });
        return res.end();
      case '/to-file':
        res.writeHead(302, { location: 'file:///etc/passwd' });
        return res.end();
      case '/hang':
        return; // never answers
      case '/unannounced-big': {
        // No Content-Length: the size is only known while the bytes come.
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(Buffer.concat([files.png, Buffer.alloc(300 * 1024)]));
        return;
      }
      default: {
        const other = files.others?.[url.pathname];
        if (other) return send(res, other.type, other.body);
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
      }
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
