import type { Content } from '../../src/domain/content';
import { renderHtml } from '../../src/domain/html-render';
import { renderRenditions } from '../../src/domain/renditions';

// sanitize-html itself, counted: it costs 20 to 130 us a call whatever the value, so the number of calls is
// what a large content costs.
jest.mock('sanitize-html', () => {
  const actual = jest.requireActual<typeof import('sanitize-html')>('sanitize-html');
  return Object.assign(jest.fn(actual), actual);
});
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the mock above, to count its calls
const sanitizeHtml = require('sanitize-html') as jest.Mock;

beforeEach(() => sanitizeHtml.mockClear());

describe('sanitize-html calls', () => {
  it('when a component holds 90,000 directives of bare inline markup, then none goes through sanitize-html and each renders as written', () => {
    const values: Record<string, string> = {};
    for (let index = 0; index < 90_000; index += 1) values[`d${index}`] = `<b>${index}</b>`;
    values.d7 = '<b>7</b> <i>x</i> &amp; y > z<br>';
    values.d8 = '<b onclick="x()">8</b>';
    const content: Content = [{ id: 'many', component: 'unknown', content: values }];

    const html = renderHtml(content, undefined, { renderDirectiveInfo: false });
    expect(sanitizeHtml).toHaveBeenCalledTimes(1); // d8, for its attribute
    expect(html.match(/<div>/g)).toHaveLength(90_000);
    for (const index of [0, 1, 4321, 89_999]) expect(html).toContain(`<div><b>${index}</b></div>`);
    expect(html).toContain('<div><b>7</b> <i>x</i> &amp; y &gt; z<br /></div>');
    expect(html).toContain('<div><b>8</b></div>');

    sanitizeHtml.mockClear();
    const [web, html2] = renderRenditions(content, ['web', 'html']);
    expect(sanitizeHtml).toHaveBeenCalledTimes(1);
    expect(web!.content).toContain('<div data-directive="d4321"><b>4321</b></div>');
    expect(web!.content).toContain('<div data-directive="d8"><b>8</b></div>');
    expect(html2).toEqual({ handle: 'html', content: web!.content });
  });

  it('when both web and html renditions are asked for, then the content is made safe once', () => {
    const content: Content = [
      { id: 'a', component: 'text', content: { text: '<a href="https://x.example">x</a>' } },
    ];
    const renditions = renderRenditions(content, ['web', 'html']);
    expect(sanitizeHtml).toHaveBeenCalledTimes(1);
    expect(renditions.map((rendition) => rendition.content)).toEqual([
      '<div class="text"><div data-directive="text"><a href="https://x.example">x</a></div></div>',
      '<div class="text"><div data-directive="text"><a href="https://x.example">x</a></div></div>',
    ]);
  });
});
