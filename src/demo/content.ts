import type { Component } from '../domain/content';
import type { Design } from '../domain/design';
import type { ImportDocument } from '../domain/import-request';
import type { ProjectConfig } from '../domain/project-config';
import type { Random } from './random';
import { FIRST_NAMES, headline, LAST_NAMES, paragraph, sentence, type Locale } from './words';

export const DEMO_HANDLE = 'demo';
export const DEMO_SYSTEM = 'demo-generator';

export const DEMO_DESIGN: Design = {
  name: 'demo',
  version: '1.0.0',
  components: [
    {
      name: 'title',
      label: 'Title',
      html: '<h1 doc-editable="title"></h1>',
      directives: [{ name: 'title', type: 'editable' }],
    },
    {
      name: 'lead',
      label: 'Lead',
      html: '<p class="lead" doc-editable="text"></p>',
      directives: [{ name: 'text', type: 'editable' }],
    },
    {
      name: 'subtitle',
      label: 'Subtitle',
      html: '<h2 doc-editable="title"></h2>',
      directives: [{ name: 'title', type: 'editable' }],
    },
    {
      name: 'paragraph',
      label: 'Paragraph',
      html: '<p doc-editable="text"></p>',
      directives: [{ name: 'text', type: 'editable' }],
    },
    {
      name: 'quote',
      label: 'Quote',
      html: '<blockquote><p doc-editable="text"></p><cite doc-editable="author"></cite></blockquote>',
      directives: [
        { name: 'text', type: 'editable' },
        { name: 'author', type: 'editable' },
      ],
    },
    {
      name: 'image',
      label: 'Image',
      html: '<figure><img doc-image="image"><figcaption doc-editable="caption"></figcaption></figure>',
      directives: [
        { name: 'image', type: 'image' },
        { name: 'caption', type: 'editable' },
      ],
    },
    {
      name: 'teaser',
      label: 'Teaser',
      html: '<div doc-include="teaser"></div>',
      directives: [{ name: 'teaser', type: 'include' }],
    },
    {
      name: 'promo',
      label: 'Promotion',
      html: '<aside><a doc-link="link"><span doc-editable="text"></span></a></aside>',
      directives: [
        { name: 'link', type: 'link' },
        { name: 'text', type: 'editable' },
      ],
    },
    {
      name: 'section',
      label: 'Section',
      html: '<section doc-container="main"></section><aside doc-container="aside"></aside>',
      directives: [],
      containers: ['main', 'aside'],
    },
  ],
  defaultComponents: { paragraph: 'paragraph', image: 'image' },
  groups: [{ name: 'text', label: 'Text', components: ['title', 'lead', 'subtitle', 'paragraph', 'quote'] }],
  metadata: [],
  assets: { css: [], js: [] },
};

export const DEMO_CATEGORIES = [
  { id: 'news', label: 'News', path: '/news' },
  { id: 'politics', label: 'Politics', path: '/news/politics', parentId: 'news' },
  { id: 'economy', label: 'Economy', path: '/news/economy', parentId: 'news' },
  { id: 'science', label: 'Science', path: '/science' },
  { id: 'culture', label: 'Culture', path: '/culture' },
  { id: 'sport', label: 'Sport', path: '/sport' },
  { id: 'travel', label: 'Travel', path: '/travel' },
];

export function demoConfig(homepageDocumentId?: number): ProjectConfig {
  return {
    v: 2,
    settings: {
      handle: DEMO_HANDLE,
      label: 'Broadsheet demo',
      channelMode: 'configurable',
      languages: {
        available: [
          { locale: 'en', label: 'English' },
          { locale: 'de', label: 'Deutsch' },
        ],
        defaultLanguage: 'en',
      },
      ...(homepageDocumentId === undefined ? {} : { homepageDocumentId }),
    },
    design: { name: DEMO_DESIGN.name, version: DEMO_DESIGN.version },
    contentTypes: [
      {
        handle: 'article',
        documentType: 'article',
        label: 'Article',
        sortDateField: 'publishDate',
        metadata: [
          { handle: 'title', type: 'string' },
          { handle: 'description', type: 'text', index: true },
          { handle: 'publishDate', type: 'date', index: true },
          { handle: 'flag', type: 'string', index: true },
          { handle: 'readingMinutes', type: 'integer', index: true },
          { handle: 'breaking', type: 'boolean', index: true },
          { handle: 'category', type: 'category' },
          { handle: 'language', type: 'language' },
          { handle: 'authors', type: 'documents' },
          { handle: 'teaserImage', type: 'image' },
        ],
      },
      {
        handle: 'page',
        documentType: 'page',
        label: 'Page',
        metadata: [
          { handle: 'title', type: 'string' },
          { handle: 'language', type: 'language' },
        ],
      },
      {
        handle: 'author',
        documentType: 'data-record',
        label: 'Author',
        metadata: [
          { handle: 'title', type: 'string' },
          { handle: 'name', type: 'string', index: true },
          { handle: 'biography', type: 'text' },
        ],
      },
    ],
    categories: DEMO_CATEGORIES,
    brands: [
      { handle: 'ch', label: 'Switzerland', isDefault: true },
      { handle: 'de', label: 'Germany' },
    ],
    enrichment: { enabled: false },
  };
}

