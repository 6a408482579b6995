import {
  addedDocumentNodes,
  checkMenu,
  inspectMenu,
  menuDocumentIds,
  nodesInSiteOrder,
  type Menu,
  type MenuNode,
} from '../../src/domain/menus';
import { issuesToPaths } from '../../src/domain/validation';
import { loadMenu } from '../helpers/fixtures';

const menuOf = (nodes: unknown[], extra: Record<string, unknown> = {}) => ({
  handle: 'main',
  label: 'Main',
  maxDepth: 1,
  nodes,
  ...extra,
});

function issuesOf(input: unknown) {
  const checked = checkMenu(input);
  if (checked.ok) throw new Error('expected the menu to be refused');
  return issuesToPaths(checked.issues);
}

function menuFrom(input: unknown): Menu {
  const checked = checkMenu(input);
  if (!checked.ok) throw new Error(`expected the menu to pass: ${JSON.stringify(checked.issues)}`);
  return checked.value;
}

describe('checkMenu', () => {
  it('when the magazine main menu is checked, then it keeps its shape and every node gets its position as id', () => {
    const file = loadMenu('main');
    const menu = menuFrom(file);
    expect(menu).toMatchObject({ handle: 'main', label: 'Main', version: 3, maxDepth: 1 });
    expect(menu.nodes[0]).toEqual({
      id: '1',
      label: 'City',
      type: 'document',
      documentId: '302',
      nodes: [
        { id: '1.1', label: 'Night Ferries', type: 'document', documentId: '322', nodes: [] },
        { id: '1.2', label: 'Council Meetings', type: 'path', path: '/city/council', nodes: [] },
      ],
    });
    expect(menu.nodes.at(-1)).toEqual({
      id: '8',
      label: 'Subscribe',
      type: 'uri',
      uri: 'https://subscribe.livingtimes.example/',
      nodes: [],
    });
    // Apart from the ids, what the file says is what is kept.
    const withoutIds = (nodes: unknown): unknown =>
      JSON.parse(JSON.stringify(nodes, (key, value: unknown) => (key === 'id' ? undefined : value)));
    expect(withoutIds(menu.nodes)).toEqual(withoutIds(file.nodes));
  });

  it('when nodes carry ids, then they are kept, and a generated id steps around one the file already uses', () => {
    const menu = menuFrom(
      menuOf([
        { id: 'home', label: 'Home', type: 'path', path: '/' },
        { label: 'Second', type: 'path', path: '/second' },
        { id: '2', label: 'Claims 2', type: 'path', path: '/two' },
      ]),
    );
    expect(menu.nodes.map((node) => node.id)).toEqual(['home', '2~2', '2']);
  });

  it('when a document id is a number, then it is kept as the string sites expect', () => {
    const menu = menuFrom(menuOf([{ label: 'Doc', type: 'document', documentId: 42, nodes: [] }]));
    expect(menu.nodes[0]).toMatchObject({ documentId: '42' });
  });

  it('when a path node names its document, then the id is kept as a string and listed for the lookup', () => {
    const input = menuOf([
      { label: 'Article', type: 'path', path: '/city/night-ferries', documentId: 322 },
      { label: 'Plain', type: 'path', path: '/plain' },
      { label: 'Bad', type: 'path', path: '/bad', documentId: 'abc' },
    ]);
    expect(issuesOf(input)).toEqual({ 'nodes.2.documentId': 'must be a document id, e.g. "322"' });
    const { nodes: _nodes, ...rest } = input;
    const menu = menuFrom({ ...rest, nodes: input.nodes.slice(0, 2) });
    expect(menu.nodes).toEqual([
      { id: '1', label: 'Article', type: 'path', path: '/city/night-ferries', documentId: '322', nodes: [] },
      { id: '2', label: 'Plain', type: 'path', path: '/plain', nodes: [] },
    ]);
    expect(inspectMenu(input).documentNodes).toEqual([{ documentId: 322, path: ['nodes', 0] }]);
  });

  it('when the menu itself is malformed, then each problem is named by its key', () => {
    expect(issuesOf({ handle: '1 bad', label: '', maxDepth: -1, nodes: {}, extra: true })).toEqual({
      handle: 'must start with a letter; letters, digits, - and _',
      label: 'must not be empty',
      maxDepth: 'must be >= 0',
      nodes: 'must be an array',
      extra: 'is not allowed',
    });
    expect(issuesOf({ handle: 'main', label: 'Main', nodes: [] })).toEqual({ maxDepth: 'is required' });
    expect(issuesOf([])).toEqual({ body: 'must be an object' });
  });

  it('when nodes are malformed, then each problem is named by its path, however deep', () => {
    expect(
      issuesOf(
        menuOf([
          { label: 'No type', nodes: [] },
          { label: 'Bad type', type: 'page' },
          {
            label: 'Parent',
            type: 'path',
            path: '/parent',
            nodes: [
              { label: 'Script', type: 'uri', uri: 'javascript:alert(1)' },
              { label: 'Relative', type: 'path', path: 'no-slash' },
              { label: 'Doc', type: 'document', documentId: 'abc' },
              { label: 'Too big', type: 'document', documentId: '9007199254740993' },
              { label: 'Mixed', type: 'document', documentId: '1', uri: 'https://x.example/' },
              { label: '', type: 'path', path: '/empty' },
            ],
          },
        ]),
      ),
    ).toEqual({
      'nodes.0.type': "must be one of 'uri', 'path', 'document'",
      'nodes.1.type': "must be one of 'uri', 'path', 'document'",
      'nodes.2.nodes.0.uri': 'must be an absolute http, https, mailto or tel URI',
      'nodes.2.nodes.1.path': "must be a path starting with '/', without spaces",
      'nodes.2.nodes.2.documentId': 'must be a document id, e.g. "322"',
      'nodes.2.nodes.3.documentId': 'must be at most 9007199254740991',
      'nodes.2.nodes.4.uri': 'is not allowed',
      'nodes.2.nodes.5.label': 'must not be empty',
    });
  });

  it('when nodes nest deeper than maxDepth, then the first node too deep is named with its depth', () => {
    const deep = { label: 'Deep', type: 'path', path: '/a/b/c' };
    const child = { label: 'Child', type: 'path', path: '/a/b', nodes: [deep] };
    expect(issuesOf(menuOf([{ label: 'Top', type: 'path', path: '/a', nodes: [child] }]))).toEqual({
      'nodes.0.nodes.0.nodes.0': 'is at depth 2 (the top level is 0), deeper than maxDepth 1',
    });
    expect(
      issuesOf(menuOf([{ label: 'Top', type: 'path', path: '/a', nodes: [child] }], { maxDepth: 0 })),
    ).toEqual({ 'nodes.0.nodes.0': 'is at depth 1 (the top level is 0), deeper than maxDepth 0' });
  });

  it('when the menu, its depth and its nodes are all wrong, then one check names every problem', () => {
    const deep = { label: 'Deep', type: 'uri', uri: 'javascript:x' };
    expect(
      issuesOf(
        menuOf(
          [
            {
              label: 'Top',
              type: 'path',
              path: '/a',
              nodes: [{ label: 'Child', type: 'page', nodes: [deep] }],
            },
          ],
          {
            maxDepth: 0,
            extra: true,
          },
        ),
      ),
    ).toEqual({
      extra: 'is not allowed',
      'nodes.0.nodes.0': 'is at depth 1 (the top level is 0), deeper than maxDepth 0',
      'nodes.0.nodes.0.type': "must be one of 'uri', 'path', 'document'",
      'nodes.0.nodes.0.nodes.0.uri': 'must be an absolute http, https, mailto or tel URI',
    });
    // Without a valid maxDepth there is no depth to check; the nodes' own problems are still named.
    expect(
      issuesOf(menuOf([{ label: 'Top', type: 'path', path: 'a', nodes: [deep] }], { maxDepth: 'x' })),
    ).toEqual({
      maxDepth: 'must be a number',
      'nodes.0.path': "must be a path starting with '/', without spaces",
      'nodes.0.nodes.0.uri': 'must be an absolute http, https, mailto or tel URI',
    });
  });

  it('when two nodes share an id, then the second is named', () => {
    expect(
      issuesOf(
        menuOf([
          { id: 'x', label: 'One', type: 'path', path: '/1' },
          {
            label: 'Two',
            type: 'path',
            path: '/2',
            nodes: [{ id: 'x', label: 'Three', type: 'path', path: '/3' }],
          },
        ]),
      ),
    ).toEqual({ 'nodes.1.nodes.0.id': "'x' is already the id of nodes.0" });
  });
});

