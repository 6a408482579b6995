import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Component, Content } from '../../src/domain/content';
import { DesignSchema, designSizeProblem, MAX_DESIGN_BYTES, NewDesignSchema } from '../../src/domain/design';
import { validateContentAgainstDesign, type Design } from '../../src/domain/design-validation';
import { TEST_DESIGN } from '../helpers/factories';
import { loadPublication } from '../helpers/fixtures';

const loadContent = (file: string): Content => loadPublication(file).content;

const teaserStack = {
  name: '2-col-teaser-stack',
  directives: [
    { name: 'title', type: 'editable' },
    { name: 'teaser1-left', type: 'include' },
    { name: 'teaser1-right', type: 'include' },
    { name: 'teaser2-left', type: 'include' },
    { name: 'teaser2-right', type: 'include' },
  ],
};

/** Enough of a living-times design for article 321 and author 312, written from their content. */
const design: Design = {
  name: 'living-times',
  version: '1.0.4',
  components: [
    {
      name: 'article-container',
      directives: [],
      containers: ['header', 'main', 'sidebar-ads-top', 'sidebar', 'sidebar-ads-bottom', 'footer'],
    },
    {
      name: 'head',
      label: 'Head',
      directives: [
        { name: 'title', type: 'editable' },
        { name: 'text', type: 'editable' },
        { name: 'author', type: 'editable' },
        { name: 'date', type: 'editable' },
        { name: 'flag', type: 'editable' },
      ],
    },
    { name: 'free-html', directives: [{ name: 'free-html', type: 'html' }] },
    { name: 'image', directives: [{ name: 'image', type: 'image' }] },
    { name: 'paragraph', directives: [{ name: 'text', type: 'editable' }] },
    { name: 'teaser-author', directives: [{ name: 'embed', type: 'include' }] },
    { name: 'teaser-sidebar', directives: [{ name: 'embed', type: 'include' }] },
    { name: 'sidebar-title', directives: [{ name: 'title', type: 'editable' }] },
    teaserStack,
    { name: 'author-container', directives: [], containers: ['main', 'sidebar'] },
    { name: 'author-head', directives: [] },
    {
      name: 'whole',
      directives: [
        { name: 'title', type: 'editable' },
        { name: 'container-style-lined', type: 'style' },
      ],
      containers: ['column-one'],
    },
  ],
};

function paragraph(overrides: Partial<Component> = {}): Component {
  return { id: 'doc-p', identifier: 'living-times.paragraph', content: { text: 'x' }, ...overrides };
}

