import { AppError } from '../../src/domain/errors';
import { startTestApp, type TestApp } from '../helpers/app';
import { createPublishedDocument } from '../helpers/documents';
import { createTestChannel, createTestProject, READ, tokenFor } from '../helpers/factories';
import { loadMenu, loadPublications, type FixtureMenu, type FixtureMenuNode } from '../helpers/fixtures';
import { apiClient, envelope } from '../helpers/http';
import { menuAnswer } from '../../src/http/routes/menus/menus.schema';

const MENU_VERSIONS = ['v1', 'beta', '2025-03'];
const LATER_VERSIONS = ['2025-05', '2025-07', '2025-09', '2025-11', '2026-01', '2026-03'];

/** The magazine's main menu with its document nodes pointing at `idOf(fixture id)`. */
function menuWithIds(idOf: (fixtureId: string) => string): FixtureMenu {
  const map = (nodes: FixtureMenuNode[]): FixtureMenuNode[] =>
    nodes.map((node) => ({
      ...node,
      ...(node.documentId === undefined ? {} : { documentId: idOf(node.documentId) }),
      nodes: map(node.nodes),
    }));
  const menu = loadMenu('main');
  return { ...menu, nodes: map(menu.nodes) };
}

/** The error_details of the 400 that loading `menu` fails with. */
async function refusal(run: Promise<unknown>): Promise<Record<string, unknown>> {
  const error: unknown = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).status).toBe(400);
  return (error as AppError).details;
}

