import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import {
  checkObjectKey,
  clampRange,
  ObjectSizeMismatchError,
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
}

/**
 * Bytes of one part when the size of a streamed body is not known in advance: a body that ends within one part
 * is a single PutObject, a longer one a multipart upload (S3's minimum part is 5 MiB), so memory stays bounded
 * by one part whatever the object's size.
 */
export const S3_PART_BYTES = 8 * 1024 * 1024;

/** S3 answers "no such key" as NoSuchKey (GET), NotFound (HEAD, no body) or a bare 404. */
function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NoSuchKey' || error.name === 'NotFound' || error.$metadata.httpStatusCode === 404)
  );
}

function isUnsatisfiableRange(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
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

/**
 * Media bytes in an S3 bucket, or any S3-compatible store (MinIO, Ceph, s3mock ...), through the AWS SDK v3.
 * Several API processes on several machines share it. The bucket must exist; the store never creates it.
 */
export class S3Store implements ObjectStore {
  readonly client: S3Client;
  readonly bucket: string;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      // Checksums only where S3 requires them: S3-compatible stores differ in the newer flexible checksums,
      // and the etag already identifies the bytes.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
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
    const output = await this.client.send(
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
    const { UploadId } = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
    );
    try {
      const uploaded: Array<{ ETag: string; PartNumber: number }> = [];
      let size = 0;
      let part: Buffer | undefined = firstPart;
      for (let number = 1; part !== undefined; number += 1) {
        const output = await this.client.send(
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
      const output = await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: uploaded },
        }),
      );
      return this.info(key, { ETag: output.ETag, ContentType: contentType, LastModified: new Date() }, size);
    } catch (error) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId }))
        .catch(() => undefined);
      throw error;
    }
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    checkObjectKey(key);
    try {
      return this.info(key, await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async get(
    key: string,
    range?: { start: number; end: number },
  ): Promise<{ info: StoredObjectInfo; body: NodeJS.ReadableStream } | null> {
    checkObjectKey(key);
    // The bounds' own sanity (integers, start <= end); the object's size is S3's to check.
    if (range !== undefined) clampRange(range, Number.MAX_SAFE_INTEGER);
    let output;
    try {
      output = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
        }),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      if (isUnsatisfiableRange(error)) {
        const head = await this.head(key);
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

  /** S3 answers with the headers before the body: the body is streamed whatever its size. */
  getSmall(key: string): Promise<SmallObject | null> {
    return this.get(key);
  }

  async delete(key: string): Promise<void> {
    checkObjectKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  close(): void {
    this.client.destroy();
  }
}
