import type { Content } from '../../src/domain/content';
import { computeStatistics, extractSearchText, htmlToPlainText } from '../../src/domain/publication-text';
import { loadPublication } from '../helpers/fixtures';

describe('htmlToPlainText', () => {
  it('when given inline markup, then the tags go and the words stay joined', () => {
    expect(htmlToPlainText('A <a href="http://x.test">new <b>bill</b></a>.')).toBe('A new bill.');
  });

  it('when block elements touch, then their words stay apart', () => {
    expect(htmlToPlainText('<p>one</p><p>two</p>line<br>break<li>item</li>')).toBe('one two line break item');
  });

  it('when entities appear, then they are decoded', () => {
    expect(htmlToPlainText('Q&amp;A&nbsp;time &lt;3 &quot;x&quot; &#39;y&#x27; &hellip; &euro;')).toBe(
      'Q&A time <3 "x" \'y\' … €',
    );
  });

  it('when an escaped tag appears, then it stays text', () => {
    expect(htmlToPlainText('use &lt;b&gt; for bold')).toBe('use <b> for bold');
  });

  it('when entities are unknown or out of range, then they are left as written', () => {
    expect(htmlToPlainText('&bogus; &#0; &#xD800; &#x110000;')).toBe('&bogus; &#0; &#xD800; &#x110000;');
  });

  it('when an entity is named like an Object.prototype key, then it is left as written', () => {
    expect(htmlToPlainText('a &constructor; &toString; &__proto__; &valueOf; &amp; b')).toBe(
      'a &constructor; &toString; &__proto__; &valueOf; & b',
    );
  });

  it('when scripts, styles and comments are present, then their contents are dropped', () => {
    expect(
      htmlToPlainText('a<script type="x">var b = "<p>no</p>";</script> c<style>p{}</style><!-- hidden --> d'),
    ).toBe('a c d');
  });

  it('when whitespace runs, then it collapses to single spaces and is trimmed', () => {
    expect(htmlToPlainText('  one\n\n\ttwo &nbsp; three  ')).toBe('one two three');
  });

  it('when a lone less-than sign appears, then it is kept', () => {
    expect(htmlToPlainText('a < b and 3<4')).toBe('a < b and 3<4');
  });
});

