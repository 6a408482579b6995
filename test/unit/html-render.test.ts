import fc from 'fast-check';
import { isRecord, type Component, type Content } from '../../src/domain/content';
import type { Design } from '../../src/domain/design';
import {
  escapeHtml,
  loadSanitizeHtml,
  renderHtml,
  renderHtmlSteps,
  safeUrl,
  sanitizeEmbed,
  sanitizeRichText,
} from '../../src/domain/html-render';
import { parseTemplate } from '../../src/domain/html-template';
import { loadLivingTimesDesign, loadPublication } from '../helpers/fixtures';

const DESIGN: Design = {
  name: 'd',
  version: '1',
  components: [
    {
      name: 'card',
      html: '<article class="card"><h2 doc-editable="title">Placeholder</h2><img doc-image="image" alt="fixed"><a doc-link="link" class="more">More</a><div doc-include="teaser"></div><section doc-container="body"></section><!-- a note --></article>',
      directives: [
        { name: 'title', type: 'editable' },
        { name: 'image', type: 'image' },
        { name: 'link', type: 'link' },
        { name: 'teaser', type: 'include' },
      ],
      containers: ['body'],
    },
    {
      name: 'text',
      html: '<p doc-editable="text"></p>',
      directives: [{ name: 'text', type: 'editable' }],
    },
    {
      name: 'embed',
      html: "<div class='embed' doc-html='code'></div>",
      directives: [{ name: 'code', type: 'html' }],
    },
  ],
};

const plain = { renderDirectiveInfo: false };
const marked = { renderDirectiveInfo: true };

describe('parseTemplate', () => {
  it('when a template has void, self-closing and quoted attributes, then the tree keeps them', () => {
    expect(parseTemplate(`<div a="1" b='x"y' c=bare d><img src="s"><br/>text</div>`)).toEqual([
      {
        kind: 'element',
        tag: 'div',
        attributes: [
          ['a', '1'],
          ['b', 'x"y'],
          ['c', 'bare'],
          ['d', undefined],
        ],
        isVoid: false,
        children: [
          { kind: 'element', tag: 'img', attributes: [['src', 's']], children: [], isVoid: true },
          { kind: 'element', tag: 'br', attributes: [], children: [], isVoid: true },
          { kind: 'text', text: 'text' },
        ],
      },
    ]);
  });

  it('when end tags are missing or stray and comments appear, then the tree closes what is open and drops them', () => {
    expect(parseTemplate('</p><div><span>a</div>b<!-- c -->')).toEqual([
      {
        kind: 'element',
        tag: 'div',
        attributes: [],
        isVoid: false,
        children: [
          {
            kind: 'element',
            tag: 'span',
            attributes: [],
            isVoid: false,
            children: [{ kind: 'text', text: 'a' }],
          },
        ],
      },
      { kind: 'text', text: 'b' },
    ]);
  });
});

