import type { Content } from '../../src/domain/content';
import { renderRenditions } from '../../src/domain/renditions';

describe('renderRenditions', () => {
  it('when the content has components and containers, then web and html render them and other handles are skipped', () => {
    const content: Content = [
      { id: 'a', component: 'card', content: { title: 'Hi', image: { url: 'https://x/y.png', alt: 'a"b' } } },
      {
        id: 'b',
        identifier: 'd.box',
        containers: { main: [{ id: 'c', component: 'text', content: { text: 'T' } }] },
      },
    ];
    const html =
      '<div class="card"><div data-directive="title">Hi</div><img data-directive="image" src="https://x/y.png" alt="a&quot;b"></div>' +
      '<div class="box"><div data-container="main"><div class="text"><div data-directive="text">T</div></div></div></div>';
    expect(renderRenditions(content, ['web', 'amp', 'html', 'web'])).toEqual([
      { handle: 'web', content: html },
      { handle: 'html', content: html },
    ]);
  });

  it('when stored content holds junk (names that are not strings, items that are not components), then it is skipped, not a 500', () => {
    // Content imported up to 2025-11 is stored as sent.
    const content = [
      { id: 'a', component: { nested: 'obj' }, identifier: 5 },
      {
        id: 'b',
        identifier: 5,
        containers: { main: [null, 5, 'x', { id: 'c', component: 'text' }], side: 'no' },
      },
      { id: 'd', component: 'text', content: { image: { url: 5, alt: {} } } },
    ] as unknown as Content;
    expect(renderRenditions(content, ['web'])).toEqual([
      {
        handle: 'web',
        content:
          '<div class=""></div><div class=""><div data-container="main"><div class="text"></div></div>' +
          '<div data-container="side"></div></div><div class="text"></div>',
      },
    ]);
  });

  it('when a text directive holds markup or an image a javascript: url, then scripts, handlers and unsafe urls are dropped, formatting stays', () => {
    const content: Content = [
      {
        id: 'a',
        component: 'text',
        content: {
          text: 'Hi <b>there</b><script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)">x</a>',
          image: { url: 'javascript:alert(4)', alt: 'x' },
          photo: { url: 'https://x/y.png', alt: "it's" },
        },
      },
    ];
    const [rendition] = renderRenditions(content, ['web']);
    expect(rendition!.content).toBe(
      '<div class="text"><div data-directive="text">Hi <b>there</b>' +
        '<img src="x" /><a>x</a></div>' +
        '<img data-directive="photo" src="https://x/y.png" alt="it&#39;s"></div>',
    );
  });

  it('when a text directive holds an embed, then its https iframe stays and its styles go', () => {
    const embed =
      '<div class="responsive-embed" style="position: relative;"><iframe src="https://player.example/embed/v" ' +
      'frameborder="0" allowfullscreen=""></iframe></div><iframe src="http://plain.example/"></iframe>';
    const [rendition] = renderRenditions(
      [{ id: 'v', component: 'video', content: { iframe: embed } }],
      ['html'],
    );
    expect(rendition!.content).toBe(
      '<div class="video"><div data-directive="iframe"><div><iframe src="https://player.example/embed/v" ' +
        'frameborder="0" allowfullscreen></iframe></div><iframe></iframe></div></div>',
    );
  });
});
