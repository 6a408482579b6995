import { extractReferences } from '../../src/domain/references';
import { loadMenu, loadPublications, type FixtureMenuNode } from '../helpers/fixtures';

/**
 * The magazine fixtures are one consistent publication: tests that resolve teasers, authors, links or menu
 * entries rely on every reference pointing at another fixture. These checks keep it so when fixtures change.
 */
describe('the magazine fixtures', () => {
  const publications = loadPublications();
  const byId = new Map(publications.map((publication) => [publication.id, publication]));

  const FOLDERS: Record<string, { contentType: string; documentType: string }> = {
    articles: { contentType: 'regular', documentType: 'article' },
    authors: { contentType: 'author', documentType: 'data-record' },
    pages: { contentType: 'page', documentType: 'page' },
    galleries: { contentType: 'gallery', documentType: 'article' },
    videos: { contentType: 'video', documentType: 'article' },
  };

  it('when loaded, then each file holds the document its name and folder say, with a distinct id', () => {
    expect(byId.size).toBe(publications.length);
    for (const { file, id, systemdata, metadata } of publications) {
      const [folder, name] = file.split('/');
      expect(systemdata).toMatchObject({
        documentId: id,
        ...FOLDERS[folder!],
        design: { name: 'living-times', version: '1.0.4' },
      });
      expect(name).toBe(metadata.homepage === true ? 'home.json' : `${id}.json`);
      expect(typeof metadata.title).toBe('string');
    }
  });

  it('when loaded, then exactly one page is the homepage', () => {
    const homepages = publications.filter((publication) => publication.metadata.homepage === true);
    expect(homepages.map((publication) => publication.file)).toEqual(['pages/home.json']);
  });

  it('when a publication references documents (teasers, links, authors, related), then each is another fixture', () => {
    let count = 0;
    for (const { id, metadata, content } of publications) {
      for (const row of extractReferences(metadata, content).rows) {
        if (row.targetType !== 'document') continue;
        count += 1;
        const target = byId.get(Number(row.targetId));
        expect({ from: id, to: row.targetId, found: target !== undefined }).toEqual({
          from: id,
          to: row.targetId,
          found: true,
        });
        if (row.propertyName === 'authors') expect(target!.systemdata.contentType).toBe('author');
      }
    }
    expect(count).toBeGreaterThan(publications.length);
  });

  it('when the main menu is read, then its document nodes name fixtures and it nests no deeper than maxDepth', () => {
    const menu = loadMenu('main');
    expect(menu).toMatchObject({ handle: 'main', label: expect.any(String), version: expect.any(Number) });
    const types = new Set<string>();
    const visit = (nodes: FixtureMenuNode[], depth: number) => {
      for (const node of nodes) {
        types.add(node.type);
        expect(depth).toBeLessThanOrEqual(menu.maxDepth);
        if (node.type === 'document') expect(byId.has(Number(node.documentId))).toBe(true);
        if (node.type === 'path') expect(node.path).toMatch(/^\//);
        if (node.type === 'uri') expect(node.uri).toMatch(/^https:\/\//);
        visit(node.nodes, depth + 1);
      }
    };
    visit(menu.nodes, 0);
    expect([...types].sort()).toEqual(['document', 'path', 'uri']);
  });
});
