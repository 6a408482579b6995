import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import { lazyModule } from '../lazy-module';
import {
  checkObjectKey,
  clampRange,
  ObjectSizeMismatchError,
  StoreUnavailableError,
  storeUnavailableOr,
  UnsatisfiableRangeError,
  type ObjectStore,
  type SmallObject,
  type StoredObjectInfo,
} from './object-store';

export interface S3StoreOptions {
  bucket: string;
  endpoint: string | undefined;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  /**
   * How long a request to the store waits to connect, or for the store's next bytes; then the store counts as
   * unavailable. The SDK's requests (writes) and the reads of this store's own (GET, HEAD) alike.
   */
  timeoutMs: number;
}

/**
 * Bytes of one part when the size of a streamed body is not known in advance: a body that ends within one part
 * is a single PutObject, a longer one a multipart upload (S3's minimum part is 5 MiB), so memory stays bounded
 * by one part whatever the object's size.
 */
export const S3_PART_BYTES = 8 * 1024 * 1024;

/**
 * The AWS SDK (several MB of heap): loaded when a store first talks to S3, so an API process that only
 * delivers documents never carries it.
 */
const loadSdk = lazyModule<typeof S3>('@aws-sdk/client-s3');

/** S3 answers "no such key" as NoSuchKey (GET), NotFound (HEAD, no body) or a bare 404. */
function isNotFound(error: unknown): boolean {
  return (
    error instanceof loadSdk().S3ServiceException &&
    (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)
  );
}

function isUnsatisfiableRange(error: unknown): boolean {
  return (
    error instanceof loadSdk().S3ServiceException &&
    (error.name === 'InvalidRange' || error.$metadata.httpStatusCode === 416)
  );
}

/** Fails the stream once it carries more or fewer bytes than announced, so that S3 never keeps a cut object. */
class ExactLength extends Transform {
  private seen = 0;

  constructor(private readonly expected: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.expected) callback(new ObjectSizeMismatchError(this.expected, this.seen));
    else callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    callback(this.seen === this.expected ? null : new ObjectSizeMismatchError(this.expected, this.seen));
  }
}

/** Reads `source` in parts of `size` bytes (the last one shorter), holding one part at a time. */
async function* parts(source: NodeJS.ReadableStream, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of source as AsyncIterable<Buffer | string>) {
    let buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    while (pendingBytes + buffer.length >= size) {
      const take = size - pendingBytes;
      pending.push(buffer.subarray(0, take));
      yield Buffer.concat(pending);
      buffer = buffer.subarray(take);
      pending = [];
      pendingBytes = 0;
    }
    if (buffer.length > 0) {
      pending.push(buffer);
      pendingBytes += buffer.length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

/** Awaits a call to S3; what says S3 is unavailable (isStoreUnavailable) is thrown as StoreUnavailableError. */
async function reaching<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw storeUnavailableOr(error);
  }
}

/** The SHA-256 of an empty body: what a GET or HEAD signs as its payload. */
const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
/** Attempts of one object read when S3 answers 5xx or a kept-alive connection turns out closed (as the SDK). */
const READ_ATTEMPTS = 3;

/** What the reads take from the SDK's resolved config: its endpoint rules, its region and its SigV4 signer. */
interface SdkSigningConfig {
  region: () => Promise<string>;
  endpointProvider: (params: Record<string, unknown>) => {
    url: URL;
    properties?: { authSchemes?: Array<{ name?: string; signingName?: string; signingRegion?: string }> };
  };
  signer: () => Promise<{
    sign(
      request: {
        method: string;
        protocol: string;
        hostname: string;
        port?: number;
        path: string;
        query: Record<string, string>;
        headers: Record<string, string>;
      },
      options: { signingRegion: string; signingService: string },
    ): Promise<{ headers: Record<string, string> }>;
  }>;
}

/** Where the bucket's objects are read, resolved once by the SDK's own endpoint rules. */
interface ObjectEndpoint {
  url: URL;
  signingRegion: string;
  signingName: string;
  agent: http.Agent;
}

/** A key as S3 paths spell it: each segment percent-encoded (RFC 3986 unreserved characters kept), `/` kept. */
function encodeKeyPath(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');
}

/** A read the store left waiting: nothing came on its connection for timeoutMs while the read waited for it. */
export class S3ReadTimeoutError extends Error {
  constructor(timeoutMs: number, key: string) {
    super(`S3 sent nothing for ${timeoutMs} ms while the object ${key} was read`);
    // As the SDK names its own timeouts (isStoreUnavailable).
    this.name = 'TimeoutError';
  }
}

