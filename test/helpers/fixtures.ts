import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Content, Metadata } from '../../src/domain/content';
import type { Design } from '../../src/domain/design';

/**
 * The repository's own fixtures (test/fixtures/): the living-times design and the magazine, a small
 * publication of original content in the shapes a delivery API returns (see test/fixtures/magazine/README.md).
 * Every test that needs real-shaped content reads it through here, never from outside the repository.
 */
const FIXTURES = path.resolve(__dirname, '../fixtures');
const PUBLICATIONS = path.join(FIXTURES, 'magazine/publications');

export type FixtureDocumentType = 'article' | 'page' | 'data-record';

/** One published document as the API returns it: `{id, systemdata, metadata, content}`. */
export interface FixturePublication {
  /** Relative to the publications folder, e.g. `articles/321.json`. */
  file: string;
  id: number;
  systemdata: {
    documentId: number;
    contentType: string;
    documentType: FixtureDocumentType;
    layout?: string;
    design: { name: string; version: string };
  };
  metadata: Metadata;
  content: Content;
}

export interface FixtureMenuNode {
  label: string;
  type: 'document' | 'path' | 'uri';
  documentId?: string;
  path?: string;
  uri?: string;
  nodes: FixtureMenuNode[];
}

/** A menu in the shape sites send and expect (supplement §8). */
export interface FixtureMenu {
  handle: string;
  version: number;
  label: string;
  maxDepth: number;
  nodes: FixtureMenuNode[];
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** One magazine publication by its file, e.g. `loadPublication('articles/321.json')`; a fresh copy each call. */
export function loadPublication(file: string): FixturePublication {
  return { file, ...readJson<Omit<FixturePublication, 'file'>>(path.join(PUBLICATIONS, file)) };
}

/** Every magazine publication, ordered by file (folder, then name), so tests that number them are stable. */
export function loadPublications(): FixturePublication[] {
  return readdirSync(PUBLICATIONS, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.split(path.sep).join('/'))
    .sort()
    .map(loadPublication);
}

/** A magazine menu by its handle (`main`). */
export function loadMenu(handle: string): FixtureMenu {
  return readJson<FixtureMenu>(path.join(FIXTURES, 'magazine/menus', `${handle}.json`));
}

/** The living-times design, which the magazine's content is written against. */
export function loadLivingTimesDesign(): Design {
  return readJson<Design>(path.join(FIXTURES, 'living-times-design.json'));
}
