import { z } from 'zod';
import { AppError } from '../../../domain/errors';
import { ifMatchFailureOnRead } from '../../conditional-get';
import { ImportWebhookPayloadSchema } from '../../../domain/import-request';

type Schema = Record<string, unknown>;

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': {
    description: "The client's requests per window (only for clients with a limit)",
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer' },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the current window ends',
    schema: { type: 'integer' },
  },
};

const TOO_MANY_REQUESTS = {
  description:
    'The API client used up its rate limit (README, "Rate limits"): the envelope with name \'TooManyRequests\'; ' +
    'retry after Retry-After seconds',
  headers: {
    'Retry-After': { description: 'Seconds until the window ends', schema: { type: 'integer' } },
    ...RATE_LIMIT_HEADERS,
  },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

/**
 * What every operation that takes a bearer token shares: a 429 when its API client used up its rate limit, and
 * the RateLimit headers on its answers. Added to every operation whose security names the bearer scheme, so a
 * route added later is described without anyone remembering to. The limit is counted after the token is
 * checked (`...auth`), so an operation secured otherwise (the planner's oauth/token, HTTP Basic) has neither:
 * its own 429 is for failed logins (AUTH_FAILURE_LIMIT), and its answers carry no RateLimit headers.
 */
export function withRateLimits(document: Schema): Schema {
  forEachAuthenticatedOperation(document, (responses, security) => {
    if (!security.some((requirement) => Object.hasOwn(requirement, 'bearer'))) return;
    responses['429'] = TOO_MANY_REQUESTS;
    for (const [status, response] of Object.entries(responses)) {
      if (status.startsWith('2') && !('$ref' in response)) {
        response.headers = { ...(response.headers as Schema | undefined), ...RATE_LIMIT_HEADERS };
      }
    }
  });
  return document;
}

/**
 * Calls `describe` with the responses of every operation that names a security requirement (what every
 * authenticated operation shares is added there), and keeps what it changed.
 */
function forEachAuthenticatedOperation(
  document: Schema,
  describe: (responses: Record<string, Schema>, security: readonly Schema[]) => void,
): void {
  const paths = document.paths as Record<string, Record<string, Schema>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const security = operation.security as Schema[] | undefined;
      if (!security || security.length === 0) continue;
      const responses = (operation.responses ?? {}) as Record<string, Schema>;
      describe(responses, security);
      operation.responses = responses;
    }
  }
}

/**
 * The challenges of RFC 6750 §3.1 (a bearer token) and RFC 7617 (the planner's client-credential login), on the
 * 401 and 403 of every operation secured by them (src/http/middleware/authenticate.ts, the planner's
 * oauth/token): a client learns from the header what to send, and which scope to ask for.
 */
export function withChallenges(document: Schema): Schema {
  forEachAuthenticatedOperation(document, (responses, security) => {
    const challenge = (status: string, description: string) => {
      const response = responses[status];
      if (!response) return;
      responses[status] = {
        ...response,
        headers: {
          ...(response.headers as Schema | undefined),
          'WWW-Authenticate': { description, schema: { type: 'string' } },
        },
      };
    };
    if (security.some((requirement) => Object.hasOwn(requirement, 'bearer'))) {
      challenge(
        '401',
        'Bearer when no token was sent, else Bearer error="invalid_token", error_description="<why>"',
      );
      const scopes = security.flatMap((requirement) => (requirement.bearer as string[] | undefined) ?? []);
      challenge(
        '403',
        `Bearer error="insufficient_scope", error_description="<why>", scope="${scopes.join(' ')}"`,
      );
    } else if (security.some((requirement) => Object.hasOwn(requirement, 'basic'))) {
      challenge('401', 'Basic realm="broadsheet", charset="UTF-8"');
    }
  });
  return document;
}

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
};

const DATABASE_UNAVAILABLE_TEXT =
  "'DatabaseUnavailable' when Postgres is unreachable, every connection stayed busy past the pool wait, or a " +
  'statement ran past its bound (DATABASE_STATEMENT_TIMEOUT_MS) ' +
  "(or 'KeySetUnavailable' when JWKS_URL is set and cannot give the token's key)";

const DATABASE_UNAVAILABLE = {
  description: `Service Unavailable: the envelope with name ${DATABASE_UNAVAILABLE_TEXT}; retry after Retry-After seconds`,
  headers: RETRY_AFTER,
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      example: {
        status: 503,
        error: 'Service Unavailable',
        error_details: AppError.databaseUnavailable().details,
      },
    },
  },
};

/**
 * The 503 every authenticated operation may answer: its token's API client is read from Postgres before
 * anything else (src/http/middleware/errors.ts turns an unreachable database into DatabaseUnavailable). An
 * operation that already describes a 503 (a search, when Elasticsearch is away) keeps its answer and says both.
 */
export function withDatabaseUnavailable(document: Schema): Schema {
  forEachAuthenticatedOperation(document, (responses) => {
    const own = responses['503'];
    responses['503'] = own
      ? {
          ...own,
          description: `${String(own.description)}; also ${DATABASE_UNAVAILABLE_TEXT}`,
          headers: { ...(own.headers as Schema | undefined), ...RETRY_AFTER },
        }
      : DATABASE_UNAVAILABLE;
  });
  return document;
}

const ETAG_HEADER = {
  ETag: {
    description: "The answer's entity tag (weak for a JSON answer), for If-None-Match",
    schema: { type: 'string' },
  },
};

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'the ETag of the copy the client has (weak comparison, a list or *): 304 when it is current',
  schema: { type: 'string' },
};

const NOT_MODIFIED = {
  description:
    "Not Modified: If-None-Match names the answer's current ETag (weak comparison, a list or *), whatever the " +
    "request's Cache-Control; no body",
  headers: ETAG_HEADER,
};