describe('menus', () => {
  let app: TestApp;
  let projectId: number;
  /** Fixture document id (`"302"`) → the id the magazine document got in this project. */
  const idOf = new Map<string, string>();
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    app = await startTestApp();
    ({ projectId } = await createTestProject(app.ctx));
    const referenced = new Set<string>();
    const collect = (nodes: FixtureMenuNode[]) =>
      nodes.forEach((node) => {
        if (node.documentId !== undefined) referenced.add(node.documentId);
        collect(node.nodes);
      });
    collect(loadMenu('main').nodes);
    for (const publication of loadPublications().filter((p) => referenced.has(String(p.id)))) {
      const { documentId } = await createPublishedDocument(app.ctx, projectId, {
        contentType: publication.systemdata.contentType,
        documentType: publication.systemdata.documentType,
        metadata: publication.metadata,
        content: publication.content,
      });
      idOf.set(String(publication.id), String(documentId));
    }
    expect([...idOf.keys()].sort()).toEqual([...referenced].sort());
    await app.ctx.commands.loadMenu({ projectId, menu: menuWithIds((id) => idOf.get(id)!) });
    await app.ctx.commands.loadMenu({
      projectId,
      menu: {
        handle: 'footer',
        label: 'Footer',
        maxDepth: 0,
        nodes: [{ label: 'Imprint', type: 'path', path: '/imprint' }],
      },
    });
    api = apiClient(app.url, (await tokenFor(app.ctx, projectId, READ)).token, '2025-03');
  });
  afterAll(() => app.close());

  it('when no token is sent, then 401; without public-api:read, then 403', async () => {
    for (const path of ['menus?handle=main', 'menus/web?handle=main']) {
      const anonymous = await apiClient(app.url, undefined, 'v1').get(path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual(
        envelope(401, 'Unauthorized', { access_token: 'The access token is missing.' }),
      );
      const { token } = await tokenFor(app.ctx, projectId, ['public-api:write', 'public-api:config:read']);
      const forbidden = await apiClient(app.url, token, 'v1').get(path);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error_details).toEqual({
        access_token: 'The request requires higher privileges',
      });
    }
  });

  it('when a parameter is unknown, empty or repeated, then 400 naming it', async () => {
    const unknown = await api.get('menus?handle=main&nope=1');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(
      envelope(400, 'Bad Request', { name: 'ValidationError', nope: 'is not allowed' }),
    );
    expect((await api.get('menus/web?handle=')).body.error_details).toEqual({
      name: 'ValidationError',
      handle: 'must not be empty',
    });
    expect((await api.get('menus?handle=main&handle=footer')).body.error_details).toEqual({
      name: 'ValidationError',
      handle: 'must be given once',
    });
  });

  it('when asked on v1, beta and 2025-03, then the menu comes in the shape sites expect, its document nodes naming real documents', async () => {
    const id = (fixtureId: string) => idOf.get(fixtureId)!;
    for (const version of MENU_VERSIONS) {
      const response = await api.withVersion(version).get('menus?handle=main');
      expect(response.status).toBe(200);
      expect(response.body).toHaveLength(1);
      // The answer's zod schema, from which the OpenAPI description's is generated, holds the real answer.
      expect(menuAnswer.array().safeParse(response.body).error).toBeUndefined();
      const [menu] = response.body;
      expect(Object.keys(menu)).toEqual(['handle', 'label', 'version', 'maxDepth', 'nodes']);
      expect(menu).toMatchObject({ handle: 'main', label: 'Main', version: 3, maxDepth: 1 });
      expect(menu.nodes[0]).toEqual({
        id: '1',
        label: 'City',
        type: 'document',
        documentId: id('302'),
        nodes: [
          { id: '1.1', label: 'Night Ferries', type: 'document', documentId: id('322'), nodes: [] },
          { id: '1.2', label: 'Council Meetings', type: 'path', path: '/city/council', nodes: [] },
        ],
      });
      expect(menu.nodes.map((node: { label: string }) => node.label)).toEqual([
        'City',
        'Climate',
        'Science',
        'Culture',
        'Videos',
        'Photos',
        'Archive',
        'Subscribe',
      ]);
      expect(menu.nodes[7]).toEqual({
        id: '8',
        label: 'Subscribe',
        type: 'uri',
        uri: 'https://subscribe.livingtimes.example/',
        nodes: [],
      });
      // Each node's keys in the order supplement §8 gives, at every level (toEqual does not look at order).
      expect(Object.keys(menu.nodes[0])).toEqual(['id', 'label', 'type', 'documentId', 'nodes']);
      expect(Object.keys(menu.nodes[0].nodes[0])).toEqual(['id', 'label', 'type', 'documentId', 'nodes']);
      expect(Object.keys(menu.nodes[0].nodes[1])).toEqual(['id', 'label', 'type', 'path', 'nodes']);
      expect(Object.keys(menu.nodes[7])).toEqual(['id', 'label', 'type', 'uri', 'nodes']);
    }
    // A site can render every document node: each one is a published document of the project.
    const night = await api.get(`documents/${id('322')}/latestPublication`);
    expect(night.status).toBe(200);
    expect(night.body.metadata.title).toBe(loadPublications().find((p) => p.id === 322)!.metadata.title);
  });

  it('when the route is asked from 2025-05 on, then it does not exist: the plain 404 {url}', async () => {
    for (const version of LATER_VERSIONS) {
      for (const path of ['menus?handle=main', 'menus/web?handle=main']) {
        const response = await api.withVersion(version).get(path);
        expect(response.status).toBe(404);
        expect(response.body).toEqual({
          status: 404,
          error: 'Not Found',
          error_details: { url: `/api/${version}/${path.split('?')[0]}` },
        });
      }
    }
  });

  it('when no handle is given, then every menu of the channel, ordered by handle', async () => {
    const response = await api.get('menus');
    expect(response.status).toBe(200);
    expect(response.body.map((menu: { handle: string }) => menu.handle)).toEqual(['footer', 'main']);
    expect(response.body[0]).toEqual({
      handle: 'footer',
      label: 'Footer',
      version: 1,
      maxDepth: 0,
      nodes: [{ id: '1', label: 'Imprint', type: 'path', path: '/imprint', nodes: [] }],
    });
    expect((await api.get('menus/web')).body).toEqual(response.body);
  });

  it('when a channel is named, then its menus; an unknown channel or handle is a 404 naming it', async () => {
    const channelId = await createTestChannel(app.ctx, projectId, 'app');
    expect(channelId).toBeGreaterThan(0);
    await app.ctx.commands.loadMenu({
      projectId,
      channelHandle: 'app',
      menu: {
        handle: 'main',
        label: 'App main',
        maxDepth: 0,
        nodes: [{ label: 'Home', type: 'path', path: '/' }],
      },
    });
    const appMenus = await api.get('menus/app?handle=main');
    expect(appMenus.status).toBe(200);
    expect(appMenus.body).toEqual([
      {
        handle: 'main',
        label: 'App main',
        version: 1,
        maxDepth: 0,
        nodes: [{ id: '1', label: 'Home', type: 'path', path: '/', nodes: [] }],
      },
    ]);
    expect((await api.get('menus/app')).body).toHaveLength(1);
    expect((await api.get('menus?handle=main')).body[0].label).toBe('Main');

    const unknownChannel = await api.get('menus/print?handle=main');
    expect(unknownChannel.status).toBe(404);
    expect(unknownChannel.body).toEqual(
      envelope(404, 'Not Found', { name: 'NotFound', message: "Channel 'print' not found" }),
    );
    const unknownMenu = await api.get('menus?handle=sidebar');
    expect(unknownMenu.status).toBe(404);
    expect(unknownMenu.body).toEqual(
      envelope(404, 'Not Found', { name: 'NotFound', message: "Menu 'sidebar' not found in channel 'web'" }),
    );
    expect((await api.get('menus/app?handle=footer')).body.error_details.message).toBe(
      "Menu 'footer' not found in channel 'app'",
    );
  });

  it("when another project's token asks, then this project's menus are never visible", async () => {
    const other = await createTestProject(app.ctx);
    const otherApi = apiClient(app.url, (await tokenFor(app.ctx, other.projectId, READ)).token, 'v1');
    const main = await otherApi.get('menus?handle=main');
    expect(main.status).toBe(404);
    expect(main.body.error_details.message).toBe("Menu 'main' not found in channel 'web'");
    expect((await otherApi.get('menus')).body).toEqual([]);
    expect((await otherApi.get('menus/web')).body).toEqual([]);
    expect((await otherApi.get('menus/app?handle=main')).status).toBe(404);
  });

  describe('loading a menu', () => {
    it('when the same menu is loaded again, then its version stays; a changed one counts up, never below the file', async () => {
      const { projectId: own } = await createTestProject(app.ctx);
      const menu = {
        handle: 'main',
        label: 'Main',
        maxDepth: 0,
        nodes: [{ label: 'A', type: 'path', path: '/a' }],
      };
      expect((await app.ctx.commands.loadMenu({ projectId: own, menu })).version).toBe(1);
      expect((await app.ctx.commands.loadMenu({ projectId: own, menu })).version).toBe(1);
      const renamed = { ...menu, label: 'Main menu' };
      expect((await app.ctx.commands.loadMenu({ projectId: own, menu: renamed })).version).toBe(2);
      const exported = {
        ...renamed,
        version: 11,
        nodes: [...menu.nodes, { label: 'B', type: 'path', path: '/b' }],
      };
      expect((await app.ctx.commands.loadMenu({ projectId: own, menu: exported })).version).toBe(11);
      const edited = { ...exported, version: 5, label: 'Edited' };
      expect((await app.ctx.commands.loadMenu({ projectId: own, menu: edited })).version).toBe(12);
      const ownApi = apiClient(app.url, (await tokenFor(app.ctx, own, READ)).token, 'beta');
      expect((await ownApi.get('menus?handle=main')).body[0]).toMatchObject({ label: 'Edited', version: 12 });
    });

    it('when a menu at the highest version is changed, then a 409 saying why and the stored menu stays; loading it unchanged still works', async () => {
      const { projectId: own } = await createTestProject(app.ctx);
      const menu = {
        handle: 'main',
        label: 'Main',
        version: 2_147_483_647,
        maxDepth: 0,
        nodes: [{ label: 'A', type: 'path', path: '/a' }],
      };
      expect((await app.ctx.commands.loadMenu({ projectId: own, menu })).version).toBe(2_147_483_647);
      expect((await app.ctx.commands.loadMenu({ projectId: own, menu })).version).toBe(2_147_483_647);
      const { version: _version, ...withoutVersion } = menu;
      await expect(
        app.ctx.commands.loadMenu({ projectId: own, menu: { ...withoutVersion, label: 'Edited' } }),
      ).rejects.toMatchObject({
        status: 409,
        details: {
          name: 'Conflict',
          message:
            "Menu 'main' of channel 'web' is at version 2147483647, the highest a menu can have: a change " +
            'cannot count its version up; nothing was stored',
        },
      });
      const ownApi = apiClient(app.url, (await tokenFor(app.ctx, own, READ)).token, 'beta');
      expect((await ownApi.get('menus?handle=main')).body).toEqual([
        {
          handle: 'main',
          label: 'Main',
          version: 2_147_483_647,
          maxDepth: 0,
          nodes: [{ id: '1', label: 'A', type: 'path', path: '/a', nodes: [] }],
        },
      ]);
    });

    it('when a path node names the document its path leads to, then the menu loads and GET menus answers it with that documentId', async () => {
      // supplement §8 lists documentId on any node; the vendor's menus give a path node the article it routes to.
      const menu = {
        handle: 'routed',
        label: 'Routed',
        maxDepth: 0,
        nodes: [
          { label: 'Night Ferries', type: 'path', path: '/city/night-ferries', documentId: idOf.get('322')! },
          { label: 'City', type: 'path', path: '/city', documentId: Number(idOf.get('302')) },
          { label: 'Archive', type: 'path', path: '/archive' },
        ],
      };
      await app.ctx.commands.loadMenu({ projectId, menu });
      for (const version of MENU_VERSIONS) {
        const response = await api.withVersion(version).get('menus?handle=routed');
        expect(response.status).toBe(200);
        expect(menuAnswer.array().safeParse(response.body).error).toBeUndefined();
        const [served] = response.body;
        expect(served.nodes).toEqual([
          {
            id: '1',
            label: 'Night Ferries',
            type: 'path',
            path: '/city/night-ferries',
            documentId: idOf.get('322'),
            nodes: [],
          },
          { id: '2', label: 'City', type: 'path', path: '/city', documentId: idOf.get('302'), nodes: [] },
          { id: '3', label: 'Archive', type: 'path', path: '/archive', nodes: [] },
        ]);
        expect(Object.keys(served.nodes[0])).toEqual(['id', 'label', 'type', 'path', 'documentId', 'nodes']);
      }
      // Its document is checked as a document node's is: one the project lacks refuses the file.
      const details = await refusal(
        app.ctx.commands.loadMenu({
          projectId,
          menu: {
            ...menu,
            label: 'Broken',
            nodes: [{ label: 'Gone', type: 'path', path: '/gone', documentId: '999999999' }],
          },
        }),
      );
      expect(details).toEqual({
        name: 'ValidationError',
        'nodes.0.documentId': 'document 999999999 does not exist in this project',
      });
      expect((await api.get('menus?handle=routed')).body[0].label).toBe('Routed');
    });

    it('when a document node names a document of another project or none, then it is refused at that path and nothing is stored', async () => {
      const other = await createTestProject(app.ctx);
      const foreign = await createPublishedDocument(app.ctx, other.projectId);
      const menu = menuWithIds((id) =>
        id === '322' ? String(foreign.documentId) : id === '305' ? '999999999' : idOf.get(id)!,
      );
      const details = await refusal(
        app.ctx.commands.loadMenu({ projectId, menu: { ...menu, label: 'Broken' } }),
      );
      expect(details).toEqual({
        name: 'ValidationError',
        'nodes.0.nodes.0.documentId': `document ${foreign.documentId} does not exist in this project`,
        'nodes.3.documentId': 'document 999999999 does not exist in this project',
      });
      expect((await api.get('menus?handle=main')).body[0].label).toBe('Main');
    });

    it('when a document the stored menu links to is gone, then the file loads again with other changes; a node the file adds for a missing document is still refused, nothing stored', async () => {
      const { projectId: own } = await createTestProject(app.ctx);
      const gone = String((await createPublishedDocument(app.ctx, own)).documentId);
      const kept = String((await createPublishedDocument(app.ctx, own)).documentId);
      const menu = {
        handle: 'main',
        label: 'Main',
        maxDepth: 1,
        nodes: [
          { label: 'Gone', type: 'document', documentId: gone, nodes: [] },
          {
            label: 'Kept',
            type: 'document',
            documentId: kept,
            nodes: [{ label: 'About', type: 'path', path: '/about' }],
          },
        ],
      };
      expect((await app.ctx.commands.loadMenu({ projectId: own, menu })).version).toBe(1);
      // No API deletes a document; it goes the way an operator would remove it.
      await app.ctx.pool.query('DELETE FROM documents WHERE id = $1', [gone]);
      const ownApi = apiClient(app.url, (await tokenFor(app.ctx, own, READ)).token, 'v1');

      // The unchanged file with the label edited: its document node for the gone document is the stored one.
      const relabelled = { ...menu, label: 'Main menu' };
      const stored = await app.ctx.commands.loadMenu({ projectId: own, menu: relabelled });
      expect(stored).toMatchObject({ label: 'Main menu', version: 2 });
      expect(stored.nodes[0]).toEqual({
        id: '1',
        label: 'Gone',
        type: 'document',
        documentId: gone,
        nodes: [],
      });
      // The check is of ids: the stored id may move to another place of the menu, also as a number.
      const moved = {
        ...relabelled,
        nodes: [
          menu.nodes[1]!,
          { label: 'Still gone', type: 'document', documentId: Number(gone), nodes: [] },
        ],
      };
      const { channel: _channel, ...movedStored } = await app.ctx.commands.loadMenu({
        projectId: own,
        menu: moved,
      });
      expect(movedStored.version).toBe(3);
      expect(
        movedStored.nodes.map((node) => [node.label, node.type === 'document' && node.documentId]),
      ).toEqual([
        ['Kept', kept],
        ['Still gone', gone],
      ]);

      // A node the file adds for a document the project lacks is refused at its path, the edit with it.
      const other = await createTestProject(app.ctx);
      const foreign = String((await createPublishedDocument(app.ctx, other.projectId)).documentId);
      const added = {
        ...moved,
        label: 'Not stored',
        nodes: [
          ...moved.nodes,
          {
            label: 'New',
            type: 'path',
            path: '/new',
            nodes: [
              { label: 'Missing', type: 'document', documentId: '999999999' },
              { label: 'Foreign', type: 'document', documentId: foreign },
            ],
          },
        ],
      };
      expect(await refusal(app.ctx.commands.loadMenu({ projectId: own, menu: added }))).toEqual({
        name: 'ValidationError',
        'nodes.2.nodes.0.documentId': 'document 999999999 does not exist in this project',
        'nodes.2.nodes.1.documentId': `document ${foreign} does not exist in this project`,
      });
      expect((await ownApi.get('menus?handle=main')).body).toEqual([movedStored]);

      // A file wrong elsewhere is compared with the stored menu too: the stored node is not named with its problem.
      expect(
        await refusal(app.ctx.commands.loadMenu({ projectId: own, menu: { ...moved, label: ' ' } })),
      ).toEqual({
        name: 'ValidationError',
        label: 'must not be empty',
      });

      // Only the menu being replaced counts: another handle, or the same handle in another channel, adds it.
      await createTestChannel(app.ctx, own, 'app');
      for (const [channelHandle, handle] of [
        [undefined, 'footer'],
        ['app', 'main'],
      ] as const) {
        expect(
          await refusal(
            app.ctx.commands.loadMenu({ projectId: own, channelHandle, menu: { ...menu, handle } }),
          ),
        ).toEqual({
          name: 'ValidationError',
          'nodes.0.documentId': `document ${gone} does not exist in this project`,
        });
      }

      // Once the stored menu no longer links to it, the gone document is a new node again, and refused.
      expect(
        (await app.ctx.commands.loadMenu({ projectId: own, menu: { ...menu, nodes: [menu.nodes[1]!] } }))
          .version,
      ).toBe(4);
      expect(await refusal(app.ctx.commands.loadMenu({ projectId: own, menu }))).toEqual({
        name: 'ValidationError',
        'nodes.0.documentId': `document ${gone} does not exist in this project`,
      });
    });

    it('when the file is malformed, then every problem is named by its path', async () => {
      const details = await refusal(
        app.ctx.commands.loadMenu({
          projectId,
          menu: {
            handle: 'side',
            label: 'Side',
            maxDepth: 0,
            nodes: [{ label: 'X', type: 'link' }],
            extra: 1,
          },
        }),
      );
      expect(details).toEqual({
        name: 'ValidationError',
        extra: 'is not allowed',
        'nodes.0.type': "must be one of 'uri', 'path', 'document'",
      });
      const nodes = await refusal(
        app.ctx.commands.loadMenu({
          projectId,
          menu: { handle: 'side', label: 'Side', maxDepth: 0, nodes: [{ label: 'X', type: 'link' }] },
        }),
      );
      expect(nodes).toEqual({
        name: 'ValidationError',
        'nodes.0.type': "must be one of 'uri', 'path', 'document'",
      });
      const proto = await refusal(
        app.ctx.commands.loadMenu({
          projectId,
          menu: JSON.parse('{"handle":"side","__proto__":{}}') as unknown,
        }),
      );
      expect(proto).toEqual({
        name: 'ValidationError',
        ['__proto__']: "'__proto__' is not allowed as a key",
      });
      expect((await api.get('menus?handle=side')).status).toBe(404);
    });

    it('when a file has shape, depth and unknown-document problems at once, then one run names them all', async () => {
      const details = await refusal(
        app.ctx.commands.loadMenu({
          projectId,
          menu: {
            handle: 'side',
            label: '',
            maxDepth: 0,
            nodes: [
              { label: 'Gone', type: 'document', documentId: '999999999' },
              { label: 'X', type: 'uri', uri: 'javascript:void(0)' },
              {
                label: 'Top',
                type: 'path',
                path: '/a',
                nodes: [{ label: 'Deep gone', type: 'document', documentId: '999999998' }],
              },
            ],
          },
        }),
      );
      expect(details).toEqual({
        name: 'ValidationError',
        label: 'must not be empty',
        'nodes.0.documentId': 'document 999999999 does not exist in this project',
        'nodes.1.uri': 'must be an absolute http, https, mailto or tel URI',
        'nodes.2.nodes.0': 'is at depth 1 (the top level is 0), deeper than maxDepth 0',
        'nodes.2.nodes.0.documentId': 'document 999999998 does not exist in this project',
      });
      expect((await api.get('menus?handle=side')).status).toBe(404);
    });

    it('when the channel does not exist, then 404 naming it', async () => {
      await expect(
        app.ctx.commands.loadMenu({
          projectId,
          channelHandle: 'print',
          menu: { handle: 'main', label: 'Print', maxDepth: 0, nodes: [] },
        }),
      ).rejects.toMatchObject({ status: 404, details: { message: "Channel 'print' not found" } });
    });
  });
});
