import { clientSecretMatches, hashClientSecret } from '../../src/domain/client-secrets';
import {
  PLANNER_TOKEN_SECONDS,
  plannerTokenLifetime,
  publicationStatesOf,
  type PublicationStateSource,
} from '../../src/domain/planner-integration';
import {
  basicCredentials,
  repeatedTokenParams,
} from '../../src/http/routes/planner-integration/planner-integration.schema';

const CLIENT = '6f1c2a9e-1b2c-4d3e-8f90-a1b2c3d4e5f6';
const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('basicCredentials', () => {
  it('when the header holds a client id and secret, then both come out, form-decoded (RFC 6749 §2.3.1)', () => {
    expect(basicCredentials(basic(`${CLIENT}:s3cr%3At+x`))).toEqual({ clientId: CLIENT, secret: 's3cr:t x' });
    expect(basicCredentials(`basic  ${Buffer.from(`${CLIENT}:a:b`).toString('base64')}`)).toEqual({
      clientId: CLIENT,
      secret: 'a:b',
    });
  });

  it('when the header is missing, another scheme, not base64, without colon, secret or a uuid client id, then nothing', () => {
    for (const header of [
      undefined,
      '',
      `Bearer ${CLIENT}`,
      'Basic',
      'Basic ***',
      basic(CLIENT),
      basic(`${CLIENT}:`),
      basic('client:secret'),
      basic(`${CLIENT}:%E0%A4%A`),
    ]) {
      expect([header, basicCredentials(header)]).toEqual([header, undefined]);
    }
  });
});

describe('client secrets', () => {
  it('when a secret is hashed, then only that secret matches the hash, and the hash is not the secret', () => {
    const hash = hashClientSecret('correct horse');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(clientSecretMatches('correct horse', hash)).toBe(true);
    expect(clientSecretMatches('correct horsf', hash)).toBe(false);
    expect(clientSecretMatches('correct horse', 'abcd')).toBe(false);
  });
});

describe('plannerTokenLifetime', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it('when the client never expires, then an hour; when it expires sooner, then until it does; expired, then 0', () => {
    expect(plannerTokenLifetime(null, now)).toBe(PLANNER_TOKEN_SECONDS);
    expect(plannerTokenLifetime(new Date('2026-01-02T00:00:00Z'), now)).toBe(PLANNER_TOKEN_SECONDS);
    expect(plannerTokenLifetime(new Date('2026-01-01T00:10:00.900Z'), now)).toBe(600);
    expect(plannerTokenLifetime(new Date('2025-12-31T00:00:00Z'), now)).toBe(0);
  });
});

describe('publicationStatesOf', () => {
  const row = (overrides: Partial<PublicationStateSource>): PublicationStateSource => ({
    id: 1,
    version: 3,
    updatedAt: new Date('2026-01-01T10:00:00Z'),
    latestPublicationId: null,
    publishedVersion: null,
    firstPublicationDate: null,
    lastPublicationDate: null,
    embargoSet: false,
    embargoReason: null,
    embargoUntil: null,
    publishScheduleAt: null,
    unpublishScheduleAt: null,
    everPublished: false,
    elementId: null,
    plannerPublication: null,
    ...overrides,
  });

  it('when documents are draft, live, live with changes or taken down, then each gets its status, in the order asked', () => {
    const published = { latestPublicationId: 9, everPublished: true, firstPublicationDate: new Date(0) };
    const states = publicationStatesOf(
      [4, 2, 3, 1, 5],
      [
        row({ id: 1 }),
        row({ id: 2, ...published, publishedVersion: 3 }),
        row({ id: 3, ...published, publishedVersion: 2 }),
        row({ id: 4, everPublished: true, firstPublicationDate: new Date(0) }),
      ],
    );
    expect(states.map((state) => [state.documentId, state.status])).toEqual([
      [4, 'unpublished'],
      [2, 'published'],
      [3, 'published'],
      [1, 'draft'],
      [5, 'not-found'],
    ]);
    expect(states[1]).toMatchObject({ publicationId: 9, hasUnpublishedChanges: false });
    expect(states[2]).toMatchObject({ publicationId: 9, hasUnpublishedChanges: true });
    expect(states[4]).toEqual({ documentId: 5, status: 'not-found' });
  });

  it('when a document has schedules, an embargo, an element and a followed publication, then they are in its state', () => {
    const [state] = publicationStatesOf(
      [1],
      [
        row({
          publishScheduleAt: new Date('2026-02-01T08:00:00Z'),
          embargoSet: true,
          embargoReason: 'court order',
          elementId: 'story-1',
          plannerPublication: { id: 'p', status: 'planned' },
        }),
      ],
    );
    expect(state).toEqual({
      documentId: 1,
      status: 'draft',
      publicationId: null,
      hasUnpublishedChanges: false,
      version: 3,
      updatedAt: '2026-01-01T10:00:00.000Z',
      firstPublicationDate: null,
      lastPublicationDate: null,
      publishSchedule: '2026-02-01T08:00:00.000Z',
      unpublishSchedule: null,
      embargo: { reason: 'court order', until: null },
      elementId: 'story-1',
      publication: { id: 'p', status: 'planned' },
    });
  });
});

describe('repeatedTokenParams', () => {
  it('names each token parameter a form gave more than once, and only those', () => {
    expect(
      repeatedTokenParams({ grant_type: ['client_credentials', 'client_credentials'], scope: 'planner' }),
    ).toEqual({ grant_type: 'must be given once (RFC 6749 §3.1)' });
    expect(repeatedTokenParams({ grant_type: 'client_credentials', other: ['a', 'b'] })).toBeUndefined();
    expect(repeatedTokenParams(undefined)).toBeUndefined();
  });
});