/**
 * Fails a read that the store leaves waiting for `timeoutMs` (MEDIA_S3_TIMEOUT_MS): a connection not made, an
 * answer that does not come, a body that stops. The request, or its answer once it came, is destroyed with a
 * StoreUnavailableError, and so is its connection (never reused). An idle bound, not a total one: a long body
 * that moves is not cut, nor one whose reader holds it back (its buffer full: a slow client, not the store).
 * Until the answer's head came, the wait for one of the agent's connections (all busy, as when the store
 * hangs) counts too; a read failed while still queued is failed through `failQueued`: a request destroyed in
 * the agent's queue reports it only once a connection frees up.
 */
function watchRead(
  request: ClientRequest,
  timeoutMs: number,
  key: string,
  failQueued: (error: Error) => void,
): void {
  let socket: Socket | undefined;
  let response: IncomingMessage | undefined;
  const timedOut = () => new StoreUnavailableError(new S3ReadTimeoutError(timeoutMs, key));
  // Until the answer comes, the wait for a connection counts too: the whole wait is timeoutMs at most.
  const answerBy = Date.now() + timeoutMs;
  const queued = setTimeout(() => {
    const error = timedOut();
    request.destroy(error);
    failQueued(error);
  }, timeoutMs);
  const stop = () => socket?.off('timeout', onIdle);
  function onIdle(): void {
    if (response !== undefined && response.readableLength >= response.readableHighWaterMark) {
      socket?.setTimeout(timeoutMs);
      return;
    }
    stop();
    if (response === undefined) request.destroy(timedOut());
    else response.destroy(timedOut());
  }
  request.on('socket', (made: Socket) => {
    clearTimeout(queued);
    socket = made;
    // A kept-alive socket gets its idle timeout back from the agent when it is free again.
    made.setTimeout(Math.max(1, answerBy - Date.now()));
    made.on('timeout', onIdle);
  });
  request.on('response', (answer: IncomingMessage) => {
    response = answer;
    socket?.setTimeout(timeoutMs);
    answer.on('end', stop);
    answer.on('close', stop);
  });
  request.on('close', () => {
    clearTimeout(queued);
    if (response === undefined) stop();
  });
}

/** An answer that is not read, only drained: a failure of it (its connection lost, watchRead) has no reader. */
function drain(response: IncomingMessage): void {
  response.on('error', () => undefined);
  response.resume();
}

/** Bytes start..end (inclusive) of `whole`, a stream of a whole object; `whole`'s failure is the range's. */
function byteRange(whole: IncomingMessage, { start, end }: { start: number; end: number }): Readable {
  let at = 0;
  const range = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const from = Math.max(0, start - at);
      const to = Math.min(chunk.length, end + 1 - at);
      at += chunk.length;
      callback(null, from < to ? chunk.subarray(from, to) : undefined);
    },
  });
  whole.on('error', (error) => range.destroy(error));
  range.on('close', () => {
    if (!whole.readableEnded) whole.destroy();
  });
  return whole.pipe(range);
}

/** A read S3 refused or failed, with its status and S3's error code (`AccessDenied`, `SlowDown` ...). */
export class S3ReadError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    key: string,
  ) {
    super(`S3 answered ${status}${code === undefined ? '' : ` ${code}`} for the object ${key}`);
    this.name = 'S3ReadError';
  }
}

async function readError(response: IncomingMessage, key: string): Promise<S3ReadError> {
  let text = '';
  response.setEncoding('utf8');
  for await (const chunk of response as AsyncIterable<string>) {
    if (text.length < 16 * 1024) text += chunk;
  }
  return new S3ReadError(response.statusCode ?? 0, /<Code>([^<]*)<\/Code>/.exec(text)?.[1], key);
}