const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    "strong comparison (RFC 9110 §13.1.1): a JSON answer's ETag is weak, so only `*` holds and a list of tags " +
    'is a 412 (judged only where the answer would be 2xx, before If-None-Match)',
  schema: { type: 'string' },
};

const READ_PRECONDITION_FAILED = {
  description:
    'Precondition Failed: If-Match does not hold on the answer (any list of tags, the weak ETag of a JSON ' +
    "answer included); the envelope with name 'PreconditionFailed'",
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      example: {
        status: 412,
        error: 'Precondition Failed',
        error_details: {
          name: 'PreconditionFailed',
          // What a read answers to its own weak ETag sent back in If-Match.
          message: ifMatchFailureOnRead('"0-abc"', 'W/"0-abc"'),
        },
      },
    },
  },
};

/**
 * What every GET (and so its HEAD) shares: its 2xx answer carries an ETag, and a request whose If-None-Match
 * names it is answered 304 with no body (res.send, sendJsonItems and sendJsonInSlices through the app's
 * req.fresh, src/http/freshness.ts; serve-image by the same clientCopyCurrent); an If-Match that does not hold
 * on it is a 412, judged at the same place. Added to every such operation, so a GET added later is described
 * without anyone remembering to; an operation that describes its own 304 or 412 (serve-image, with
 * If-Modified-Since and If-Unmodified-Since) keeps them.
 */
export function withConditionalReads(document: Schema): Schema {
  const paths = document.paths as Record<string, Record<string, Schema>>;
  for (const operations of Object.values(paths)) {
    for (const method of ['get', 'head']) {
      const operation = operations[method];
      if (!operation) continue;
      const responses = (operation.responses ?? {}) as Record<string, Schema>;
      if (!Object.keys(responses).some((status) => status.startsWith('2'))) continue;
      for (const [status, response] of Object.entries(responses)) {
        if (status.startsWith('2')) {
          response.headers = { ...ETAG_HEADER, ...(response.headers as Schema | undefined) };
        }
      }
      responses['304'] ??= NOT_MODIFIED;
      responses['412'] ??= READ_PRECONDITION_FAILED;
      const parameters = (operation.parameters ?? []) as Schema[];
      const hasHeader = (name: string) =>
        parameters.some((parameter) => parameter.in === 'header' && parameter.name === name);
      operation.parameters = [
        ...parameters,
        ...(hasHeader('If-None-Match') ? [] : [IF_NONE_MATCH]),
        ...(hasHeader('If-Match') ? [] : [IF_MATCH]),
      ];
      operation.responses = responses;
    }
  }
  return document;
}

const HEAD_DESCRIPTION =
  'The status and headers GET would answer for the same parameters and headers (Content-Length: that of ' +
  "the body GET sends; a 304 on a current If-None-Match; an error's headers without its envelope), with no " +
  'body (RFC 9110 §9.3.2).';

/**
 * Express answers a HEAD wherever a GET route is, with the GET's handler (the route table lists no HEAD of its
 * own; per-version.ts puts a HEAD wherever its GET is mounted): the GET's status and headers, no body. Each GET
 * gets that HEAD: its parameters and answers (withoutHeadBodies then drops their content), unless the path
 * describes a HEAD of its own (serve-image's, which ignores Range). Run before the passes that add answers and
 * headers to every operation, so the HEAD has those of its GET too.
 */
export function withHeads(document: Schema): Schema {
  const paths = document.paths as Record<string, Record<string, Schema>>;
  for (const operations of Object.values(paths)) {
    const get = operations.get;
    if (!get || operations.head) continue;
    const { summary, description: _get, ...rest } = structuredClone(get);
    operations.head = {
      ...rest,
      summary: `${String(summary)} (HEAD: its headers, no body)`,
      description: HEAD_DESCRIPTION,
    };
  }
  return document;
}

/**
 * A HEAD answer has the headers of the GET's and no body (RFC 9110 §9.3.2): its operations' answers, the ones
 * the passes above add included, describe no content.
 */
export function withoutHeadBodies(document: Schema): Schema {
  const paths = document.paths as Record<string, Record<string, Schema>>;
  for (const operations of Object.values(paths)) {
    const responses = operations.head?.responses as Record<string, Schema> | undefined;
    if (!responses) continue;
    operations.head!.responses = Object.fromEntries(
      Object.entries(responses).map(([status, { content: _body, ...response }]) => [status, response]),
    );
  }
  return document;
}

/**
 * The import webhook as an OpenAPI 3.1 `webhooks` entry: what Broadsheet POSTs to the `webhook` of
 * `POST import/documents` when the job finishes, generated from the payload's zod schema.
 */
export function importWebhook(): Schema {
  const { $schema: _ignored, ...payload } = z.toJSONSchema(ImportWebhookPayloadSchema, {
    io: 'output',
  }) as Schema;
  return {
    importFinished: {
      post: {
        summary:
          'Called when an import (POST import/documents with `webhook`) finishes. Up to WEBHOOK_ATTEMPTS calls ' +
          '(default 5), each within WEBHOOK_TIMEOUT_MS (default 10 s), with doubling delays; a 2xx delivers, ' +
          'a network error, timeout, 408, 429 or 5xx is retried, a redirect or another 4xx is final. The ' +
          'X-Broadsheet-Delivery header (the import job id) is the same on every call of one delivery.',
        parameters: [
          { name: 'X-Broadsheet-Event', in: 'header', required: true, schema: { const: 'import.finished' } },
          { name: 'X-Broadsheet-Delivery', in: 'header', required: true, schema: { type: 'string' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: payload } } },
        responses: { '2XX': { description: 'Delivered; the answer body is ignored' } },
      },
    },
  };
}
