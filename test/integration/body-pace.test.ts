import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { bodyDeadline } from '../../src/http/middleware/body-deadline';

/**
 * The body deadline blames the client for a slow body, not the app: a route busy before it reads the body
 * (an upload's auth and sweep of old uploads, a database that answers slowly) leaves the bytes waiting in the
 * request, and Node stops reading the socket; what arrived by then must not make the client late.
 */
describe('the body deadline while the app does not read', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const app = express();
    // A floor of 2 s (the app is looked at once a second: the client's time starts again up to 1 s before the
    // app reads), and a pace of 8 MiB/s: the bytes Node reads off the socket before it stops (its buffers,
    // some kB; the rest waits in the kernel's) earn next to nothing, so without the new start the body is due
    // at 2 s, before the route reads at 5 s; once it reads, the 32 MiB earn 4 s more than the floor (a loaded
    // machine took over 2 s to move them within one process, where a pace of 1 GiB/s left it the floor alone).
    app.use(bodyDeadline({ floorMs: 2000, minBytesPerSecond: 8 * 1024 * 1024 }));
    app.post('/busy-first', async (req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      if (res.headersSent) return;
      let bytes = 0;
      for await (const chunk of req) bytes += (chunk as Buffer).length;
      res.json({ bytes });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    ({ port } = server.address() as AddressInfo);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('when a route reads a body only after the floor has passed, and the client sent it all at once, then it is taken', async () => {
    // More than the socket's buffers hold: the client waits on the app, not the other way round.
    const body = Buffer.alloc(32 * 1024 * 1024, 'a');
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/busy-first',
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream', 'content-length': body.length },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
    expect(answer).toEqual({ status: 200, text: JSON.stringify({ bytes: body.length }) });
  }, 30_000);
});
