import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Router } from 'express';
import { AppError } from '../../../domain/errors';
import { parseOrThrow } from '../../../domain/validation';
import { preconditionHeaders, writePreconditionsOf } from '../../conditional-get';
import { onlyIn } from '../../middleware/api-version';
import { requireScope } from '../../middleware/authenticate';
import { jsonBody, sentContentType } from '../../middleware/json-body';
import { noQueryParams, parseQueryOrThrow } from '../../query-params';
import type { RouteDeps } from '../deps';
import {
  basicCredentials,
  followBody,
  followDocumentBody,
  publicationDocumentParams,
  repeatedTokenParams,
  statusesBody,
  tokenBody,
} from './planner-integration.schema';

/** `planner-integration` in every version, `legacy-planner-integration` up to 2025-03 (supplement §1). */
const SEGMENTS: readonly { segment: string; gate: RequestHandler[] }[] = [
  { segment: 'planner-integration', gate: [] },
  { segment: 'legacy-planner-integration', gate: [onlyIn({ to: '2025-03' })] },
];

/** A token request is a form (RFC 6749 §4.4.2) or JSON; anything else is a 415 saying so. */
const formOrJsonBody: RequestHandler = (req, _res, next) => {
  if (req.is(['application/x-www-form-urlencoded', 'application/json']) === false) {
    throw new AppError(415, {
      name: 'UnsupportedMediaType',
      message: `Send the token request as application/x-www-form-urlencoded or application/json (${sentContentType(req)})`,
    });
  }
  next();
};

/** RFC 6749 §5.2: a failed client authentication with Basic answers with the Basic challenge. */
const basicChallenge: ErrorRequestHandler = (error, _req, res, next) => {
  if (error instanceof AppError && error.status === 401) {
    res.set('WWW-Authenticate', 'Basic realm="broadsheet", charset="UTF-8"');
  }
  next(error);
};

/** What PUT publication writes: the tool's record as sent, under the request's preconditions. */
const followInput = (req: Request, documentId: number) => ({
  projectId: req.auth.projectId,
  documentId,
  record: req.body as unknown,
  ...writePreconditionsOf(preconditionHeaders(req)),
});

/**
 * The planning tool's publication-state integration (api-spec §4.19): it logs in with client credentials for
 * a short-lived token (oauth/token), then follows documents' publication state: statuses reads them,
 * PUT publication follows one (keeping the tool's record of it), DELETE stops following; both under the
 * request's If-Match, If-None-Match and If-Unmodified-Since. Shapes: OpenAPI.
 */
export function plannerIntegrationRoutes(
  router: Router,
  {
    auth,
    secretChecks,
    commands,
    reads,
    projectConfigs,
  }: Pick<RouteDeps, 'auth' | 'secretChecks' | 'commands' | 'reads' | 'projectConfigs'>,
): void {
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const issueToken: RequestHandler = async (req, res) => {
    const credentials = basicCredentials(req.headers.authorization);
    if (!credentials) {
      throw new AppError(401, {
        name: 'InvalidClient',
        message: "Send the API client's id and secret as HTTP Basic credentials.",
      });
    }
    // Only a form repeats a parameter as a list; in JSON a list is a value of the wrong type.
    const repeated = req.is('application/x-www-form-urlencoded') ? repeatedTokenParams(req.body) : undefined;
    if (repeated) throw AppError.validation(repeated);
    parseOrThrow(tokenBody, req.body ?? {});
    // Past the failed-attempt limits of the address or the client: a 429 before the secret is looked at.
    const token = await secretChecks(req, credentials.clientId, () =>
      commands.issuePlannerToken(credentials, new Date()),
    );
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(token);
  };
  for (const { segment, gate } of SEGMENTS) {
    const base = `/${segment}`;
    router.post(`${base}/oauth/token`, ...gate, formOrJsonBody, form, issueToken, basicChallenge);

    router.post(`${base}/statuses`, ...gate, ...auth, requireScope('planner'), jsonBody, async (req, res) => {
      parseQueryOrThrow(noQueryParams, req.query);
      const { documentIds } = parseOrThrow(statusesBody, req.body);
      const project = await projectConfigs.get(req.auth.projectId);
      const results = await reads.plannerPublications.statuses(project, documentIds);
      res.json(req.apiVersion.wrapsLists ? { results } : results);
    });

    router.put(
      `${base}/publication`,
      ...gate,
      ...auth,
      requireScope('planner'),
      jsonBody,
      async (req, res) => {
        parseQueryOrThrow(noQueryParams, req.query);
        const { documentId } = parseOrThrow(followBody, req.body);
        res.json(await commands.followPublication(followInput(req, documentId)));
      },
    );

    router.put(
      `${base}/publication/:documentId`,
      ...gate,
      ...auth,
      requireScope('planner'),
      jsonBody,
      async (req, res) => {
        const { documentId } = parseOrThrow(publicationDocumentParams, req.params);
        parseQueryOrThrow(noQueryParams, req.query);
        const body = parseOrThrow(followDocumentBody, req.body);
        if (body.documentId !== undefined && body.documentId !== documentId) {
          throw AppError.validation({
            documentId: `must be the document of the path (${documentId}) when given`,
          });
        }
        res.json(await commands.followPublication(followInput(req, documentId)));
      },
    );

    router.delete(
      `${base}/publication/:documentId`,
      ...gate,
      ...auth,
      requireScope('planner'),
      async (req, res) => {
        const { documentId } = parseOrThrow(publicationDocumentParams, req.params);
        parseQueryOrThrow(noQueryParams, req.query);
        await commands.unfollowPublication(
          req.auth.projectId,
          documentId,
          writePreconditionsOf(preconditionHeaders(req)),
        );
        res.status(204).end();
      },
    );
  }
}