/** A demo image to generate (src/demo/png.ts) and import into the media library. */
export interface DemoMedia {
  id: string;
  filename: string;
  title: string;
  width: number;
  height: number;
  rgb: [number, number, number];
}

/** A demo image as imported: what documents' image directives and teaser images point at. */
export interface DemoImage {
  id: string;
  url: string;
  width: number;
  height: number;
  mimeType: string;
}

export function demoMedia(random: Random, count: number): DemoMedia[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `demo-image-${index + 1}`,
    filename: `demo-${String(index + 1).padStart(3, '0')}.png`,
    title: headline(random, 'en'),
    width: 320,
    height: 180,
    rgb: [random.int(0, 255), random.int(0, 255), random.int(0, 255)],
  }));
}

const LANGUAGE_LABELS: Record<Locale, string> = { en: 'English', de: 'Deutsch' };
/** A fixed clock: the demo's dates do not depend on when it runs. */
const DEMO_EPOCH = Date.UTC(2026, 0, 15, 12, 0, 0);

/**
 * A maker of components with ids counted from 1. Component ids only need to be unique within a document; each
 * generator call takes its own maker, so its output depends on its seed alone, not on what ran before it.
 */
function componentMaker() {
  let count = 0;
  return (name: string, content: Record<string, unknown>, extra: Partial<Component> = {}): Component => ({
    id: `doc-${name.slice(0, 2)}${(count += 1).toString(36)}`,
    component: name,
    identifier: `${DEMO_DESIGN.name}.${name}`,
    content,
    ...extra,
  });
}

function imageValue(image: DemoImage) {
  return {
    mediaId: image.id,
    url: image.url,
    width: image.width,
    height: image.height,
    mimeType: image.mimeType,
  };
}

export function demoAuthors(random: Random, count: number): ImportDocument[] {
  const c = componentMaker();
  return Array.from({ length: count }, (_, index) => {
    const name = `${FIRST_NAMES[index % FIRST_NAMES.length]} ${LAST_NAMES[(index * 7) % LAST_NAMES.length]}`;
    return {
      id: `author-${index + 1}`,
      contentType: 'author',
      metadata: { title: name, name, biography: paragraph(random, 'en', 2) },
      content: [c('title', { title: name }), c('paragraph', { text: paragraph(random, 'en', 3) })],
      flags: { autoPublish: true },
    };
  });
}

/**
 * Articles in language groups: every group has an English article, every third also a German one sharing
 * its groupId. Bodies are several paragraphs of real words; some components carry brand or date conditions.
 */
export function demoArticles(
  random: Random,
  count: number,
  authorIds: readonly number[],
  media: readonly DemoImage[],
): ImportDocument[] {
  const c = componentMaker();
  const articles: ImportDocument[] = [];
  for (let group = 1; articles.length < count; group += 1) {
    const locales: Locale[] = group % 3 === 0 ? ['en', 'de'] : ['en'];
    const category = random.pick(DEMO_CATEGORIES).id;
    const published = new Date(DEMO_EPOCH - group * 3_600_000 * 5).toISOString();
    const authors = random.sample(authorIds, random.int(1, 2)).map((id) => ({ id: String(id) }));
    const teaser = random.pick(media);
    for (const locale of locales) {
      if (articles.length >= count) break;
      const title = headline(random, locale);
      const lead = sentence(random, locale);
      const body: Component[] = [c('title', { title }), c('lead', { text: lead })];
      for (let p = random.int(3, 7); p > 0; p -= 1)
        body.push(c('paragraph', { text: paragraph(random, locale) }));
      body.splice(
        3,
        0,
        c('image', { image: imageValue(random.pick(media)), caption: sentence(random, locale) }),
      );
      if (random.chance(0.3))
        body.push(
          c('subtitle', { title: headline(random, locale) }),
          c('paragraph', { text: paragraph(random, locale) }),
        );
      if (random.chance(0.3))
        body.push(c('quote', { text: sentence(random, locale), author: random.pick(FIRST_NAMES) }));
      if (random.chance(0.2)) {
        body.push(
          c(
            'promo',
            { text: locale === 'en' ? 'Subscribe in Germany' : 'Jetzt abonnieren' },
            { conditions: { brands: ['de'] } },
          ),
        );
      }
      if (random.chance(0.1)) {
        body.push(
          c(
            'paragraph',
            { text: paragraph(random, locale, 2) },
            { conditions: { dateTime: { gte: '2027-01-01T00:00:00Z' } } },
          ),
        );
      }
      articles.push({
        id: `article-${group}-${locale}`,
        contentType: 'article',
        metadata: {
          title,
          description: lead,
          publishDate: published,
          flag: random.pick(['none', 'exclusive', 'opinion', 'analysis']),
          readingMinutes: random.int(2, 15),
          breaking: random.chance(0.05),
          category: { id: category },
          language: { locale, label: LANGUAGE_LABELS[locale], groupId: `group-${group}` },
          authors: { $ref: 'documents', references: authors },
          teaserImage: imageValue(teaser),
        },
        content: body,
        flags: { autoPublish: true },
        publishControl: { firstPublicationDate: published },
      });
    }
  }
  return articles;
}