describe('renderHtml', () => {
  const card: Content = [
    {
      id: 'c1',
      component: 'card',
      content: {
        title: 'Rock &amp; <b>roll</b>',
        image: { url: 'https://img.example/a.jpg?a=1&b="2"', alt: 'An "alt"' },
        link: { href: 'https://example.com/x', target: '_blank' },
        teaser: { service: 'teaser', params: { mediaId: 4 } },
      },
      containers: { body: [{ id: 't1', component: 'text', content: { text: 'Inside' } }] },
    },
  ];

  it('when a component has a template, then its directive elements are filled and its doc- attributes dropped', () => {
    expect(renderHtml(card, DESIGN, plain)).toBe(
      '<article class="card"><h2>Rock &amp; <b>roll</b></h2>' +
        '<img alt="An &quot;alt&quot;" src="https://img.example/a.jpg?a=1&amp;b=&quot;2&quot;">' +
        '<a class="more" href="https://example.com/x" target="_blank" rel="noopener noreferrer">More</a>' +
        '<div></div>' +
        '<section><p>Inside</p></section></article>',
    );
  });

  it('when renderDirectiveInfo is true, then roots and directive elements carry data markers', () => {
    const html = renderHtml(card, DESIGN, marked);
    expect(html).toContain('<article class="card" data-component-name="card" data-component-id="c1">');
    expect(html).toContain('<h2 data-directive-name="title" data-directive-type="editable">');
    expect(html).toContain(
      '<div data-directive-name="teaser" data-directive-type="include" data-include-service="teaser"></div>',
    );
    expect(html).toContain('<section data-directive-name="body" data-directive-type="container">');
    expect(html).toContain('<p data-component-name="text" data-component-id="t1" data-directive-name="text"');
  });

  it('when a value has no < or &, then it is answered as sanitize-html answers it, only > escaped', () => {
    const values = [
      '',
      'Plain words',
      'a > b and "quoted" \'single\'',
      'tabs\tand\r\nbreaks \u0000 nul',
      'é \u00a0 💥 ;#x1; = / ` \\',
      '>>>',
    ];
    for (const value of values) {
      const expected = loadSanitizeHtml()(value, { allowedTags: [], disallowedTagsMode: 'escape' });
      expect(sanitizeRichText(value)).toBe(expected);
      expect(sanitizeEmbed(value)).toBe(expected);
    }
    expect(sanitizeRichText('a > b "c"')).toBe('a &gt; b "c"');
    // Markup still goes through sanitize-html.
    expect(sanitizeRichText('a &amp; b')).toBe('a &amp; b');
    expect(sanitizeRichText('a & b > c')).toBe('a &amp; b &gt; c');
  });

  it('when content carries markup, then rich text keeps inline formatting and escapes the rest, embeds lose scripts', () => {
    expect(sanitizeRichText('a <i>b</i> <script>x()</script> <a href="javascript:y()">c</a>')).toBe(
      'a <i>b</i> &lt;script&gt;x()&lt;/script&gt; <a>c</a>',
    );
    expect(sanitizeRichText('<div onclick="z()">d</div>')).toBe('&lt;div&gt;d&lt;/div&gt;');
    expect(
      sanitizeEmbed('<p onclick="z()">p</p><script>x()</script><iframe src="https://v.example/e"></iframe>'),
    ).toBe('<p>p</p><iframe src="https://v.example/e"></iframe>');
    expect(sanitizeEmbed('<iframe src="http://v.example/e"></iframe><style>*{}</style>')).toBe(
      '<iframe></iframe>',
    );
    // Only an absolute https URL: a protocol-relative one follows an http page to http, a relative one
    // frames the rendering site itself.
    for (const src of ['//v.example/e', ' //v.example/e', '/\\v.example/e', '/admin', 'e.html', 'HTTP://v']) {
      expect(sanitizeEmbed(`<iframe src="${src}"></iframe>`)).toBe('<iframe></iframe>');
    }
    expect(sanitizeEmbed('<iframe src=" HTTPS://v.example/e"></iframe>')).toBe(
      '<iframe src=" HTTPS://v.example/e"></iframe>',
    );
    const embed: Content = [
      { id: 'e', component: 'embed', content: { code: '<b>ok</b><script>bad()</script>' } },
    ];
    expect(renderHtml(embed, DESIGN, plain)).toBe('<div class="embed"><b>ok</b></div>');
  });

  it('when a link may open a new tab, then it carries rel="noopener noreferrer" (no reverse tabnabbing); one that stays does not', () => {
    const design: Design = {
      name: 'd',
      version: '1',
      components: [
        {
          name: 'out',
          html: '<a doc-link="link" target="_blank" rel="nofollow opener">Out</a>',
          directives: [{ name: 'link', type: 'link' }],
        },
        { name: 'go', html: '<a doc-link="link">Go</a>', directives: [{ name: 'link', type: 'link' }] },
      ],
    };
    const content: Content = [
      { id: 'o', component: 'out', content: { link: { href: '/a' } } },
      { id: 'g', component: 'go', content: { link: { href: '/b', target: '_self' } } },
    ];
    expect(renderHtml(content, design, plain)).toBe(
      '<a target="_blank" rel="nofollow noopener noreferrer" href="/a">Out</a>' +
        '<a href="/b" target="_self">Go</a>',
    );
    expect(sanitizeRichText('<a href="https://x.example" target="_blank">x</a>')).toBe(
      '<a href="https://x.example" target="_blank" rel="noopener noreferrer">x</a>',
    );
    expect(sanitizeEmbed('<a href="https://x.example" target="preview" rel="opener">x</a>')).toBe(
      '<a href="https://x.example" target="preview" rel="noopener noreferrer">x</a>',
    );
    expect(sanitizeEmbed('<a href="https://x.example" target="_top" rel="nofollow">x</a>')).toBe(
      '<a href="https://x.example" target="_top" rel="nofollow">x</a>',
    );
  });

  it('when a url has an unsafe scheme, then it is not written; relative and http(s) urls are', () => {
    for (const bad of ['javascript:x()', ' JaVa\tScRiPt:x()', 'data:text/html,x', 'vbscript:x', '', 5]) {
      expect(safeUrl(bad)).toBeUndefined();
    }
    for (const good of [
      'https://a.example/',
      'http://a',
      '/path',
      '#top',
      '?q=1',
      'mailto:a@b.example',
      '//cdn.x/y',
    ]) {
      expect(safeUrl(good)).toBe(good);
    }
    const hostile: Content = [
      {
        id: 'c',
        component: 'card',
        content: {
          title: 'T',
          image: { url: 'javascript:alert(1)' },
          link: { href: 'data:text/html,x', target: 'evil' },
        },
      },
    ];
    expect(renderHtml(hostile, DESIGN, plain)).toBe(
      '<article class="card"><h2>T</h2><img alt="fixed"><a class="more">More</a><div></div><section></section></article>',
    );
  });

  it('when an unsafe scheme hides behind Unicode spaces that trim() removes, then it is not written either', () => {
    // String#trim drops NBSP, ideographic space, BOM…, browsers do not: the check must see the URL written.
    for (const space of ['\u00a0', '\u3000', '\ufeff', '\u2028', '\u2003']) {
      expect(safeUrl(`${space}javascript:alert(1)`)).toBeUndefined();
      expect(safeUrl(`https://a.example/${space}`)).toBe('https://a.example/');
    }
    const hostile: Content = [
      {
        id: 'c',
        component: 'card',
        content: {
          title: 'T',
          image: { url: '\u00a0javascript:alert(1)' },
          link: { href: '\ufeffjavascript:alert(document.cookie)' },
        },
      },
    ];
    expect(renderHtml(hostile, DESIGN, plain)).toBe(
      '<article class="card"><h2>T</h2><img alt="fixed"><a class="more">More</a><div></div><section></section></article>',
    );
  });

  it('when the design lacks the component or a template, then a div per directive and container stands in', () => {
    const content: Content = [
      {
        id: 'x',
        component: 'unknown',
        content: {
          title: 'Hi <u>you</u>',
          picture: { url: 'https://img.example/p.png' },
          go: { href: '/next' },
          teaser: { service: 'teaser', params: {} },
          look: { color: 'red' },
        },
        containers: { items: [{ id: 'y', component: 'text', content: { text: 'Child' } }] },
      },
    ];
    expect(renderHtml(content, undefined, plain)).toBe(
      '<div class="unknown"><div>Hi <u>you</u></div><img src="https://img.example/p.png"><a href="/next"></a>' +
        '<div></div><div><div class="text"><div>Child</div></div></div></div>',
    );
    const named = '<div class="a&quot;b"><div>v</div></div>';
    expect(renderHtml([{ id: 'n', component: 'a"b', content: { '"x': 'v' } }], undefined, plain)).toBe(named);
  });

  it('when a component has no id, then its marker names it by position; stored junk renders nothing', () => {
    const content = [
      { component: 'text', content: { text: 'A' } },
      null,
      'junk',
      { id: 'c', component: 'card', containers: { body: [{ component: 'text', content: { text: 'B' } }] } },
    ] as unknown as Content;
    const html = renderHtml(content, DESIGN, marked);
    expect(html).toContain('data-component-id="0"');
    expect(html).toContain('data-component-id="3.body.0"');
  });

  it('when stored content names a component with something other than a string, then it renders as an unnamed one', () => {
    // Content imported up to 2025-11 is stored as sent: a component or identifier that is a number or an
    // object made componentName return it (or call indexOf on it), and the render threw: a 500.
    const content = [
      { id: 'a', component: { nested: 'obj' }, identifier: 5 },
      { id: 'b', identifier: 5 },
      { id: 'c', identifier: ['d.text'] },
      { id: 'e', component: 7, content: { text: 'T' } },
    ] as unknown as Content;
    expect(renderHtml(content, DESIGN, plain)).toBe(
      '<div class=""></div><div class=""></div><div class=""></div><div class=""><div>T</div></div>',
    );
    expect(renderHtml(content, DESIGN, marked)).toContain('data-component-name=""');
  });

  it('when stored content or containers of an unknown component are text or an array, then they name no directive', () => {
    // Imported as sent up to 2025-11: Object.entries of a string made one element per character, so 'abc'
    // rendered as three directives and a 2 MB string blocked the process for minutes.
    const content = [
      { id: 'a', component: 'unknown', content: 'abc', containers: 'xy' },
      { id: 'b', component: 'unknown', content: ['p', 'q'], containers: [{ id: 'c', component: 'text' }] },
    ] as unknown as Content;
    expect(renderHtml(content, undefined, plain)).toBe(
      '<div class="unknown"></div><div class="unknown"></div>',
    );
    const large = [{ id: 'l', component: 'unknown', content: 'x'.repeat(2_000_000) }] as unknown as Content;
    const started = Date.now();
    expect(renderHtml(large, undefined, plain)).toBe('<div class="unknown"></div>');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('when the magazine article 321 renders through the living-times design, then no directive attribute or script remains', () => {
    const article = loadPublication('articles/321.json');
    const html = renderHtml(article.content, loadLivingTimesDesign(), plain);
    expect(html.startsWith('<div class="lt-article-container">')).toBe(true);
    expect(html).toContain('billing tenants on estimated meter readings');
    expect(html).not.toMatch(/doc-(editable|include|container|image|html|link)=|<script/);
  });
});

describe('renderHtml in steps', () => {
  const plain = { renderDirectiveInfo: false };
  const marked = { renderDirectiveInfo: true };

  /** The fallback template as the text it was written as before, parsed through a design with parseTemplate. */
  function fallbackText(component: Component): string {
    const kinds = ['editable', 'image', 'html', 'link', 'include', 'container', 'style'];
    const entries = Object.entries(component.content ?? {}).map(([name, value]): [string, string] => [
      name,
      isRecord(value)
        ? typeof value.service === 'string'
          ? 'include'
          : typeof value.url === 'string'
            ? 'image'
            : typeof value.href === 'string' || value.$ref === 'document'
              ? 'link'
              : 'style'
        : 'editable',
    ]);
    const inner = entries
      .filter(([, type]) => type !== 'style')
      .map(([name, type]) =>
        type === 'image'
          ? `<img doc-image="${escapeHtml(name)}">`
          : type === 'link'
            ? `<a doc-link="${escapeHtml(name)}"></a>`
            : `<div doc-${kinds.includes(type) ? type : 'editable'}="${escapeHtml(name)}"></div>`,
      )
      .concat(
        Object.keys(component.containers ?? {}).map(
          (name) => `<div doc-container="${escapeHtml(name)}"></div>`,
        ),
      )
      .join('');
    return `<div class="${escapeHtml(component.component ?? '')}">${inner}</div>`;
  }

  const name = fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.constantFrom('a"b', "it's", '<x>', 'a&amp;b', '&lt;', 'x y', 'é💥', 'a\nb', '/>', '='),
  );
  const value = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('<b>x</b>', '<a href="https://x.example" target="_blank">l</a>', '<script>x()</script>'),
    fc.record({
      url: fc.constantFrom('https://x/y.png', 'javascript:x()'),
      alt: fc.string({ maxLength: 4 }),
    }),
    fc.record({
      href: fc.constantFrom('https://x', 'javascript:x()'),
      target: fc.constantFrom('_blank', 'x'),
    }),
    fc.record({ service: fc.constantFrom('teaser', 'embed') }),
    fc.constant({ color: 'red' }),
  );
  const component = fc.record({
    id: fc.string({ maxLength: 4 }),
    component: name,
    content: fc.dictionary(name, value, { maxKeys: 6 }),
    // Empty containers: their elements are the fallback's; what they hold renders the same either way.
    containers: fc.dictionary(name, fc.constant<Component[]>([]), { maxKeys: 2 }),
  });

  it('when a component has no template, then it renders as the fallback template parsed from its text did', () => {
    fc.assert(
      fc.property(fc.array(component, { maxLength: 4 }), (components) => {
        // The same components, each under a name the design gives its fallback text as template.
        const named = components.map((item, index) => ({ ...item, component: `as-text-${index}` }));
        const design: Design = {
          name: 'd',
          version: '1',
          components: components.map((item, index) => ({
            name: `as-text-${index}`,
            html: fallbackText(item),
            directives: [],
          })),
        };
        const withoutNames = (html: string) => html.replace(/ (class|data-component-name)="[^"]*"/g, '');
        for (const options of [plain, marked]) {
          const fallback = renderHtml(components, undefined, options);
          expect(withoutNames(fallback)).toBe(withoutNames(renderHtml(named, design, options)));
          for (const item of components) {
            expect(fallback).toContain(`<div class="${escapeHtml(item.component)}"`);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('when the render pauses before every element, then the answer is the same as without pausing', () => {
    const article = loadPublication('articles/321.json');
    const design = loadLivingTimesDesign();
    for (const options of [plain, marked]) {
      const steps = renderHtmlSteps(article.content, design, options, () => true);
      let pauses = 0;
      let step = steps.next();
      for (; step.done !== true; step = steps.next()) pauses += 1;
      expect(pauses).toBeGreaterThan(50);
      expect(step.value).toBe(renderHtml(article.content, design, options));
    }
  });
});
