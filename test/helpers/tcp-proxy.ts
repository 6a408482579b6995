import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a real service, so a test can take "the service" away without touching the
 * service itself (the run's Elasticsearch is shared): `down('refuse')` closes the port (connection refused),
 * `down('hang')` accepts connections and never answers (a stuck node), `down('stall')` also keeps the open
 * connections open but passes nothing more on them, with no close or reset (a host gone from the network, a
 * failover behind a virtual IP), `up()` forwards again.
 */
export interface TcpProxy {
  url: string;
  down(mode: 'refuse' | 'hang' | 'stall'): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  let mode: 'forward' | 'hang' = 'forward';
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (mode === 'hang') return;
    const upstream = net.connect(Number(target.port), target.hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  const dropConnections = () => {
    for (const socket of sockets) socket.destroy();
  };

  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async down(next) {
      if (next === 'refuse') {
        const closed = stopListening();
        dropConnections();
        await closed;
      } else if (next === 'hang') {
        mode = 'hang';
        dropConnections();
      } else {
        mode = 'hang';
        for (const socket of sockets) {
          socket.unpipe();
          socket.pause();
        }
      }
    },
    async up() {
      mode = 'forward';
      dropConnections();
      if (!server.listening) await listen(port);
    },
    async close() {
      const closed = stopListening();
      dropConnections();
      await closed;
    },
  };
}
