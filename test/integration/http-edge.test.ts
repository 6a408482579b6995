import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { ALL_SCOPES, createTestProject, READ, tokenFor, WRITE } from '../helpers/factories';
import { PROTOTYPE_NAMES } from '../helpers/hostile-input';
import { apiClient, envelope } from '../helpers/http';
import { noisePng } from '../helpers/image-server';
import { dripBody, dripHeaders } from '../helpers/slow-client';

/**
 * What an outside probe broke at the HTTP edge (issue 8): malformed percent-encoding, NUL bytes, bodies that
 * do not decode or are not JSON, Object.prototype names as versions, oversized headers and ids beyond
 * JavaScript's safe integers. Every answer is the spec's envelope with a 4xx, never a 500.
 */
let app: TestApp;
let projectId: number;
let documentId: number;
let readToken: string;
let writeToken: string;
let everyScope: string;

beforeAll(async () => {
  app = await startTestApp();
  ({ projectId } = await createTestProject(app.ctx));
  ({ documentId } = await createPublishedDocument(app.ctx, projectId, { metadata: { title: 'Edge' } }));
  ({ token: readToken } = await tokenFor(app.ctx, projectId, READ));
  ({ token: writeToken } = await tokenFor(app.ctx, projectId, WRITE));
  ({ token: everyScope } = await tokenFor(app.ctx, projectId, ALL_SCOPES));
});
afterAll(() => app.close());

describe('malformed percent-encoding in the path', () => {
  it('when the version segment does not decode, then 400 naming the segment, no token needed', async () => {
    const response = await apiClient(app.url).get('/api/%FF/health');
    expect(response.status).toBe(400);
    expect(response.body).toEqual(envelope(400, 'Bad Request', { name: 'ValidationError' }));
    expect(response.body.error_details.message).toContain("'%FF'");
  });

  it('when a path parameter does not decode, then 400 naming it', async () => {
    const response = await apiClient(app.url, readToken).get(
      '/api/2025-07/documents/1%E0%A4%A/latestPublication',
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual(envelope(400, 'Bad Request', { name: 'ValidationError' }));
    expect(response.body.error_details.message).toContain("'1%E0%A4%A'");
    const bare = await apiClient(app.url, readToken).get('/api/2025-07/documents/%FF/latestPublication');
    expect(bare.status).toBe(400);
  });
});

describe('malformed percent-encoding in the query', () => {
  const NOT_DECODED = /^must be percent-encoded UTF-8: '.*' does not decode \(send a % itself as %25\)$/;

  it('when a value does not decode (not UTF-8, a % without two hex digits), then 400 naming the parameter, on every kind of route', async () => {
    const cases: [string, string][] = [
      // The hot reads (their parsed queries are cached) and the other reads alike.
      ['publications/search?search=caf%C3%A9%E9&limit=1', 'search'],
      ['publications/search?limit=1&filters=%7B%zz', 'filters'],
      ['documents/latestPublications?contentTypes=regular,%C0%AF', 'contentTypes'],
      ['publicationEvents?contentTypes[]=%FF', 'contentTypes'],
      [`documents/${documentId}/latestPublication?componentConditions=%E2%9C`, 'componentConditions'],
      ['mediaLibrary?ids=a,b%ED%A0%80', 'ids'],
    ];
    for (const [path, parameter] of cases) {
      const response = await apiClient(app.url, everyScope).get(path);
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 400,
        body: envelope(400, 'Bad Request', {
          name: 'ValidationError',
          [parameter]: expect.stringMatching(NOT_DECODED),
        }),
      });
    }
    // `name` is a key of the envelope itself: its problem is told in `message` (validationDetails).
    const lists = await apiClient(app.url, readToken).get('document-lists?name=100%');
    expect(lists.status).toBe(400);
    expect(lists.body.error_details).toEqual({
      name: 'ValidationError',
      message: "name: must be percent-encoded UTF-8: '100%' does not decode (send a % itself as %25)",
    });
    const write = await apiClient(app.url, writeToken).patch(`documents/${documentId}/commands?version=%FF`, {
      commands: [{ operation: 'publish' }],
    });
    expect(write.status).toBe(400);
    expect(write.body.error_details).toEqual({
      name: 'ValidationError',
      version: expect.stringMatching(NOT_DECODED),
    });
  });

  it('when a parameter name does not decode, then 400 naming it as sent', async () => {
    const response = await apiClient(app.url, readToken).get('documents/latestPublications?li%FFmit=1');
    expect(response.status).toBe(400);
    expect(response.body.error_details).toEqual({
      name: 'ValidationError',
      'li%FFmit': expect.stringMatching(NOT_DECODED),
    });
  });

  it('when the query decodes, then escapes, + for a space and %25 for % are read as before', async () => {
    const search = await apiClient(app.url, readToken).get(
      'publications/search?search=%22Edge%22+caf%C3%A9&fields=id&limit=1',
    );
    expect(search.status).toBe(200);
    const lists = await apiClient(app.url, readToken).get('document-lists?name=100%25');
    expect(lists).toMatchObject({ status: 200, body: { results: [] } });
  });
});

