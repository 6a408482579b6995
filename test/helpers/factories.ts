import { randomBytes } from 'node:crypto';
import { createApiClient } from '../../src/commands/api-clients';
import { createProject } from '../../src/commands/create-project';
import { channelQueries } from '../../src/db/queries/channels';
import type { AppContext } from '../../src/context';
import type { Design } from '../../src/domain/design';
import type { ProjectConfig } from '../../src/domain/project-config';
import { SCOPES } from '../../src/domain/scopes';

export const TEST_DESIGN: Design = {
  name: 'test-design',
  version: '1.0.0',
  components: [
    { name: 'title', label: 'Title', directives: [{ name: 'title', type: 'editable' }] },
    { name: 'paragraph', label: 'Paragraph', directives: [{ name: 'text', type: 'editable' }] },
    {
      name: 'image',
      label: 'Image',
      directives: [
        { name: 'image', type: 'image' },
        { name: 'caption', type: 'editable' },
      ],
    },
    {
      name: 'link-box',
      label: 'Link',
      directives: [
        { name: 'link', type: 'link' },
        { name: 'text', type: 'editable' },
      ],
    },
    { name: 'embed', label: 'Embed', directives: [{ name: 'teaser', type: 'include' }] },
    {
      name: 'styled',
      label: 'Styled',
      directives: [
        { name: 'appearance', type: 'style' },
        { name: 'text', type: 'editable' },
      ],
    },
    { name: 'container', label: 'Container', directives: [], containers: ['main', 'aside'] },
  ],
};

/** A project config with all three document types, indexed metadata of every type, categories and brands. */
export function buildProjectConfig(overrides: Partial<ProjectConfig> = {}): ProjectConfig {
  const handle = `test-${randomBytes(4).toString('hex')}`;
  return {
    v: 2,
    settings: {
      handle,
      label: 'Test project',
      channelMode: 'configurable',
      languages: {
        available: [
          { locale: 'en', label: 'English' },
          { locale: 'de', label: 'Deutsch' },
        ],
        defaultLanguage: 'en',
      },
    },
    design: { name: TEST_DESIGN.name, version: TEST_DESIGN.version },
    contentTypes: [
      {
        handle: 'regular',
        documentType: 'article',
        metadata: [
          { handle: 'title', type: 'string' },
          { handle: 'description', type: 'text' },
          { handle: 'flag', type: 'string', index: true },
          { handle: 'priority', type: 'integer', index: true },
          { handle: 'score', type: 'float', index: true },
          { handle: 'breaking', type: 'boolean', index: true },
          { handle: 'publishDate', type: 'date', index: true },
          { handle: 'summary', type: 'text', index: true },
          { handle: 'category', type: 'category' },
          { handle: 'language', type: 'language' },
          { handle: 'authors', type: 'documents' },
        ],
      },
      { handle: 'page', documentType: 'page', metadata: [{ handle: 'title', type: 'string' }] },
      {
        handle: 'author',
        documentType: 'data-record',
        metadata: [
          { handle: 'title', type: 'string' },
          { handle: 'name', type: 'string', index: true },
        ],
      },
    ],
    categories: [
      { id: 'news', label: 'News', path: '/news' },
      { id: 'politics', label: 'Politics', path: '/news/politics', parentId: 'news' },
      { id: 'sport', label: 'Sport', path: '/sport' },
    ],
    brands: [
      { handle: 'ch', label: 'Switzerland', isDefault: true },
      { handle: 'de', label: 'Germany' },
    ],
    ...overrides,
  };
}

export async function createTestProject(
  ctx: AppContext,
  options: { config?: Partial<ProjectConfig>; designs?: Design[] } = {},
) {
  return createProject(ctx.pool, {
    config: buildProjectConfig(options.config),
    designs: options.designs ?? [TEST_DESIGN],
  });
}

/** A channel besides the project's default `web`, with no design and the given content types. */
export async function createTestChannel(
  ctx: AppContext,
  projectId: number,
  handle: string,
  contentTypes: string[] = [],
): Promise<number> {
  const label = handle.charAt(0).toUpperCase() + handle.slice(1);
  return channelQueries(ctx.pool).insert({
    projectId,
    handle,
    label,
    designName: null,
    designVersion: null,
    contentTypes,
    isDefault: false,
  });
}

export const READ = ['public-api:read'];
export const WRITE = ['public-api:read', 'public-api:write'];
export const ALL_SCOPES: string[] = [...SCOPES];

/** A real signed token of a real API client of the project. */
export async function tokenFor(
  ctx: AppContext,
  projectId: number,
  scopes: string[] = ALL_SCOPES,
  options: { expiresInSeconds?: number } = {},
) {
  const { token, client } = await createApiClient(ctx.pool, ctx.config.auth.jwtSecret, {
    projectId,
    name: 'test client',
    scopes,
    ...options,
  });
  return { token, clientId: client.id };
}
