import { randomBytes } from 'node:crypto';
import { runScheduledPublish, runScheduledUnpublish } from '../../src/commands/run-scheduled-publication';
import { documentQueries } from '../../src/db/queries/documents';
import { startTestApp, type TestApp } from '../helpers/app';
import { createDraftDocument, createPublishedDraft } from '../helpers/draft-documents';
import { createTestProject, tokenFor } from '../helpers/factories';
import { apiClient, eventually } from '../helpers/http';

describe('scheduled publish and unpublish', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let project: { projectId: number; channelId: number };

  beforeAll(async () => {
    app = await startTestApp({ workers: true });
    project = await createTestProject(app.ctx);
    api = apiClient(app.url, (await tokenFor(app.ctx, project.projectId)).token);
  });
  afterAll(async () => {
    await app.close();
  });

  const load = async (id: number) => (await documentQueries(app.ctx.pool).findById(project.projectId, id))!;
  const secondsAhead = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
  const word = () => `word${randomBytes(5).toString('hex')}`;
  const searchIds = async (term: string): Promise<number[]> => {
    const response = await api.get(`publications/search?search=${term}&fields=id`);
    expect(response.status).toBe(200);
    return (response.body.results as { documentId: number }[]).map((hit) => hit.documentId);
  };
  const publicationCount = async (id: number) =>
    Number(
      (
        await app.ctx.pool.query<{ n: string }>(
          'SELECT count(*) AS n FROM publications WHERE document_id = $1',
          [id],
        )
      ).rows[0]!.n,
    );

  it('when a publish schedule a few seconds ahead fires, then the draft as it is then is published and becomes searchable', async () => {
    const scheduledWord = word();
    const laterWord = word();
    const doc = await createDraftDocument(app.ctx, {
      ...project,
      metadata: { title: `Scheduled ${scheduledWord}` },
    });
    const scheduled = await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'addPublishSchedule', date: secondsAhead(3) }],
    });
    expect(scheduled.status).toBe(204);
    // Changed after scheduling: the schedule publishes this, not what the draft was when it was scheduled.
    const edited = await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'setMetadataProperty', propertyName: 'title', value: `Edited ${laterWord}` }],
    });
    expect(edited.status).toBe(204);
    expect((await load(doc.id)).latestPublicationId).toBeNull();

    await eventually(async () => (await searchIds(laterWord)).includes(doc.id), 20_000, 250);
    const row = await load(doc.id);
    expect(row.latestPublicationId).not.toBeNull();
    expect(row.publishScheduleAt).toBeNull();
    expect(row.publishedVersion).toBe(row.version);
    expect(await searchIds(scheduledWord)).toEqual([]);
    const latest = await api.get(`documents/${doc.id}/latestPublication`);
    expect(latest.body.metadata.title).toBe(`Edited ${laterWord}`);
  });

  it('when an unpublish schedule fires, then the document is unpublished and leaves the search index', async () => {
    const term = word();
    const doc = await createPublishedDraft(app.ctx, { ...project, metadata: { title: `Going ${term}` } });
    await eventually(async () => (await searchIds(term)).includes(doc.id), 20_000, 250);
    const scheduled = await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'addUnpublishSchedule', date: secondsAhead(2) }],
    });
    expect(scheduled.status).toBe(204);
    await eventually(async () => (await load(doc.id)).latestPublicationId === null, 20_000, 250);
    expect((await load(doc.id)).unpublishScheduleAt).toBeNull();
    await eventually(async () => (await searchIds(term)).length === 0, 20_000, 250);
  });

  it('when a scheduled publish job runs twice, even at once, then the document is published once', async () => {
    const doc = await createDraftDocument(app.ctx, project);
    const at = secondsAhead(3600);
    await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'addPublishSchedule', date: at }],
    });
    const job = { projectId: project.projectId, documentId: doc.id, at };
    const outcomes = await Promise.all([
      runScheduledPublish(app.ctx.pool, app.ctx.boss, job, new Date()),
      runScheduledPublish(app.ctx.pool, app.ctx.boss, job, new Date()),
    ]);
    expect(outcomes.sort()).toEqual(['published', 'skipped']);
    expect(await runScheduledPublish(app.ctx.pool, app.ctx.boss, job, new Date())).toBe('skipped');
    expect(await publicationCount(doc.id)).toBe(1);
  });

  it('when a schedule was cancelled or replaced, then its old job does nothing', async () => {
    const doc = await createPublishedDraft(app.ctx, project);
    const first = secondsAhead(3600);
    const second = secondsAhead(7200);
    await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'addPublishSchedule', date: first }],
    });
    await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'addPublishSchedule', date: second }],
    });
    const ids = { projectId: project.projectId, documentId: doc.id };
    expect(await runScheduledPublish(app.ctx.pool, app.ctx.boss, { ...ids, at: first }, new Date())).toBe(
      'skipped',
    );
    expect((await load(doc.id)).publishScheduleAt!.toISOString()).toBe(second);

    await api.patch(`documents/${doc.id}/commands`, {
      commands: [{ operation: 'addUnpublishSchedule', date: first }],
    });
    await api.patch(`documents/${doc.id}/commands`, { commands: [{ operation: 'cancelUnpublishSchedule' }] });
    expect(await runScheduledUnpublish(app.ctx.pool, app.ctx.boss, { ...ids, at: first })).toBe('skipped');
    expect((await load(doc.id)).latestPublicationId).toBe(doc.latestPublicationId);
    expect(await publicationCount(doc.id)).toBe(1);
  });

  it('when a scheduled publish is due under an embargo, then it is postponed to the embargo’s end', async () => {
    const doc = await createDraftDocument(app.ctx, project);
    const at = secondsAhead(3600);
    const until = secondsAhead(7200);
    const response = await api.patch(`documents/${doc.id}/commands`, {
      commands: [
        { operation: 'addPublishSchedule', date: at },
        { operation: 'setEmbargo', reason: 'court order', until },
      ],
    });
    expect(response.status).toBe(204);
    const job = { projectId: project.projectId, documentId: doc.id, at };
    expect(await runScheduledPublish(app.ctx.pool, app.ctx.boss, job, new Date(at))).toBe('postponed');
    const row = await load(doc.id);
    expect(row.latestPublicationId).toBeNull();
    expect(row.publishScheduleAt!.toISOString()).toBe(until);
    const jobs = await app.ctx.pool.query(
      `SELECT data->>'at' AS at FROM pgboss.job WHERE name = 'scheduled-publish' AND (data->>'documentId')::bigint = $1 ORDER BY created_on`,
      [doc.id],
    );
    expect(jobs.rows.map((j: { at: string }) => j.at)).toEqual([at, until]);
  });
});
