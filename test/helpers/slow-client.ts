import { connect } from 'node:net';

/**
 * A slowloris client: sends a request line to `path` and then its headers a byte a second, and answers how many
 * seconds passed until the server closed the connection and what it sent. It gives up (closes) after 40 s.
 */
export function dripHeaders(
  host: string,
  port: number,
  path: string,
): Promise<{ seconds: number; text: string }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect({ host, port }, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nX-Slow: `));
    const drip = setInterval(() => socket.writable && socket.write('a'), 1000);
    const deadline = setTimeout(() => socket.destroy(), 40_000);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(deadline);
      resolve({ seconds: (Date.now() - started) / 1000, text });
    });
  });
}
