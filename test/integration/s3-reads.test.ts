import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { S3ReadError, S3Store } from '../../src/storage/s3-store';

/**
 * The S3 store's reads (GET, HEAD) are signed requests of its own over kept-alive connections, not SDK
 * commands. s3mock does not check signatures, so here a small HTTP server plays S3 and checks each request's
 * SigV4 signature the way S3 does, from what arrived on the wire: the path as sent, the signed headers, the
 * scope. The verifier itself is checked against the example in AWS's SigV4 documentation for S3.
 */
const ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const SECRET_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** The signature S3 expects for a request, from its method, raw path and headers; null when unsigned. */
function expectedSignature(
  method: string,
  rawPath: string,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
): { expected: string; given: string; scope: string } | null {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]+)$/.exec(
    String(headers.authorization ?? ''),
  );
  if (!auth) return null;
  const [, credential, signedHeaders, given] = auth as unknown as [string, string, string, string];
  const scope = credential.split('/').slice(1).join('/');
  const [date, region, service] = scope.split('/') as [string, string, string];
  const [path, query = ''] = rawPath.split('?');
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${String(headers[name] ?? '').trim()}\n`)
    .join('');
  const canonical = [
    method,
    path,
    query,
    canonicalHeaders,
    signedHeaders,
    String(headers['x-amz-content-sha256']),
  ].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', String(headers['x-amz-date']), scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  return { expected: createHmac('sha256', key).update(toSign).digest('hex'), given, scope };
}

interface Seen {
  method: string;
  path: string;
  signatureOk: boolean;
  scope: string | undefined;
}

describe('S3 store reads (signed requests of its own)', () => {
  let server: Server;
  let endpoint: string;
  const seen: Seen[] = [];
  const objects = new Map<string, Buffer>();
  /** Answers to give before the real one, per path (a 503 to retry, a 403 to report). */
  const scripted = new Map<string, number[]>();

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const rawPath = req.url ?? '';
      const check = expectedSignature(req.method ?? '', rawPath, req.headers, SECRET_KEY);
      const signatureOk = check !== null && check.expected === check.given;
      seen.push({ method: req.method ?? '', path: rawPath, signatureOk, scope: check?.scope });
      const next = scripted.get(rawPath)?.shift();
      if (!signatureOk || next === 403) {
        res.writeHead(403, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0"?><Error><Code>SignatureDoesNotMatch</Code></Error>');
        return;
      }
      if (next !== undefined) {
        res.writeHead(next, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0"?><Error><Code>SlowDown</Code></Error>');
        return;
      }
      const body = objects.get(decodeURIComponent(rawPath));
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'application/xml' });
        res.end(req.method === 'HEAD' ? undefined : '<Error><Code>NoSuchKey</Code></Error>');
        return;
      }
      const headers = {
        'content-type': 'image/png',
        etag: '"abc123"',
        'last-modified': 'Wed, 25 Nov 2026 10:00:00 GMT',
      };
      const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''));
      if (range) {
        const start = Number(range[1]);
        const end = Math.min(Number(range[2]), body.length - 1);
        res.writeHead(206, {
          ...headers,
          'content-length': end - start + 1,
          'content-range': `bytes ${start}-${end}/${body.length}`,
        });
        res.end(req.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
        return;
      }
      res.writeHead(200, { ...headers, 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen.length = 0;
  });

  const store = (secret = SECRET_KEY) =>
    new S3Store({
      bucket: 'media-bucket',
      endpoint,
      region: 'eu-central-1',
      credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: secret },
      forcePathStyle: true,
      timeoutMs: 10_000,
    });

  it("the verifier agrees with AWS's documented example signature (GET with a Range, us-east-1)", () => {
    const check = expectedSignature(
      'GET',
      '/test.txt',
      {
        host: 'examplebucket.s3.amazonaws.com',
        range: 'bytes=0-9',
        'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        'x-amz-date': '20130524T000000Z',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
          'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
          'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
      },
      SECRET_KEY,
    );
    expect(check?.expected).toBe(check?.given);
  });

  it('when keys with spaces, plus signs, brackets and non-ASCII letters are read, then every request is signed as S3 checks it', async () => {
    const s3 = store();
    try {
      for (const key of ['1/m/a b+c/Ünïcödé (1)!.png', "1/m/it's*~/x=y&z.png", '1/m/plain/teaser.png']) {
        const bytes = Buffer.from(`bytes of ${key}`);
        objects.set(`/media-bucket/${key}`, bytes);
        const got = await s3.get(key);
        expect(got?.info).toMatchObject({
          key,
          size: bytes.length,
          contentType: 'image/png',
          etag: '"abc123"',
        });
        expect(await text(got!.body)).toBe(bytes.toString());
        const small = await s3.getSmall(key, 1024);
        expect(small !== null && 'bytes' in small && small.bytes.equals(bytes)).toBe(true);
        expect(await s3.head(key)).toMatchObject({ size: bytes.length, etag: '"abc123"' });
        const part = await s3.get(key, { start: 2, end: 4 });
        expect(part?.info.size).toBe(bytes.length);
        expect(await text(part!.body)).toBe(bytes.subarray(2, 5).toString());
      }
      expect(seen.length).toBe(12);
      for (const request of seen) {
        expect(request).toMatchObject({
          signatureOk: true,
          scope: expect.stringMatching(/\/eu-central-1\/s3\//),
        });
      }
      // Percent-encoded on the wire, as S3 spells keys: nothing but unreserved characters and slashes as is.
      expect(seen[0]!.path).toBe('/media-bucket/1/m/a%20b%2Bc/%C3%9Cn%C3%AFc%C3%B6d%C3%A9%20%281%29%21.png');
    } finally {
      s3.close();
    }
  });

  it('when the key is unknown, then get and head answer null', async () => {
    const s3 = store();
    try {
      expect(await s3.get('1/none/x.png')).toBeNull();
      expect(await s3.head('1/none/x.png')).toBeNull();
      expect(await s3.getSmall('1/none/x.png', 1024)).toBeNull();
    } finally {
      s3.close();
    }
  });

  it('when S3 answers 503 first, then the read is retried and succeeds; a 403 is an S3ReadError naming the code', async () => {
    const s3 = store();
    try {
      objects.set('/media-bucket/1/busy/x.png', Buffer.from('busy'));
      scripted.set('/media-bucket/1/busy/x.png', [503, 503]);
      expect(await text((await s3.get('1/busy/x.png'))!.body)).toBe('busy');
      expect(seen.map((request) => request.path)).toEqual(Array(3).fill('/media-bucket/1/busy/x.png'));

      scripted.set('/media-bucket/1/busy/x.png', [403]);
      const refused = s3.get('1/busy/x.png');
      await expect(refused).rejects.toBeInstanceOf(S3ReadError);
      await expect(refused).rejects.toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    } finally {
      s3.close();
    }
  });

  it('when the secret is wrong, then S3 refuses the signature and get fails (nothing is read unsigned)', async () => {
    const s3 = store('not-the-secret');
    try {
      objects.set('/media-bucket/1/sig/x.png', Buffer.from('x'));
      await expect(s3.get('1/sig/x.png')).rejects.toMatchObject({ status: 403 });
      expect(seen.every((request) => !request.signatureOk)).toBe(true);
    } finally {
      s3.close();
    }
  });
});