describe('one-value parameters in list form', () => {
  it('when a parameter that takes one value is sent once in brackets (limit[]=1, limit[0]=1), then 400 saying to send it plain, not that it was given twice', async () => {
    for (const query of ['limit[]=1', 'limit%5B0%5D=1']) {
      const response = await apiClient(app.url, readToken).get(`publicationEvents?${query}`);
      expect({ query, status: response.status, details: response.body.error_details }).toEqual({
        query,
        status: 400,
        details: { name: 'ValidationError', limit: 'must be a single value (limit=…), not limit[…]' },
      });
    }
    const twice = await apiClient(app.url, readToken).get('publicationEvents?limit=1&limit[]=2');
    expect(twice.body.error_details).toEqual({ name: 'ValidationError', limit: 'must be given once' });
  });
});

describe('NUL bytes in the URL', () => {
  it('when a query parameter holds %00, then 400 naming the parameter', async () => {
    const response = await apiClient(app.url, readToken).get(
      '/api/2025-07/publicationEvents?contentTypes=%00',
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual(
      envelope(400, 'Bad Request', { name: 'ValidationError', contentTypes: expect.stringMatching(/NUL/) }),
    );
    const search = await apiClient(app.url, readToken).get('publications/search?search=a%00b&limit=1');
    expect(search.status).toBe(400);
    expect(search.body.error_details).toEqual(
      expect.objectContaining({ search: expect.stringMatching(/NUL/) }),
    );
  });

  it('when a path parameter holds %00, then 400 naming the parameter', async () => {
    const design = await apiClient(app.url, readToken).get('/api/2025-07/design/%00');
    expect(design.status).toBe(400);
    expect(design.body).toEqual(
      envelope(400, 'Bad Request', { name: 'ValidationError', designVersion: expect.stringMatching(/NUL/) }),
    );
    for (const handle of ['%00', 'a%00']) {
      const events = await apiClient(app.url, readToken).get(`/api/2025-07/publicationEvents/${handle}`);
      expect(events.status).toBe(400);
      expect(events.body.error_details).toEqual(
        expect.objectContaining({ channelHandle: expect.stringMatching(/NUL/) }),
      );
    }
  });

  it('when a NUL in a JSON body reaches a text column, then 400 and nothing is stored', async () => {
    const count = async () =>
      (
        await app.ctx.pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM import_jobs WHERE project_id = $1',
          [projectId],
        )
      ).rows[0]!.n;
    const before = await count();
    const response = await apiClient(app.url, writeToken).post('import/documents', {
      systemName: 'wire\u0000',
      documents: [{ id: 'a', contentType: 'regular' }],
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(envelope(400, 'Bad Request', { name: 'ValidationError' }));
    expect(await count()).toBe(before);
  });
});

describe('request bodies that are not JSON', () => {
  const commands = () => `documents/${documentId}/commands`;
  const body = JSON.stringify({
    commands: [{ operation: 'setMetadataProperty', propertyName: 'x', value: 1 }],
  });

  it('when the body is gzip-labelled but plain, then 400 saying it does not decode', async () => {
    const response = await apiClient(app.url, writeToken).patch(commands(), '{}', {
      'content-encoding': 'gzip',
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(envelope(400, 'Bad Request', { name: 'ValidationError' }));
    expect(response.body.error_details.message).toMatch(/gzip/);
  });

  it('when the content encoding is unknown, then 415 naming it and the ones read; a real gzip body is read', async () => {
    for (const encoding of ['compress', 'gzip, gzip']) {
      const unknown = await apiClient(app.url, writeToken).patch(commands(), body, {
        'content-encoding': encoding,
      });
      expect(unknown.status).toBe(415);
      expect(unknown.body).toEqual({
        status: 415,
        error: 'Unsupported Media Type',
        error_details: {
          name: 'UnsupportedMediaType',
          message:
            `The request body's Content-Encoding '${encoding}' is not supported: send the body as it is, ` +
            'or compressed with one of gzip, deflate, br, zstd',
        },
      });
    }
    const gzipped = await fetch(`${app.url}/api/2026-03/${commands()}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${writeToken}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: gzipSync(body),
    });
    expect(gzipped.status).toBe(204);
  });

  it('when a JSON body declares a charset other than UTF-8 (or UTF-16/32), then 415 naming it and saying to send UTF-8', async () => {
    for (const charset of ['latin1', 'iso-8859-1', 'bogus']) {
      const response = await apiClient(app.url, writeToken).patch(commands(), body, {
        'content-type': `application/json; charset=${charset}`,
      });
      expect(response.status).toBe(415);
      expect(response.body).toEqual({
        status: 415,
        error: 'Unsupported Media Type',
        error_details: {
          name: 'UnsupportedMediaType',
          message:
            `The request body's charset '${charset}' is not supported: send JSON as UTF-8 ` +
            '(Content-Type: application/json, or application/json; charset=utf-8)',
        },
      });
    }
  });

  it('when the body is text, a form or has no Content-Type, then 415 saying to send application/json', async () => {
    for (const headers of [
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
    ]) {
      const response = await apiClient(app.url, writeToken).patch(commands(), body, headers);
      expect(response.status).toBe(415);
      expect(response.body).toEqual(
        envelope(415, 'Unsupported Media Type', { name: 'UnsupportedMediaType' }),
      );
      expect(response.body.error_details.message).toContain('application/json');
    }
    const untyped = await fetch(`${app.url}/api/2026-03/import/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writeToken}` },
      body: Buffer.from('{"systemName":"x","documents":[]}'),
    });
    expect(untyped.status).toBe(415);
    expect(await untyped.json()).toEqual(
      envelope(415, 'Unsupported Media Type', { message: expect.stringContaining('application/json') }),
    );
  });

  it('when a text body comes without a token, then 401 first', async () => {
    const response = await apiClient(app.url).patch(commands(), body, { 'content-type': 'text/plain' });
    expect(response.status).toBe(401);
  });
});

