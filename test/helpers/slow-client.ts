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
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      // Answered: a client stops sending. A byte dripped after the server closed its end is answered with a
      // reset, which can also drop the answer still unread (seen in a CI run: ECONNRESET, no 408).
      clearInterval(drip);
    });
    // A reset after the answer arrived is the connection closing; before any answer it is a failure.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' && text !== '') socket.destroy();
      else reject(error);
    });
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(deadline);
      resolve({ seconds: (Date.now() - started) / 1000, text });
    });
  });
}

/**
 * A client that sends a request's line and headers at once, then its body in `pieces`, one every `everyMs`, and
 * answers how many seconds passed until the server closed the connection and what it sent. It stops sending
 * once answered and gives up (closes) after `giveUpMs`.
 */
export function dripBody(
  host: string,
  port: number,
  request: { head: string; pieces: Buffer[]; everyMs: number; giveUpMs: number },
): Promise<{ seconds: number; text: string }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let text = '';
    let next = 0;
    const socket = connect({ host, port }, () => socket.write(request.head));
    const drip = setInterval(() => {
      const piece = request.pieces[next++];
      if (piece && socket.writable) socket.write(piece);
      // The whole body sent: a client then waits for its answer.
      if (next >= request.pieces.length) clearInterval(drip);
    }, request.everyMs);
    const deadline = setTimeout(() => socket.destroy(), request.giveUpMs);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      clearInterval(drip);
      // A server that answered but keeps the connection open (keep-alive): the answer is all there is.
      if (/\r\n\r\n/.test(text) && !/connection: close/i.test(text)) socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' && text !== '') socket.destroy();
      else reject(error);
    });
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(deadline);
      resolve({ seconds: (Date.now() - started) / 1000, text });
    });
  });
}
