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
  return drip(host, port, {
    head: `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Slow: `,
    next: () => 'a',
    everyMs: 1000,
    giveUpMs: 40_000,
  });
}

/**
 * A client that sends a request's line and headers at once, then its body in `pieces`, one every `everyMs`, and
 * answers how many seconds passed until the server closed the connection and what it sent. It stops sending
 * once answered and gives up (closes) after `giveUpMs`. With `ignoreAnswer` it is an attacker's: it goes on
 * sending after the answer and never ends the connection itself, so the seconds are how long the server let it
 * hold the connection.
 */
export function dripBody(
  host: string,
  port: number,
  request: { head: string; pieces: Buffer[]; everyMs: number; giveUpMs: number; ignoreAnswer?: boolean },
): Promise<{ seconds: number; text: string }> {
  let at = 0;
  return drip(host, port, {
    ...request,
    next: () => request.pieces[at++],
    // A server that answered but keeps the connection open (keep-alive): the answer is all there is.
    endOnKeepAliveAnswer: request.ignoreAnswer !== true,
    sendAfterAnswer: request.ignoreAnswer === true,
  });
}

/**
 * Sends `head` at once, then what `next` gives, one every `everyMs`, until it gives nothing (the whole body
 * sent: a client then waits for its answer) or the server answers; closes after `giveUpMs`.
 */
function drip(
  host: string,
  port: number,
  client: {
    head: string;
    next: () => string | Buffer | undefined;
    everyMs: number;
    giveUpMs: number;
    endOnKeepAliveAnswer?: boolean;
    sendAfterAnswer?: boolean;
  },
): Promise<{ seconds: number; text: string }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect({ host, port }, () => socket.write(client.head));
    const dripping = setInterval(() => {
      const piece = client.next();
      if (piece === undefined) clearInterval(dripping);
      else if (socket.writable) socket.write(piece);
    }, client.everyMs);
    const deadline = setTimeout(() => socket.destroy(), client.giveUpMs);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      // Answered: a client stops sending. A byte dripped after the server closed its end is answered with a
      // reset, which can also drop the answer still unread (seen in a CI run: ECONNRESET, no 408).
      if (!client.sendAfterAnswer) clearInterval(dripping);
      if (client.endOnKeepAliveAnswer && /\r\n\r\n/.test(text) && !/connection: close/i.test(text))
        socket.end();
    });
    // A reset (or a write refused, EPIPE) after the answer arrived is the connection closing; before any answer
    // it is a failure.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if ((error.code === 'ECONNRESET' || error.code === 'EPIPE') && text !== '') socket.destroy();
      else reject(error);
    });
    socket.on('close', () => {
      clearInterval(dripping);
      clearTimeout(deadline);
      resolve({ seconds: (Date.now() - started) / 1000, text });
    });
  });
}