describe('validateContentAgainstDesign', () => {
  it('when the content is empty, then it is valid', () => {
    expect(validateContentAgainstDesign([], design)).toEqual([]);
  });

  it('when every component fits the design, then there are no problems', () => {
    expect(validateContentAgainstDesign([paragraph()], design)).toEqual([]);
  });

  it('when a component names itself with `component` instead of an identifier, then it is valid', () => {
    expect(
      validateContentAgainstDesign([{ id: 'doc-p', component: 'paragraph', content: { text: 'x' } }], design),
    ).toEqual([]);
  });

  it('when a component is not in the design, then the message names it, its id and its path', () => {
    expect(
      validateContentAgainstDesign([paragraph(), { id: 'doc-q', identifier: 'living-times.quote' }], design),
    ).toEqual([
      "component doc-q (living-times.quote) at content.1: unknown component 'quote' in design living-times@1.0.4",
    ]);
  });

  it('when the identifier has another design name, then it is reported', () => {
    expect(
      validateContentAgainstDesign([paragraph({ identifier: 'other-times.paragraph' })], design),
    ).toEqual([
      "component doc-p (other-times.paragraph) at content.0: identifier must be 'living-times.paragraph'",
    ]);
  });

  it('when the identifier has no design prefix, then it is reported', () => {
    const problems = validateContentAgainstDesign([paragraph({ identifier: 'paragraph' })], design);
    expect(problems).toEqual([
      "component doc-p (paragraph) at content.0: identifier must be 'living-times.paragraph'",
    ]);
  });

  it('when component and identifier disagree, then the identifier is reported against the component name', () => {
    const problems = validateContentAgainstDesign(
      [paragraph({ component: 'paragraph', identifier: 'living-times.head' })],
      design,
    );
    expect(problems).toEqual([
      "component doc-p (living-times.head) at content.0: identifier must be 'living-times.paragraph'",
    ]);
  });

  it('when a component has no name at all, then it is reported', () => {
    expect(validateContentAgainstDesign([{ id: 'doc-x' }], design)).toEqual([
      'component doc-x (no identifier) at content.0: has neither a component name nor an identifier',
    ]);
  });

  it('when the identifier or component name is no text, then it is shown as JSON and said to be no text', () => {
    // Content as imports up to 2025-11 stored it. It was shown as "([object Object])" and reported as
    // missing, though the component had one.
    expect(
      validateContentAgainstDesign([{ id: 'doc-x', identifier: {} }] as unknown as Content, design),
    ).toEqual([
      "component doc-x ({}) at content.0: identifier must be a string, 'living-times.<component name>', got {}",
    ]);
    expect(
      validateContentAgainstDesign([{ id: 'doc-y', component: ['paragraph'] }] as unknown as Content, design),
    ).toEqual([
      'component doc-y (["paragraph"]) at content.0: component must be a string, the component\'s name, got ["paragraph"]',
    ]);
    expect(
      validateContentAgainstDesign([{ id: 'doc-z', identifier: 5 }] as unknown as Content, design),
    ).toEqual([
      "component doc-z (5) at content.0: identifier must be a string, 'living-times.<component name>', got 5",
    ]);
  });

  it('when an identifier, a directive or a container name is very long, then every reason shows it cut: its first 100 characters and its length', () => {
    // A 100 kB identifier of another design gave a 100 kB reason: "identifier must be '<all of it>'" and
    // "unknown component '<all of it>'" printed the value in full (only the heading was cut).
    const long = 'q'.repeat(100_000);
    expect(
      validateContentAgainstDesign([{ id: 'doc-l', identifier: `other-times.${long}` }], design),
    ).toEqual([
      `component doc-l (other-times.${'q'.repeat(88)}… (100012 characters)) at content.0: identifier must be 'living-times.${'q'.repeat(87)}…' (100013 characters)`,
      `component doc-l (other-times.${'q'.repeat(88)}… (100012 characters)) at content.0: unknown component '${'q'.repeat(100)}…' (100000 characters) in design living-times@1.0.4`,
    ]);
    expect(
      validateContentAgainstDesign([paragraph({ content: { text: 'x', [long]: 'y' } })], design),
    ).toEqual([
      `component doc-p (living-times.paragraph) at content.0: unknown directive '${'q'.repeat(100)}…' (100000 characters)`,
    ]);
    expect(validateContentAgainstDesign([paragraph({ containers: { [long]: [] } })], design)).toEqual([
      `component doc-p (living-times.paragraph) at content.0: unknown container '${'q'.repeat(100)}…' (100000 characters)`,
    ]);
    expect(validateContentAgainstDesign([{ id: long, identifier: 'other-times.paragraph' }], design)).toEqual(
      [
        `component ${'q'.repeat(100)}… (100000 characters) (other-times.paragraph) at content.0: identifier must be 'living-times.paragraph'`,
      ],
    );
  });

  it('when a content key is not a declared directive, then it is reported', () => {
    expect(validateContentAgainstDesign([paragraph({ content: { text: 'x', foo: 'y' } })], design)).toEqual([
      "component doc-p (living-times.paragraph) at content.0: unknown directive 'foo'",
    ]);
  });

  it('when a directive value has the wrong shape for its type, then it is reported', () => {
    const content: Content = [
      paragraph({ content: { text: { html: 'x' } } }),
      { id: 'doc-i', identifier: 'living-times.image', content: { image: 'https://x.test/a.jpg' } },
      { id: 'doc-t', identifier: 'living-times.teaser-author', content: { embed: ['x'] } },
    ];
    expect(validateContentAgainstDesign(content, design)).toEqual([
      "component doc-p (living-times.paragraph) at content.0: directive 'text' must be a string (editable directive)",
      "component doc-i (living-times.image) at content.1: directive 'image' must be an object (image directive)",
      "component doc-t (living-times.teaser-author) at content.2: directive 'embed' must be an object (include directive)",
    ]);
  });

  it('when a directive is null, then it counts as cleared and is valid', () => {
    expect(validateContentAgainstDesign([paragraph({ content: { text: null } })], design)).toEqual([]);
  });

  it('when content is not an object, then it is reported', () => {
    expect(
      validateContentAgainstDesign(
        [paragraph({ content: 'x' as unknown as Record<string, unknown> })],
        design,
      ),
    ).toEqual([
      'component doc-p (living-times.paragraph) at content.0: content must be an object of directive values',
    ]);
  });

  it('when a container is not declared, then it is reported and its children are not checked', () => {
    const content: Content = [
      {
        id: 'doc-w',
        identifier: 'living-times.whole',
        containers: { 'column-one': [], 'column-two': [{ id: 'doc-bad', identifier: 'living-times.nope' }] },
      },
    ];
    expect(validateContentAgainstDesign(content, design)).toEqual([
      "component doc-w (living-times.whole) at content.0: unknown container 'column-two'",
    ]);
  });

  it('when a component declares no containers, then any container is unknown', () => {
    expect(validateContentAgainstDesign([paragraph({ containers: { main: [] } })], design)).toEqual([
      "component doc-p (living-times.paragraph) at content.0: unknown container 'main'",
    ]);
  });

  it('when a container is not an array, then it is reported', () => {
    const content = [
      { id: 'doc-w', identifier: 'living-times.whole', containers: { 'column-one': {} } },
    ] as unknown as Content;
    expect(validateContentAgainstDesign(content, design)).toEqual([
      "component doc-w (living-times.whole) at content.0: container 'column-one' must be an array of components",
    ]);
  });

  it('when a nested component breaks the design, then its path points into the container', () => {
    const content: Content = [
      {
        id: 'doc-w',
        identifier: 'living-times.whole',
        containers: { 'column-one': [paragraph(), paragraph({ id: 'doc-deep', content: { bogus: 1 } })] },
      },
    ];
    expect(validateContentAgainstDesign(content, design)).toEqual([
      "component doc-deep (living-times.paragraph) at content.0.containers.column-one.1: unknown directive 'bogus'",
    ]);
  });

  it('when a component has no id, then the message still locates it by path', () => {
    const problems = validateContentAgainstDesign([{ identifier: 'living-times.nope' } as Component], design);
    expect(problems).toEqual([
      "component <no id> (living-times.nope) at content.0: unknown component 'nope' in design living-times@1.0.4",
    ]);
  });

  it('when several things are wrong, then every problem is listed', () => {
    const content: Content = [
      paragraph({ id: 'doc-1', content: { a: 'x', b: 'y' } }),
      { id: 'doc-2', identifier: 'x.unknown' },
    ];
    expect(validateContentAgainstDesign(content, design)).toHaveLength(4);
  });

  it('when content or a component is not even the right type, then it is reported rather than thrown', () => {
    expect(validateContentAgainstDesign('x' as unknown as Content, design)).toEqual([
      'content must be an array of components',
    ]);
    expect(validateContentAgainstDesign([null] as unknown as Content, design)).toEqual([
      'content.0: must be a component object',
    ]);
  });

  it('when validating a real article and a real author record, then they fit the design', () => {
    expect(validateContentAgainstDesign(loadContent('articles/321.json'), design)).toEqual([]);
    expect(validateContentAgainstDesign(loadContent('authors/312.json'), design)).toEqual([]);
  });

  it('when a real article is validated against a design for another name, then every component is reported', () => {
    const content = loadContent('articles/321.json');
    const problems = validateContentAgainstDesign(content, { ...design, name: 'daily-news' });
    expect(problems[0]).toBe(
      "component doc-3gcs06uyvv (living-times.article-container) at content.0: identifier must be 'daily-news.article-container'",
    );
    expect(problems.every((problem) => problem.includes("identifier must be 'daily-news."))).toBe(true);
  });

  it('when the homepage uses an identifier without design prefix, then exactly that component is reported', () => {
    const content = loadContent('pages/home.json');
    const names = new Set<string>();
    // Derive the design from the page itself: what it must accept is exactly what it uses.
    const collect = (
      components: Content,
      containers: Map<string, Set<string>>,
      directives: Map<string, Map<string, string>>,
    ) => {
      for (const component of components) {
        const name = component.identifier?.split('.').pop() ?? '';
        names.add(name);
        for (const [key, value] of Object.entries(component.content ?? {})) {
          const type = typeof value === 'string' ? 'editable' : 'include';
          directives.set(name, (directives.get(name) ?? new Map<string, string>()).set(key, type));
        }
        for (const [container, children] of Object.entries(component.containers ?? {})) {
          containers.set(name, (containers.get(name) ?? new Set()).add(container));
          collect(children, containers, directives);
        }
      }
    };
    const containers = new Map<string, Set<string>>();
    const directives = new Map<string, Map<string, string>>();
    collect(content, containers, directives);
    const derived: Design = {
      name: 'living-times',
      version: '1.0.4',
      components: [...names].map((name) => ({
        name,
        directives: [...(directives.get(name) ?? [])].map(([directive, type]) => ({ name: directive, type })),
        containers: [...(containers.get(name) ?? [])],
      })),
    };
    const problems = validateContentAgainstDesign(content, derived);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /\(authors-and-popular\) at content\.\d+.*: identifier must be 'living-times\.authors-and-popular'$/,
    );
  });
});