describe('extractSearchText', () => {
  it('when metadata has a title and description, then both are returned as plain text', () => {
    expect(extractSearchText({ title: 'Tom &amp; Jerry', description: '<b>Cat</b> and mouse' }, [])).toEqual({
      title: 'Tom & Jerry',
      description: 'Cat and mouse',
      text: '',
    });
  });

  it('when the title is missing, blank or not a string, then the key is absent', () => {
    expect(extractSearchText({ title: 42, description: '  ' }, [])).toEqual({ text: '' });
  });

  it('when components hold text directives, then their plain text is joined by newlines in tree order', () => {
    const content: Content = [
      {
        id: 'doc-1',
        identifier: 'd.head',
        content: { title: 'Head', text: 'Lead <i>text</i>' },
        containers: { main: [{ id: 'doc-2', identifier: 'd.paragraph', content: { text: 'Body' } }] },
      },
      { id: 'doc-3', identifier: 'd.paragraph', content: { text: 'End' } },
    ];
    expect(extractSearchText({}, content).text).toBe('Head\nLead text\nBody\nEnd');
  });

  it('when one component holds more text directives than one call takes as arguments, then all are joined', () => {
    // 200,000 short directives fit in a 2 MB content; spreading them into one push() was a RangeError.
    const directives = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`t${i}`, `w${i}`]));
    const content: Content = [{ id: 'doc-1', identifier: 'd.paragraph', content: directives }];
    const lines = extractSearchText({}, content).text.split('\n');
    expect(lines).toHaveLength(200_000);
    expect(lines.at(-1)).toBe('w199999');
  });

  it('when directives hold free-html or scripts, then they are skipped', () => {
    const content: Content = [
      { id: 'doc-1', identifier: 'd.free-html', content: { 'free-html': '<p>Visible?</p>', other: 'no' } },
      {
        id: 'doc-2',
        identifier: 'd.embed',
        content: { html: '<p>raw</p>', script: 'alert(1)', text: 'kept' },
      },
    ];
    expect(extractSearchText({}, content).text).toBe('kept');
  });

  it('when directives look like URLs or ids, then they are skipped', () => {
    const content: Content = [
      {
        id: 'doc-1',
        identifier: 'd.misc',
        content: {
          url: 'plain words in a url key',
          videoId: 'abc',
          link: 'https://example.test/page',
          ref: 'doc-1cd50t9df0',
          path: '/some/where',
          text: 'Real words',
        },
      },
    ];
    expect(extractSearchText({}, content).text).toBe('Real words');
  });

  it('when an image carries a caption, then the caption is included but its technical fields are not', () => {
    const content: Content = [
      {
        id: 'doc-1',
        identifier: 'd.image',
        content: {
          image: {
            url: 'https://example.test/x.jpg',
            mimeType: 'image/jpeg',
            imageService: 'imgix',
            caption: 'A harbour at dawn',
            crops: [{ name: '16:9', url: 'https://example.test/c.jpg' }],
            metadata: { credit: 'Photo: Jane' },
          },
        },
      },
    ];
    expect(extractSearchText({}, content).text).toBe('A harbour at dawn\nPhoto: Jane');
  });

  it('when a directive is an include or a document link, then its parameters and preloaded values are not text', () => {
    const content: Content = [
      {
        id: 'doc-1',
        identifier: 'd.teaser',
        content: {
          embed: { service: 'teaser', params: { title: 'param title', layout: 'card' } },
          link: { $ref: 'document', reference: { id: 1 }, value: { metadata: { title: 'Other doc' } } },
        },
      },
    ];
    expect(extractSearchText({}, content).text).toBe('');
  });

  it('when a component has no content or empty strings, then it adds no blank lines', () => {
    const content: Content = [
      { id: 'doc-1', identifier: 'd.a' },
      { id: 'doc-2', identifier: 'd.b', content: { text: '' } },
      { id: 'doc-3', identifier: 'd.c', content: { text: '<br>' } },
      { id: 'doc-4', identifier: 'd.d', content: { text: 'only', n: 3, b: true, nothing: null } },
    ];
    expect(extractSearchText({}, content).text).toBe('only');
  });

  it('when reading a real article, then the text has its paragraphs but no markup, scripts or teasers', () => {
    const { metadata, content } = loadPublication('articles/321.json');
    const result = extractSearchText(metadata, content);
    expect(result.title).toBe('Water Board to Refund Tenants Overcharged in the Old Quarter');
    expect(result.description).toMatch(/^An audit found that thousands of flats were billed for months/);
    // The first paragraph's link is gone but its words still join the sentence around it.
    expect(result.text).toContain(
      'after an internal audit found that the utility had been billing tenants on estimated meter readings',
    );
    expect(result.text).toContain('by Ines Marlowe, Living Times, and Tomas Reyes, Harbour Radio');
    expect(result.text).toContain('Recommended Stories');
    expect(result.text).not.toMatch(/<|beacon\.js|https?:|livingtimes\.example|sidebar-embed|author-embed/);
    expect(result.text.split('\n')[0]).toBe('Water Board to Refund Tenants Overcharged in the Old Quarter');
  });

  it('when reading a gallery, then image captions and sources are included', () => {
    const { content } = loadPublication('galleries/341.json');
    const json = JSON.stringify(content);
    const captions = [...json.matchAll(/"caption":\s*"([^"]+)"/g)].map((match) => match[1]);
    const sources = [...json.matchAll(/"source":\s*"([^"]+)"/g)].map((match) => match[1]);
    expect(captions.length).toBeGreaterThan(0);
    expect(sources.length).toBe(captions.length);
    const { text } = extractSearchText({}, content);
    for (const caption of captions) expect(text).toContain(htmlToPlainText(caption ?? ''));
    for (const source of sources) expect(text).toContain(htmlToPlainText(source ?? ''));
  });
});

describe('computeStatistics', () => {
  it('when content is empty, then the counts are zero', () => {
    expect(computeStatistics([])).toEqual({ characterCount: 0, componentCount: {} });
  });

  it('when components nest, then every one is counted by name', () => {
    const content: Content = [
      {
        id: 'doc-1',
        identifier: 'd.container',
        containers: {
          main: [
            { id: 'doc-2', identifier: 'd.paragraph', content: { text: 'ab' } },
            { id: 'doc-3', component: 'paragraph', content: { text: 'cd' } },
          ],
        },
      },
      { id: 'doc-4' },
    ];
    expect(computeStatistics(content)).toEqual({
      characterCount: 'ab\ncd'.length,
      componentCount: { container: 1, paragraph: 2 },
    });
  });

  it('when text has entities and astral characters, then characters are counted once each', () => {
    const content: Content = [{ id: 'doc-1', identifier: 'd.p', content: { text: 'a&amp;b 😀' } }];
    expect(computeStatistics(content).characterCount).toBe(5);
  });

  it('when a component is named like an object prototype key, then it is still counted as data', () => {
    const stats = computeStatistics([{ id: 'doc-1', identifier: 'd.__proto__' }]);
    expect(Object.keys(stats.componentCount)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(stats.componentCount)).toBe(Object.prototype);
  });

  it('when reading a real article, then the counts match its tree and its text', () => {
    const { metadata, content } = loadPublication('articles/321.json');
    const stats = computeStatistics(content);
    expect(stats.componentCount).toEqual({
      'article-container': 1,
      head: 1,
      // two tracking scripts in the body, one advertisement above the sidebar
      'free-html': 3,
      image: 1,
      paragraph: 19,
      'teaser-author': 1,
      'sidebar-title': 1,
      'teaser-sidebar': 4,
      '2-col-teaser-stack': 1,
    });
    expect(stats.characterCount).toBe([...extractSearchText(metadata, content).text].length);
    expect(stats.characterCount).toBeGreaterThan(4000);
  });
});
