import type { Pool, Transaction } from '../db/pool';
import { withTransaction } from '../db/pool';
import { apiClientQueries } from '../db/queries/api-clients';
import { documentQueries } from '../db/queries/documents';
import { plannerPublicationQueries } from '../db/queries/planner-publications';
import { projectQueries, type ProjectRow } from '../db/queries/projects';
import { clientSecretMatches } from '../domain/client-secrets';
import { AppError } from '../domain/errors';
import {
  assertPutPreconditions,
  assertWritePreconditions,
  type PreconditionTarget,
  type WritePreconditions,
} from '../domain/write-preconditions';
import {
  assertPlannerIntegrationEnabled,
  plannerTokenLifetime,
  publicationStateOf,
  type PublicationState,
} from '../domain/planner-integration';
import { signClientToken, type TokenStamp } from './api-clients';

/** What RFC 6749 §5.1 answers a client-credentials grant with. */
export interface PlannerToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: 'planner';
}

/** One answer for every credential problem: a caller learns nothing about which clients exist. */
const invalidClient = () =>
  new AppError(401, { name: 'InvalidClient', message: 'The client credentials are invalid.' });

/**
 * POST planner-integration/oauth/token: HTTP Basic client credentials (an API client of the project and its
 * secret) for a short-lived token with the scope `planner`. The token is an ordinary client token of that
 * client (its `jti`), so revoking the client stops it at once, and it never outlives the client.
 */
export async function issuePlannerToken(
  deps: { pool: Pool; jwtSecret: string; jwtStamp: TokenStamp },
  credentials: { clientId: string; secret: string },
  now: Date,
): Promise<PlannerToken> {
  const client = await apiClientQueries(deps.pool).findWithSecretHash(credentials.clientId);
  if (!client?.secretHash || !clientSecretMatches(credentials.secret, client.secretHash))
    throw invalidClient();
  const lifetime = plannerTokenLifetime(client.expiresAt, now);
  if (client.revokedAt || lifetime === 0) throw invalidClient();
  if (!client.scopes.includes('planner')) {
    throw new AppError(403, { access_token: 'The request requires higher privileges' });
  }
  const project = await projectQueries(deps.pool).findById(client.projectId);
  if (!project) throw invalidClient();
  assertPlannerIntegrationEnabled(project);
  return {
    access_token: signClientToken(deps.jwtSecret, {
      projectId: project.id,
      channelId: client.channelId ?? project.defaultChannelId,
      scopes: ['planner'],
      name: client.name,
      clientId: client.id,
      expiresInSeconds: lifetime,
      ...deps.jwtStamp,
    }),
    token_type: 'Bearer',
    expires_in: lifetime,
    scope: 'planner',
  };
}

/** How a precondition's 412 names the tool's record of a publication. */
const FOLLOWED: PreconditionTarget = {
  noun: 'followed publication',
  readAgain: 'POST planner-integration/statuses',
  createdWhenAbsent: true,
};

const notFollowed = (documentId: number) => `the publication of document ${documentId} is not followed`;

/** A PUT publication: the document, the tool's record of its publication, and the request's preconditions. */
export interface FollowPublicationInput extends WritePreconditions {
  projectId: number;
  documentId: number;
  record: unknown;
}

/**
 * PUT planner-integration/publication[/{documentId}]: the tool follows the document's publication, its record of
 * it stored as sent (a second PUT replaces it). Answers the publication state as it is after the write. The
 * preconditions (If-Match, If-None-Match, If-Unmodified-Since) are judged on the record, locked: If-None-Match: *
 * starts following only, If-Unmodified-Since replaces only a record not written since.
 */
export async function followPublication(
  pool: Pool,
  input: FollowPublicationInput,
): Promise<PublicationState> {
  return withTransaction(pool, async (tx) => {
    await enabledProject(tx, input.projectId);
    // Held only against its deletion (the record references it: the foreign key's own lock), not FOR UPDATE:
    // nothing of the document is written here, so an update of it (a config apply re-indexing it) need not
    // wait for the tool.
    const document = await documentQueries(tx).findByIdForKeyShare(input.projectId, input.documentId);
    if (!document) throw AppError.notFound(`Document ${input.documentId} not found`);
    const followed = await plannerPublicationQueries(tx).findForUpdate(input.projectId, document.id);
    assertPutPreconditions(input, FOLLOWED, followed, notFollowed(document.id));
    await plannerPublicationQueries(tx).upsert(input.projectId, document.id, input.record);
    const [state] = await documentQueries(tx).findPublicationStates(input.projectId, [document.id]);
    return publicationStateOf(state!);
  });
}

/**
 * DELETE planner-integration/publication/{documentId}: the tool stops following it; the document is untouched.
 * Preconditions are judged on the record, as a PUT's.
 */
export async function unfollowPublication(
  pool: Pool,
  projectId: number,
  documentId: number,
  preconditions: WritePreconditions = {},
): Promise<void> {
  await withTransaction(pool, async (tx) => {
    await enabledProject(tx, projectId);
    const publications = plannerPublicationQueries(tx);
    const followed = await publications.findForUpdate(projectId, documentId);
    if (!followed) throw AppError.notFound(`The publication of document ${documentId} is not followed`);
    assertWritePreconditions(preconditions, FOLLOWED, followed);
    await publications.delete(projectId, documentId);
  });
}

async function enabledProject(tx: Transaction, projectId: number): Promise<ProjectRow> {
  const project = await projectQueries(tx).findById(projectId);
  if (!project) throw AppError.notFound(`Project ${projectId} not found`);
  assertPlannerIntegrationEnabled(project);
  return project;
}