describe('DesignSchema (designs stored by project create)', () => {
  it('when the design is the fixture magazine design or the test design, then it is a design, its keys kept', () => {
    const fixture: unknown = JSON.parse(
      readFileSync(path.join(__dirname, '../fixtures/living-times-design.json'), 'utf8'),
    );
    expect(DesignSchema.parse(fixture)).toEqual(fixture);
    expect(DesignSchema.parse(TEST_DESIGN)).toEqual(TEST_DESIGN);
    expect(DesignSchema.parse({ ...design, comment: 'kept' })).toMatchObject({ comment: 'kept' });
  });

  it('when it lacks what the API reads of a design, then each problem is named by its path', () => {
    // Stored as they were, GET design answered 500 (design.components.map is not a function).
    const checked = DesignSchema.safeParse({
      name: '',
      version: 1,
      components: [{ name: 'p', directives: [{ name: 'text' }] }, 'nope'],
    });
    expect(checked.error?.issues.map((issue) => issue.path.join('.'))).toEqual([
      'name',
      'version',
      'components.0.directives.0.type',
      'components.1',
    ]);
  });

  it("when a new design's version is '.' or '..', then it is refused on version, while a stored one still reads", () => {
    // Stored before, yet GET design/. and GET design/.. never reached it: URLs resolve those segments away.
    for (const version of ['.', '..', ' .. ']) {
      const checked = NewDesignSchema.safeParse({ ...TEST_DESIGN, version });
      expect(checked.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
        ['version', "cannot be '.' or '..': no URL can name it in GET design/{designVersion}"],
      ]);
      expect(DesignSchema.parse({ ...TEST_DESIGN, version })).toMatchObject({ version: version.trim() });
    }
    for (const version of ['...', '.1', '1.0.']) {
      expect(NewDesignSchema.parse({ ...TEST_DESIGN, version })).toMatchObject({ version });
    }
  });
});

