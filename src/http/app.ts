import express, { type Express, type Request } from 'express';
import type { AppContext } from '../context';
import { weakEtag } from './etag';
import { answerConditionalRequestsAtOrigin } from './freshness';
import { accessLog } from './middleware/access-log';
import { absentRoutesAreUnknown } from './middleware/absent-routes';
import { apiVersion } from './middleware/api-version';
import { inOrder } from './middleware/in-order';
import { checkJsonBody, admitRequest, refuseInvalidUtf8 } from './middleware/json-body';
import { bodyDeadline } from './middleware/body-deadline';
import { API_MOUNT, metricsEndpoint, observeRequests } from './middleware/metrics';
import { noOptions, renderErrors, unknownRoute } from './middleware/errors';
import { rejectNulInPathParams, rejectNulInQuery } from './middleware/nul-bytes';
import { securityHeaders } from './middleware/security-headers';
import { writeAnswersCarryNoValidator } from './middleware/write-validators';
import { parseQueryString } from './query-params';
import { registerRoutes } from './routes';

/**
 * Builds the Express app: request metrics, security headers, request ids, logs, NUL guards, JSON body limit,
 * /metrics, versioned routes, errors.
 */
export function createApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  // URL paths are case-sensitive (RFC 3986 §6.2.2.1) and the API's are documented in one spelling: a path in
  // another case (/API/..., documents/1/latestpublication) is the plain unknown-route 404, not the route. Set
  // before the app's router exists, which takes it when made; the API's router takes it as an option.
  app.enable('case sensitive routing');
  app.set('query parser', parseQueryString);
  // TRUST_PROXY: which hops of X-Forwarded-For are proxies, so that req.ip (access log, failed-login limits) is
  // the client's address; off, the socket's peer is the client and X-Forwarded-For is ignored.
  app.set('trust proxy', ctx.config.http.trustProxy);
  app.set('etag', weakEtag);
  // 304 to If-None-Match even with the `Cache-Control: no-cache` fetch adds to it (freshness.ts says why).
  answerConditionalRequestsAtOrigin(app);
  app.use(
    inOrder([
      observeRequests(ctx.metrics),
      securityHeaders(),
      // A write's answer carries the ETag of no GET (RFC 9110 §9.3.4), unless its route says it is the GET's.
      writeAnswersCarryNoValidator,
      accessLog(ctx.logger),
      // Before anything that may answer without reading the body (a NUL in the query, a missing Host): Node
      // reads such a body off after the answer, and only this bounds how long that may take.
      bodyDeadline(ctx.config.http.bodyPace),
      rejectNulInQuery,
      admitRequest(ctx.config.http.bodyLimitBytes),
      express.json({ limit: ctx.config.http.bodyLimitBytes, strict: false, verify: refuseInvalidUtf8 }),
      checkJsonBody,
    ]),
  );
  // Only with its own token: without METRICS_TOKEN the API serves no metrics (README, "Metrics").
  if (ctx.config.metrics.token !== undefined) {
    app.get(
      '/metrics',
      metricsEndpoint(ctx.metrics, ctx.config.metrics.token, {
        failures: ctx.metricsTokenFailures,
        // As TRUST_PROXY says to read it, like the failed-login limit's.
        addressOf: (req) => (req as Request).ip,
      }),
    );
  }

  const api = express.Router({ mergeParams: true, caseSensitive: true });
  registerRoutes(api, {
    auth: ctx.auth,
    secretChecks: ctx.secretChecks,
    projectConfigs: ctx.projectConfigs,
    queryCache: ctx.queryCache,
    cursors: ctx.cursors,
    reads: ctx.reads,
    commands: ctx.commands,
    objects: ctx.objects,
  });
  rejectNulInPathParams(api);
  app.use(API_MOUNT, apiVersion, noOptions, absentRoutesAreUnknown(api), api);

  app.use(unknownRoute);
  app.use(renderErrors(ctx.logger, ctx.config.database));
  return app;
}
