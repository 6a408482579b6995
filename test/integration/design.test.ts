import { startTestApp, type TestApp } from '../helpers/app';
import { createTestProject, TEST_DESIGN, tokenFor } from '../helpers/factories';
import { apiClient } from '../helpers/http';

describe('design', () => {
  let app: TestApp;
  let api: ReturnType<typeof apiClient>;
  let projectId: number;
  beforeAll(async () => {
    app = await startTestApp();
    const older = { ...TEST_DESIGN, version: '0.9.0', components: TEST_DESIGN.components.slice(0, 2) };
    ({ projectId } = await createTestProject(app.ctx, { designs: [older, TEST_DESIGN] }));
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId)).token);
  });
  afterAll(async () => {
    await app.close();
  });

  it('when no or a bad token is sent, then 401; without public-api:read, then 403', async () => {
    expect((await apiClient(app.url).get('design')).status).toBe(401);
    expect((await apiClient(app.url, 'x.y.z').get('design/1.0.0')).status).toBe(401);
    const { token } = await tokenFor(app.ctx, projectId, ['public-api:write']);
    expect((await apiClient(app.url, token).get('design')).status).toBe(403);
  });

  it('when reading the design, then the current one comes with every documented key', async () => {
    const response = await api.get('design');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(
      ['assets', 'components', 'defaultComponents', 'groups', 'metadata', 'name', 'version'].sort(),
    );
    expect(response.body).toMatchObject({ name: 'test-design', version: '1.0.0' });
    expect(response.body.components).toHaveLength(TEST_DESIGN.components.length);
    expect(response.body.components[0]).toEqual({
      name: 'title',
      label: 'Title',
      html: '',
      directives: [{ name: 'title', type: 'editable' }],
    });
  });

  it('when reading a design version, then that version is answered; an unknown version is 404', async () => {
    const older = await api.get('design/0.9.0');
    expect(older.status).toBe(200);
    expect(older.body.version).toBe('0.9.0');
    expect(older.body.components).toHaveLength(2);
    const unknown = await api.get('design/7.7.7');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error_details).toMatchObject({ name: 'NotFound' });
  });

  it('when a query parameter is sent, then 400 names it, as on every other read', async () => {
    // design?version=0.9.0 answered the current design as if the version had been honoured.
    for (const path of ['design?version=0.9.0', 'design/0.9.0?name=other']) {
      const response = await api.get(path);
      expect(response.status).toBe(400);
      expect(response.body.error_details).toEqual(
        path.startsWith('design?')
          ? { name: 'ValidationError', version: 'is not allowed' }
          : { name: 'ValidationError', message: 'name: is not allowed' },
      );
    }
  });

  it("when designs of several names have the version asked for, then it is the current design's", async () => {
    // The current design is test-design 2.0.0; another design of the project has a 1.0.0 of its own. The read
    // took whichever row came first, so design/1.0.0 could answer the other design.
    const other = { ...TEST_DESIGN, name: 'another-design', components: TEST_DESIGN.components.slice(0, 1) };
    const previous = { ...TEST_DESIGN, components: TEST_DESIGN.components.slice(0, 3) };
    const { projectId: redesigned } = await createTestProject(app.ctx, {
      config: { design: { name: TEST_DESIGN.name, version: '2.0.0' } },
      designs: [other, previous, { ...TEST_DESIGN, version: '2.0.0' }],
    });
    const client = apiClient(app.url, (await tokenFor(app.ctx, redesigned)).token);
    expect((await client.get('design')).body).toMatchObject({ name: 'test-design', version: '2.0.0' });
    const response = await client.get('design/1.0.0');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'test-design', version: '1.0.0' });
    expect(response.body.components).toHaveLength(3);
  });

  it("when another project's token asks for a version only this project has, then 404", async () => {
    const other = await createTestProject(app.ctx, { designs: [] });
    const { token } = await tokenFor(app.ctx, other.projectId);
    expect((await apiClient(app.url, token).get('design/0.9.0')).status).toBe(404);
    expect((await apiClient(app.url, token).get('design')).status).toBe(404);
  });
});