describe('Object.prototype names as API versions', () => {
  it('when the version is a prototype name, then 404 UnknownApiVersion on every route', async () => {
    for (const label of PROTOTYPE_NAMES) {
      const health = await apiClient(app.url).get(`/api/${label}/health`);
      expect(health.status).toBe(404);
      expect(health.body).toEqual(envelope(404, 'Not Found', { name: 'UnknownApiVersion' }));
      const patch = await apiClient(app.url, writeToken).patch(
        `/api/${label}/documents/${documentId}/commands`,
        {
          commands: [{ operation: 'publish' }],
        },
      );
      expect(patch.status).toBe(404);
      expect(patch.body).toEqual(envelope(404, 'Not Found', { name: 'UnknownApiVersion' }));
    }
  });
});

describe('headers over the limit', () => {
  it('when the headers exceed 16 KB, then 431 in the envelope, and the server still answers', async () => {
    const padding = 'a'.repeat(20 * 1024);
    const response = await rawRequest(
      `GET /api/2026-03/health HTTP/1.1\r\nHost: x\r\nX-Padding: ${padding}\r\n\r\n`,
    );
    expect(response.status).toBe(431);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    // The security headers of every other answer (http-foundation.test.ts), on one Node's parser refused.
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['strict-transport-security']).toMatch(/^max-age=/);
    expect(JSON.parse(response.body)).toEqual(
      envelope(431, 'Request Header Fields Too Large', { name: 'RequestHeaderFieldsTooLarge' }),
    );
    expect((await apiClient(app.url).get('health')).status).toBe(200);
  });

  it('when the request line is malformed, then 400 in the envelope', async () => {
    const response = await rawRequest('GET /api/2026-03/health HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual(envelope(400, 'Bad Request', {}));
  });

  it('when an HTTP/1.1 request has no Host header, then 400 in the envelope naming it; HTTP/1.0 needs none', async () => {
    const response = await rawRequest('GET /api/2026-03/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      status: 400,
      error: 'Bad Request',
      error_details: { name: 'ValidationError', message: 'An HTTP/1.1 request must send a Host header' },
    });
    const old = await rawRequest('GET /api/2026-03/health HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
    expect(JSON.parse(old.body)).toEqual({ status: 'ok' });
  });

  it('when the method is CONNECT, then the 404 of any method a route lacks, in the envelope, and the server still answers', async () => {
    // Node hands a CONNECT to a `connect` listener instead of the app; without one it closed the connection
    // unanswered. A proxy's tunnel, in authority form, and a path of the API are both asked for.
    for (const target of ['127.0.0.1:443', '/api/2026-03/health']) {
      const response = await rawRequest(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
      expect({ target, status: response.status }).toEqual({ target, status: 404 });
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(JSON.parse(response.body)).toEqual({
        status: 404,
        error: 'Not Found',
        error_details: { url: target },
      });
    }
    expect((await apiClient(app.url).get('health')).status).toBe(200);
  });

  it('when Expect asks for anything but 100-continue, then 417 in the envelope', async () => {
    const response = await rawRequest(
      'POST /api/2026-03/import/documents HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n' +
        'Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(response.status).toBe(417);
    expect(JSON.parse(response.body)).toEqual({
      status: 417,
      error: 'Expectation Failed',
      error_details: {
        name: 'ExpectationFailed',
        message: "Expect: '200-ok' is not understood; the only expectation this server meets is 100-continue",
      },
    });
  });

  it('when the edge refuses a request before any route (400, 417, 431), then the OpenAPI description says it may', async () => {
    const { info } = (await (await fetch(`${app.url}/api/2026-03/openapi.json`)).json()) as {
      info: { description: string };
    };
    expect(info.description).toContain('HTTP/1.1 request without Host');
    expect(info.description).toContain('417 for an Expect other than 100-continue');
    expect(info.description).toContain('431 for headers over 16 KB');
  });
});

describe('idle keep-alive connections', () => {
  it('when a connection is kept alive, then the server keeps it idle for 65 s, past the balancers in front', async () => {
    const response = await fetch(`${app.url}/api/2026-03/health`);
    await response.arrayBuffer();
    // Node's default of 5 s would close it under a balancer that reuses it for up to 60 s: a reset, a 502.
    expect(response.headers.get('keep-alive')).toBe('timeout=65');
  });
});

describe('slow clients (slowloris)', () => {
  it('when a client sends its headers a byte a second, then 408 in the envelope and the connection closes within 25 s; an idle keep-alive connection still serves its next request', async () => {
    const { hostname, port } = new URL(app.url);
    // Node's defaults (60 s for the headers, checked every 30 s) held such a connection for up to 90 s.
    const slow = dripHeaders(hostname, Number(port), '/api/2026-03/health');
    // A balancer's connection: one request, idle past the headers' timeout, then the next one on it.
    const idle = new Promise<string[]>((resolve, reject) => {
      const answers: string[] = [];
      const request = 'GET /api/2026-03/health HTTP/1.1\r\nHost: x\r\n\r\n';
      const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(request));
      socket.on('data', (chunk: Buffer) => {
        answers.push(chunk.toString('utf8').split('\r\n')[0] ?? '');
        if (answers.length === 1) setTimeout(() => socket.write(request), 24_000);
        else socket.end();
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(answers));
    });
    const [dripped, kept] = await Promise.all([slow, idle]);
    expect(dripped.seconds).toBeLessThan(25);
    const [head = '', body = ''] = dripped.text.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(body)).toEqual(envelope(408, 'Request Timeout', { name: 'RequestTimeout' }));
    expect(kept).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
  }, 60_000);
});

describe('slow clients (a body a byte at a time)', () => {
  // BODY_TIMEOUT_MS of 2 s here (60 s by default) and a pace of 64 bytes a second (16 KiB), so that the test
  // waits for them in seconds: every body has 2 s, and a second more for each 64 bytes of it that arrive.
  let slowApp: TestApp;
  let slowWriteToken: string;
  beforeAll(async () => {
    slowApp = await startTestApp({ env: { BODY_TIMEOUT_MS: '2000', BODY_MIN_BYTES_PER_SECOND: '64' } });
    ({ token: slowWriteToken } = await tokenFor(slowApp.ctx, projectId, WRITE));
  });
  afterAll(() => slowApp.close());

  /** The 408 of a body that kept neither the floor nor the pace: the envelope, and the connection closing. */
  const expectTooSlow = (text: string) => {
    const [answer = '', body = ''] = text.split('\r\n\r\n');
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toEqual(
      envelope(408, 'Request Timeout', {
        name: 'RequestTimeout',
        message:
          'The request body did not arrive in time: a body has 2 s, and 1 s more for every 64 bytes of it that arrive',
      }),
    );
  };
  const head = (path: string, type: string, length: number, method = 'POST') =>
    `${method} /api/2026-03/${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${slowWriteToken}\r\n` +
    `Content-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;

  it('when a client sends a JSON body a byte every 300 ms, then 408 in the envelope once the body deadline passes, and the connection closes', async () => {
    // Before, only the server's requestTimeout ended it: the connection, and body-parser waiting on it, for 300 s.
    const { hostname, port } = new URL(slowApp.url);
    const published = async () =>
      (await apiClient(slowApp.url, everyScope).get(`documents/${documentId}/latestPublication`)).body
        .systemdata.publicationId as number;
    const before = await published();
    const body = Buffer.from(JSON.stringify({ commands: [{ operation: 'publish' }] }).padEnd(200, ' '));
    const dripped = await dripBody(hostname, Number(port), {
      head: head(`documents/${documentId}/commands`, 'application/json', body.length, 'PATCH'),
      pieces: [...body].map((byte) => Buffer.from([byte])),
      everyMs: 300,
      giveUpMs: 15_000,
    });
    expectTooSlow(dripped.text);
    expect(dripped.seconds).toBeGreaterThanOrEqual(2);
    expect(dripped.seconds).toBeLessThan(6);
    // Nothing was published: the body never arrived.
    expect(await published()).toBe(before);
  }, 30_000);

  it('when an upload takes longer than the body deadline to arrive (a slow link), then it is still taken', async () => {
    const { hostname, port } = new URL(slowApp.url);
    const png = await noisePng(64, 64);
    const pieces = Array.from({ length: 8 }, (_, index) =>
      png.subarray(Math.floor((index * png.length) / 8), Math.floor(((index + 1) * png.length) / 8)),
    );
    const dripped = await dripBody(hostname, Number(port), {
      head: head('mediaLibrary/uploads', 'image/png', png.length),
      pieces,
      everyMs: 500,
      giveUpMs: 20_000,
    });
    expect(dripped.seconds).toBeGreaterThan(3.5);
    expect(dripped.text.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
  }, 30_000);

  it('when a large JSON body arrives slowly but steadily, past BODY_TIMEOUT_MS, then it is taken', async () => {
    // Before, the flat deadline cut it at 2 s with a 408, as it would cut a 200 MB BODY_LIMIT's body at 1 MB/s.
    const { hostname, port } = new URL(slowApp.url);
    const published = async () =>
      (await apiClient(slowApp.url, everyScope).get(`documents/${documentId}/latestPublication`)).body
        .systemdata.publicationId as number;
    const before = await published();
    const body = Buffer.from(JSON.stringify({ commands: [{ operation: 'publish' }] }).padEnd(8192, ' '));
    // 512 bytes every 250 ms: 2 KiB/s, 4 s in all.
    const pieces = Array.from({ length: 16 }, (_, index) => body.subarray(index * 512, (index + 1) * 512));
    const dripped = await dripBody(hostname, Number(port), {
      head: head(`documents/${documentId}/commands`, 'application/json', body.length, 'PATCH'),
      pieces,
      everyMs: 250,
      giveUpMs: 20_000,
    });
    expect(dripped.text.split('\r\n')[0]).toBe('HTTP/1.1 204 No Content');
    expect(dripped.seconds).toBeGreaterThan(3.5);
    expect(await published()).toBeGreaterThan(before);
  }, 30_000);

  it('when a large upload arrives slowly but steadily, past BODY_TIMEOUT_MS, then it is taken', async () => {
    const { hostname, port } = new URL(slowApp.url);
    // 16 KiB, 1 KiB every 250 ms: 4 KiB/s, 4 s in all.
    const file = randomBytes(16_384);
    const pieces = Array.from({ length: 16 }, (_, index) => file.subarray(index * 1024, (index + 1) * 1024));
    const dripped = await dripBody(hostname, Number(port), {
      head: head('mediaLibrary/uploads?filename=slow.bin', 'application/octet-stream', file.length),
      pieces,
      everyMs: 250,
      giveUpMs: 20_000,
    });
    const [answer = '', text = ''] = dripped.text.split('\r\n\r\n');
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 201 Created');
    expect(JSON.parse(text)).toMatchObject({ size: file.length });
    expect(dripped.seconds).toBeGreaterThan(3.5);
  }, 30_000);

  it('when an upload stalls, then 408 in the envelope once what arrived is due, and the connection closes', async () => {
    // Before, an upload had the server's whole requestTimeout: a stalled one held its connection for 300 s.
    const { hostname, port } = new URL(slowApp.url);
    // 64 bytes of 64 KiB at once, then nothing: due 2 s + 1 s after it reached the app.
    const dripped = await dripBody(hostname, Number(port), {
      head: head('mediaLibrary/uploads', 'application/octet-stream', 65_536),
      pieces: [randomBytes(64)],
      everyMs: 10,
      giveUpMs: 15_000,
    });
    expectTooSlow(dripped.text);
    expect(dripped.seconds).toBeGreaterThanOrEqual(3);
    expect(dripped.seconds).toBeLessThan(6);
  }, 30_000);

  it('when a request refused before its body is read drips that body on after the answer, then its connection is closed at the deadline', async () => {
    // A NUL in the query is refused before the body deadline was set: Node read the rest of the body off after
    // the 400, for as long as the client dripped it (the server's requestTimeout).
    const { hostname, port } = new URL(slowApp.url);
    const dripped = await dripBody(hostname, Number(port), {
      head:
        'POST /api/2026-03/health?q=%00 HTTP/1.1\r\nHost: x\r\n' +
        'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n',
      pieces: Array.from({ length: 200 }, () => Buffer.from(' ')),
      everyMs: 200,
      giveUpMs: 15_000,
      ignoreAnswer: true,
    });
    expect(dripped.text.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(dripped.seconds).toBeGreaterThanOrEqual(2);
    expect(dripped.seconds).toBeLessThan(5);
  }, 30_000);
});

describe('ids beyond the safe integer range', () => {
  it('when a document id in the path is 16+ digits and not exact, then 400 naming documentId', async () => {
    for (const path of [
      'documents/9999999999999999/latestPublication',
      'documents/10000000000000000/latestDraft',
      '/api/2025-07/documents/9007199254740993/latestPublication/renditions/web',
    ]) {
      const response = await apiClient(app.url, everyScope).get(path);
      expect(response.status).toBe(400);
      expect(response.body).toEqual(
        envelope(400, 'Bad Request', { documentId: expect.stringContaining('9007199254740991') }),
      );
    }
    const patch = await apiClient(app.url, writeToken).patch('documents/9999999999999999/commands', {
      commands: [{ operation: 'publish' }],
    });
    expect(patch.status).toBe(400);
    expect(patch.body.error_details).toEqual(expect.objectContaining({ documentId: expect.any(String) }));
  });

  it('when the largest safe id is asked for, then it is read exactly (404, not a neighbour)', async () => {
    const response = await apiClient(app.url, readToken).get('documents/9007199254740991/latestPublication');
    expect(response.status).toBe(404);
    expect(response.body.error_details.message).toContain('9007199254740991');
  });

  it('when id, id.gt... of the lists are beyond it, then 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['documents/latestPublications?id=1,9007199254740992', 'id'],
      ['documents/latestPublications?id.gt=9999999999999999', 'id.gt'],
      ['documents/latestPublications?id.lte=99999999999999999999', 'id.lte'],
      ['publicationEvents?id.gt=9007199254740992', 'id.gt'],
      ['publicationEvents?id.lt=10000000000000000', 'id.lt'],
    ];
    for (const [path, parameter] of cases) {
      const response = await apiClient(app.url, readToken).get(path);
      expect(response.status).toBe(400);
      expect(response.body).toEqual(
        envelope(400, 'Bad Request', { [parameter]: expect.stringContaining('9007199254740991') }),
      );
    }
    for (const path of [
      'documents/latestPublications?id.gt=9007199254740991',
      'publicationEvents?id.lte=9007199254740991',
    ]) {
      expect((await apiClient(app.url, readToken).get(path)).status).toBe(200);
    }
  });
});

/** A request written on a bare socket, for what fetch refuses to send (oversized or malformed headers). */
function rawRequest(
  head: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(app.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(head));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [top = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = top.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}