const header = (response: IncomingMessage, name: string): string | undefined => {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Media bytes in an S3 bucket, or any S3-compatible store (MinIO, Ceph, s3mock ...), through the AWS SDK v3.
 * Several API processes on several machines share it. The bucket must exist; the store never creates it.
 */
export class S3Store implements ObjectStore {
  readonly bucket: string;
  /**
   * Made at the first request (see loadSdk). config.ts checks its options when the process starts; what only
   * S3 can check (the bucket, the keys) shows at the first request, as it always did.
   */
  private sdkClient: S3.S3Client | undefined;
  /** Resolved at the first read; null when the bucket's endpoint is not plain SigV4 (the SDK reads then). */
  private objectEndpoint: Promise<ObjectEndpoint | null> | undefined;

  constructor(private readonly options: S3StoreOptions) {
    this.bucket = options.bucket;
  }

  get client(): S3.S3Client {
    const { options } = this;
    const { S3Client } = loadSdk();
    this.sdkClient ??= new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      // Checksums only where S3 requires them: S3-compatible stores differ in the newer flexible checksums,
      // and the etag already identifies the bytes.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // The SDK waits for ever by default. An idle bound, not a total one: a large upload that moves is not cut.
      requestHandler: { connectionTimeout: options.timeoutMs, socketTimeout: options.timeoutMs },
    });
    return this.sdkClient;
  }

  /**
   * The SDK's send, and what says S3 is unavailable thrown as StoreUnavailableError: every command goes
   * through here, once.
   */
  private send<I extends S3.ServiceInputTypes, O extends S3.ServiceOutputTypes>(
    command: S3.$Command<I, O, S3.S3ClientResolvedConfig, S3.ServiceInputTypes, S3.ServiceOutputTypes>,
    options?: { abortSignal?: AbortSignal },
  ): Promise<O> {
    return reaching(this.client.send(command, options));
  }

  private info(
    key: string,
    output: { ContentLength?: number; ContentType?: string; ETag?: string; LastModified?: Date },
    size = output.ContentLength ?? 0,
  ): StoredObjectInfo {
    return {
      key,
      size,
      contentType: output.ContentType ?? 'application/octet-stream',
      etag: output.ETag ?? '""',
      lastModified: output.LastModified ?? new Date(0),
    };
  }

  async put(
    key: string,
    body: Buffer | NodeJS.ReadableStream,
    info: { contentType: string; size?: number },
  ): Promise<StoredObjectInfo> {
    checkObjectKey(key);
    if (Buffer.isBuffer(body)) {
      if (info.size !== undefined && info.size !== body.length) {
        throw new ObjectSizeMismatchError(info.size, body.length);
      }
      return this.putOnce(key, body, body.length, info.contentType);
    }
    if (info.size !== undefined) {
      const exact = new ExactLength(info.size);
      // pipeline (not pipe) so that a failing source fails the body S3 reads too; the SDK does not give up on a
      // failed body by itself, so the request is aborted, and the body's own error is the one put rejects with.
      const abort = new AbortController();
      let failure: Error | undefined;
      pipeline(body, exact, (error) => {
        if (error) {
          failure = error;
          abort.abort(error);
        }
      });
      try {
        return await this.putOnce(key, exact, info.size, info.contentType, abort.signal);
      } catch (error) {
        // S3 away fails the body too (its reader gone): the store's trouble is the one to report.
        if (error instanceof StoreUnavailableError) throw error;
        throw failure ?? error;
      }
    }
    const iterator = parts(body, S3_PART_BYTES);
    const first = await iterator.next();
    const firstPart = first.done === true ? Buffer.alloc(0) : first.value;
    if (firstPart.length < S3_PART_BYTES)
      return this.putOnce(key, firstPart, firstPart.length, info.contentType);
    return this.putMultipart(key, firstPart, iterator, info.contentType);
  }

  private async putOnce(
    key: string,
    body: Buffer | Readable,
    size: number,
    contentType: string,
    abortSignal?: AbortSignal,
  ): Promise<StoredObjectInfo> {
    const { PutObjectCommand } = loadSdk();
    const output = await this.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentLength: size,
        ContentType: contentType,
      }),
      abortSignal === undefined ? {} : { abortSignal },
    );
    return this.info(key, { ...output, ContentType: contentType, LastModified: new Date() }, size);
  }

  private async putMultipart(
    key: string,
    firstPart: Buffer,
    rest: AsyncGenerator<Buffer>,
    contentType: string,
  ): Promise<StoredObjectInfo> {
    const {
      AbortMultipartUploadCommand,
      CompleteMultipartUploadCommand,
      CreateMultipartUploadCommand,
      UploadPartCommand,
    } = loadSdk();
    const { UploadId } = await this.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
    );
    try {
      const uploaded: Array<{ ETag: string; PartNumber: number }> = [];
      let size = 0;
      let part: Buffer | undefined = firstPart;
      for (let number = 1; part !== undefined; number += 1) {
        const output = await this.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId,
            PartNumber: number,
            Body: part,
            ContentLength: part.length,
          }),
        );
        uploaded.push({ ETag: output.ETag ?? '', PartNumber: number });
        size += part.length;
        const next = await rest.next();
        part = next.done === true ? undefined : next.value;
      }
      const output = await this.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: uploaded },
        }),
      );
      return this.info(key, { ETag: output.ETag, ContentType: contentType, LastModified: new Date() }, size);
    } catch (error) {
      await this.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId })).catch(
        () => undefined,
      );
      throw error;
    }
  }

  /**
   * Reads (GET and HEAD) skip the SDK's middleware stack, which cost more CPU per image than the rest of
   * serve-image together: one request signed by the SDK's own SigV4 signer, to the endpoint its rules resolve
   * for the bucket, over kept-alive connections (at most 50, like the SDK's), retried like the SDK on 5xx and
   * on a kept-alive connection found closed. Writes and deletes go through the SDK.
   */
  private endpoint(): Promise<ObjectEndpoint | null> {
    this.objectEndpoint ??= (async () => {
      const config = this.client.config as unknown as SdkSigningConfig;
      const region = await config.region();
      const resolved = config.endpointProvider({
        Bucket: this.bucket,
        Region: region,
        ForcePathStyle: this.options.forcePathStyle,
        ...(this.options.endpoint === undefined ? {} : { Endpoint: this.options.endpoint }),
        UseFIPS: false,
        UseDualStack: false,
        Accelerate: false,
        UseGlobalEndpoint: false,
        UseArnRegion: false,
        DisableMultiRegionAccessPoints: false,
        UseS3ExpressControlEndpoint: false,
        DisableS3ExpressSessionAuth: false,
      });
      const scheme = resolved.properties?.authSchemes?.[0];
      if (scheme !== undefined && scheme.name !== 'sigv4') return null;
      const url = new URL(resolved.url.href);
      const Agent = url.protocol === 'https:' ? https.Agent : http.Agent;
      return {
        url,
        signingRegion: scheme?.signingRegion ?? region,
        signingName: scheme?.signingName ?? 's3',
        agent: new Agent({ keepAlive: true, maxSockets: 50 }),
      };
    })().catch(() => null);
    return this.objectEndpoint;
  }

  /** S3's answer to a GET or HEAD of the object (5xx retried); undefined when the SDK must do the read. */
  private async read(
    method: 'GET' | 'HEAD',
    key: string,
    range?: { start: number; end: number },
  ): Promise<IncomingMessage | undefined> {
    const endpoint = await this.endpoint();
    if (endpoint === null) return undefined;
    const { url } = endpoint;
    const signer = await (this.client.config as unknown as SdkSigningConfig).signer();
    const path = `${url.pathname.replace(/\/$/, '')}/${encodeKeyPath(key)}`;
    const port = url.port === '' ? undefined : Number(url.port);
    for (let attempt = 1; ; attempt += 1) {
      const signed = await signer.sign(
        {
          method,
          protocol: url.protocol,
          hostname: url.hostname,
          ...(port === undefined ? {} : { port }),
          path,
          query: {},
          headers: {
            host: url.host,
            'x-amz-content-sha256': EMPTY_BODY_SHA256,
            ...(range === undefined ? {} : { range: `bytes=${range.start}-${range.end}` }),
          },
        },
        { signingRegion: endpoint.signingRegion, signingService: endpoint.signingName },
      );
      let response: IncomingMessage;
      try {
        response = await new Promise<IncomingMessage>((resolve, reject) => {
          const transport = url.protocol === 'https:' ? https : http;
          const request = transport.request(
            { method, hostname: url.hostname, port, path, headers: signed.headers, agent: endpoint.agent },
            resolve,
          );
          watchRead(request, this.options.timeoutMs, key, reject);
          request.on('error', reject).end();
        });
      } catch (error) {
        // A store that left the read waiting is not asked again: the client would wait as many times as long.
        if (error instanceof StoreUnavailableError) throw error;
        // Nothing came back (a refused connection, or a kept-alive one the server had closed): again.
        if (attempt === READ_ATTEMPTS) throw error;
        continue;
      }
      if ((response.statusCode ?? 0) < 500 || attempt === READ_ATTEMPTS) return response;
      drain(response);
    }
  }

  private infoOf(key: string, response: IncomingMessage): StoredObjectInfo {
    const lastModified = header(response, 'last-modified');
    // `bytes 2-5/10`: the whole object's size is after the slash.
    const total = /\/(\d+)$/.exec(header(response, 'content-range') ?? '')?.[1];
    return {
      key,
      size: Number(total ?? header(response, 'content-length') ?? 0),
      contentType: header(response, 'content-type') ?? 'application/octet-stream',
      etag: header(response, 'etag') ?? '""',
      lastModified: lastModified === undefined ? new Date(0) : new Date(lastModified),
    };
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    checkObjectKey(key);
    const direct = await reaching(this.headDirect(key));
    return direct === undefined ? this.headViaSdk(key) : direct;
  }

  /** HEAD read by this.read; undefined when the SDK must do the read. */
  private async headDirect(key: string): Promise<StoredObjectInfo | null | undefined> {
    const response = await this.read('HEAD', key);
    if (response === undefined) return undefined;
    drain(response);
    if (response.statusCode === 200) return this.infoOf(key, response);
    if (response.statusCode === 404) return null;
    throw new S3ReadError(response.statusCode ?? 0, undefined, key);
  }

  async get(
    key: string,
    range?: { start: number; end: number },
  ): Promise<{ info: StoredObjectInfo; body: NodeJS.ReadableStream } | null> {
    checkObjectKey(key);
    // The bounds' own sanity (integers, start <= end); the object's size is S3's to check.
    if (range !== undefined) clampRange(range, Number.MAX_SAFE_INTEGER);
    const direct = await reaching(this.getDirect(key, range));
    return direct === undefined ? this.getViaSdk(key, range) : direct;
  }

  /** GET read by this.read; undefined when the SDK must do the read. */
  private async getDirect(
    key: string,
    range?: { start: number; end: number },
  ): Promise<{ info: StoredObjectInfo; body: NodeJS.ReadableStream } | null | undefined> {
    const response = await this.read('GET', key, range);
    if (response === undefined) return undefined;
    const status = response.statusCode ?? 0;
    if (status === 200 && range !== undefined) {
      // The store ignored the Range (some S3-compatible stores and proxies before them do): the whole object
      // came, of which the range is cut here (the bytes after it are read and dropped).
      const info = this.infoOf(key, response);
      let bounds: { start: number; end: number };
      try {
        bounds = clampRange(range, info.size);
      } catch (error) {
        drain(response);
        throw error;
      }
      return { info, body: byteRange(response, bounds) };
    }
    if (status === 200 || status === 206) return { info: this.infoOf(key, response), body: response };
    if (status === 404) {
      drain(response);
      return null;
    }
    if (status === 416) {
      drain(response);
      // The HEAD read as this GET was (so never undefined here); its errors are this GET's.
      const head = await this.headDirect(key);
      if (!head) return null;
      throw new UnsatisfiableRangeError(head.size);
    }
    throw await readError(response, key);
  }

  private async headViaSdk(key: string): Promise<StoredObjectInfo | null> {
    const { HeadObjectCommand } = loadSdk();
    try {
      return this.info(key, await this.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  private async getViaSdk(
    key: string,
    range?: { start: number; end: number },
  ): Promise<{ info: StoredObjectInfo; body: NodeJS.ReadableStream } | null> {
    const { GetObjectCommand } = loadSdk();
    let output;
    try {
      output = await this.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
        }),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      if (isUnsatisfiableRange(error)) {
        const head = await this.headViaSdk(key);
        if (head === null) return null;
        throw new UnsatisfiableRangeError(head.size);
      }
      throw error;
    }
    // `bytes 2-5/10`: the whole object's size is after the slash.
    const total = /\/(\d+)$/.exec(output.ContentRange ?? '')?.[1];
    const size = total === undefined ? (output.ContentLength ?? 0) : Number(total);
    return { info: this.info(key, output, size), body: output.Body as Readable };
  }

  /** The GET's answer read whole when its Content-Length is within `maxBytes`: one write to the client after. */
  async getSmall(key: string, maxBytes: number): Promise<SmallObject | null> {
    const got = await this.get(key);
    if (got === null || got.info.size > maxBytes) return got;
    // A connection lost while the body comes is S3 unavailable, as one lost before it.
    return { info: got.info, bytes: await reaching(this.readWhole(key, got)) };
  }

  /** The body of a GET whose size is known, read into one buffer. */
  private async readWhole(key: string, got: { info: StoredObjectInfo; body: NodeJS.ReadableStream }) {
    const bytes = Buffer.allocUnsafe(got.info.size);
    let filled = 0;
    for await (const chunk of got.body as AsyncIterable<Buffer>) {
      if (filled + chunk.length > bytes.length) {
        (got.body as Readable).destroy();
        throw new Error(`object ${key}: S3 sent more than the ${bytes.length} bytes it announced`);
      }
      chunk.copy(bytes, filled);
      filled += chunk.length;
    }
    if (filled !== bytes.length) {
      throw new Error(`object ${key}: S3 sent ${filled} of the ${bytes.length} bytes it announced`);
    }
    return bytes;
  }

  async delete(key: string): Promise<void> {
    checkObjectKey(key);
    const { DeleteObjectCommand } = loadSdk();
    await this.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  close(): void {
    this.sdkClient?.destroy();
    void this.objectEndpoint?.then((endpoint) => endpoint?.agent.destroy());
  }
}