const teaserOf = (documentId: number): Record<string, unknown> => ({
  service: 'teaser',
  params: { document: { $ref: 'document', reference: { id: String(documentId) } } },
});

/** Pages: the homepage (external id `home`) teasing the newest articles, and one section page per category. */
export function demoPages(random: Random, count: number, articleIds: readonly number[]): ImportDocument[] {
  const c = componentMaker();
  const home: ImportDocument = {
    id: 'home',
    contentType: 'page',
    metadata: { title: 'Home', language: { locale: 'en', label: 'English', groupId: 'page-home' } },
    content: [
      c('title', { title: 'The Broadsheet demo' }),
      c(
        'section',
        {},
        {
          containers: {
            main: articleIds.slice(0, 8).map((id) => c('teaser', { teaser: teaserOf(id) })),
            aside: articleIds.slice(8, 12).map((id) => c('teaser', { teaser: teaserOf(id) })),
          },
        },
      ),
    ],
    flags: { autoPublish: true },
  };
  const pages = Array.from({ length: Math.max(0, count - 1) }, (_, index) => {
    const category = DEMO_CATEGORIES[index % DEMO_CATEGORIES.length]!;
    return {
      id: `page-${index + 1}`,
      contentType: 'page',
      metadata: {
        title: `${category.label} ${index + 1}`,
        language: { locale: 'en' as const, label: 'English', groupId: `page-${index + 1}` },
      },
      content: [
        c('title', { title: category.label }),
        c('paragraph', { text: paragraph(random, 'en', 2) }),
        ...random.sample(articleIds, 4).map((id) => c('teaser', { teaser: teaserOf(id) })),
      ],
      flags: { autoPublish: true },
    };
  });
  return [home, ...pages];
}

/**
 * The demo's main menu (supplement §8): Home, then one node per top category (its children below it), each
 * pointing at the category's first section page (`pages[1 + i]` is the page of DEMO_CATEGORIES[i], see
 * demoPages) or at the category's path when there are fewer pages than categories, then a path and a uri node.
 */
export function demoMenu(pageIds: readonly number[]) {
  type Category = (typeof DEMO_CATEGORIES)[number];
  const pageOf = new Map(DEMO_CATEGORIES.map((category, index) => [category.id, pageIds[1 + index]]));
  const nodeOf = (category: Category) => {
    const pageId = pageOf.get(category.id);
    return pageId === undefined
      ? { label: category.label, type: 'path', path: category.path }
      : { label: category.label, type: 'document', documentId: String(pageId) };
  };
  const childrenOf = (parent: Category) =>
    DEMO_CATEGORIES.filter((category) => 'parentId' in category && category.parentId === parent.id);
  const sections = DEMO_CATEGORIES.filter((category) => !('parentId' in category)).map((category) => ({
    ...nodeOf(category),
    nodes: childrenOf(category).map((child) => ({ ...nodeOf(child), nodes: [] })),
  }));
  return {
    handle: 'main',
    label: 'Main',
    maxDepth: 1,
    nodes: [
      { label: 'Home', type: 'document', documentId: String(pageIds[0]), nodes: [] },
      ...sections,
      { label: 'Archive', type: 'path', path: '/archive', nodes: [] },
      { label: 'Subscribe', type: 'uri', uri: 'https://subscribe.broadsheet.example/', nodes: [] },
    ],
  };
}