describe('inspectMenu', () => {
  it('when a menu has document nodes at several depths, then each is listed with its path', () => {
    expect(inspectMenu(loadMenu('main')).documentNodes).toEqual([
      { documentId: 302, path: ['nodes', 0] },
      { documentId: 322, path: ['nodes', 0, 'nodes', 0] },
      { documentId: 303, path: ['nodes', 1] },
      { documentId: 304, path: ['nodes', 2] },
      { documentId: 305, path: ['nodes', 3] },
      { documentId: 306, path: ['nodes', 4] },
      { documentId: 307, path: ['nodes', 5] },
    ]);
  });
});

describe('menuDocumentIds and addedDocumentNodes', () => {
  // As a stored menu comes back: documentId a string, at any depth.
  const stored = menuFrom(
    menuOf([
      {
        label: 'A',
        type: 'document',
        documentId: '12',
        nodes: [{ label: 'B', type: 'document', documentId: 13 }],
      },
      {
        label: 'C',
        type: 'path',
        path: '/c',
        nodes: [{ label: 'D', type: 'uri', uri: 'https://example.com/' }],
      },
      { label: 'E', type: 'path', path: '/e', documentId: 15 },
    ]),
  ).nodes;

  it('when a stored menu has document nodes and path nodes naming a document at several depths, then each id is named once, as a number', () => {
    expect(menuDocumentIds(stored)).toEqual(new Set([12, 13, 15]));
    expect(menuDocumentIds([...stored, ...stored])).toEqual(new Set([12, 13, 15]));
    expect(menuDocumentIds([])).toEqual(new Set());
  });

  it('when a file names ids the stored menu links to, in their place or another, then only its other document nodes are added', () => {
    const file = menuOf([
      { label: 'Moved', type: 'document', documentId: 13 },
      { label: 'New', type: 'path', path: '/n', nodes: [{ label: 'N', type: 'document', documentId: '14' }] },
      { label: 'Kept', type: 'document', documentId: '12' },
      { label: 'Kept path', type: 'path', path: '/e2', documentId: '15' },
      { label: 'New path', type: 'path', path: '/p', documentId: 16 },
    ]);
    const { documentNodes } = inspectMenu(file);
    expect(addedDocumentNodes(documentNodes, menuDocumentIds(stored))).toEqual([
      { documentId: 14, path: ['nodes', 1, 'nodes', 0] },
      { documentId: 16, path: ['nodes', 4] },
    ]);
    // Without a stored menu every document node is one the file adds.
    expect(addedDocumentNodes(documentNodes, new Set())).toEqual(documentNodes);
  });
});

describe('nodesInSiteOrder', () => {
  it('when nodes come back from jsonb with their keys reordered, then every level is back in the order sites expect', () => {
    // As Postgres hands jsonb back: shortest keys first.
    const stored = [
      {
        id: '1',
        type: 'document',
        label: 'City',
        nodes: [
          { id: '1.1', type: 'uri', uri: 'https://example.com/', label: 'Out', nodes: [] },
          { id: '1.2', path: '/a', type: 'path', label: 'A', nodes: [] },
        ],
        documentId: '12',
      },
    ] as MenuNode[];
    const ordered = nodesInSiteOrder(stored);
    expect(ordered).toEqual(stored);
    expect(Object.keys(ordered[0]!)).toEqual(['id', 'label', 'type', 'documentId', 'nodes']);
    expect(ordered[0]!.nodes.map((node) => Object.keys(node))).toEqual([
      ['id', 'label', 'type', 'uri', 'nodes'],
      ['id', 'label', 'type', 'path', 'nodes'],
    ]);
  });
});