describe('designSizeProblem (designs stored by project create)', () => {
  const withTemplate = (html: string) => ({
    ...TEST_DESIGN,
    components: [{ name: 'big', html, directives: [] }],
  });
  const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

  it('when a design is exactly at the limit as UTF-8 JSON, then it is taken; a byte more, then refused saying the limit', () => {
    const base = jsonBytes(withTemplate(''));
    const atLimit = withTemplate('x'.repeat(MAX_DESIGN_BYTES - base));
    expect(jsonBytes(atLimit)).toBe(MAX_DESIGN_BYTES);
    expect(designSizeProblem(atLimit)).toBeUndefined();
    expect(designSizeProblem(withTemplate('x'.repeat(MAX_DESIGN_BYTES - base + 1)))).toBe(
      `is ${MAX_DESIGN_BYTES + 1} bytes as JSON: a design may be at most 5 MiB (5242880 bytes)`,
    );
  });

  it('when a template is in a script of several bytes a character, then its bytes count, not its characters', () => {
    const base = jsonBytes(withTemplate(''));
    // 'é' is 2 bytes of UTF-8: half as many characters as the limit has bytes are past it.
    const accented = withTemplate('é'.repeat(Math.ceil((MAX_DESIGN_BYTES - base) / 2) + 1));
    expect(designSizeProblem(accented)).toMatch(/^is \d+ bytes as JSON/);
    expect(designSizeProblem(TEST_DESIGN)).toBeUndefined();
  });
});
