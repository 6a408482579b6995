import { parseDocumentsFile, withAutoPublish } from '../../src/cli/commands/import';
import { jsonErrorOffset } from '../../src/cli/text-files';
import {
  demoArticles,
  demoAuthors,
  demoConfig,
  demoMedia,
  demoMenu,
  DEMO_DESIGN,
} from '../../src/demo/content';
import { solidPng } from '../../src/demo/png';
import { Random } from '../../src/demo/random';
import { validateContentAgainstDesign } from '../../src/domain/design-validation';
import { inspectMenu } from '../../src/domain/menus';
import { ProjectConfigSchema } from '../../src/domain/project-config';

function generate(seed: number) {
  const random = new Random(seed);
  const media = demoMedia(random, 5);
  const images = media.map(({ id, width, height }) => ({
    id,
    url: `http://x/${id}`,
    width,
    height,
    mimeType: 'image/png',
  }));
  const authors = demoAuthors(random, 3);
  const articles = demoArticles(random, 60, [1, 2, 3], images);
  return { media, authors, articles };
}

describe('demo content', () => {
  it('when generated twice with the same seed, then it is identical; another seed differs', () => {
    expect(generate(7)).toEqual(generate(7));
    expect(generate(8).articles[0]!.metadata.title).not.toEqual(generate(7).articles[0]!.metadata.title);
  });

  it('when articles are generated, then they come in en and de language groups with multi-paragraph real text', () => {
    const { articles } = generate(1);
    expect(articles).toHaveLength(60);
    const languages = articles.map((a) => a.metadata.language as { locale: string; groupId: string });
    expect(new Set(languages.map((l) => l.locale))).toEqual(new Set(['en', 'de']));
    const german = languages.find((l) => l.locale === 'de')!;
    expect(languages.filter((l) => l.groupId === german.groupId).map((l) => l.locale)).toEqual(['en', 'de']);
    const paragraphs = articles[0]!.content.filter((c) => c.component === 'paragraph');
    expect(paragraphs.length).toBeGreaterThanOrEqual(3);
    expect(String((paragraphs[0]!.content as { text: string }).text)).toMatch(/^[A-Z][a-z]+( [a-zäöü]+)+\./);
  });

  it('when the demo content is checked against the demo design and its config, then both are valid', () => {
    const { articles, authors } = generate(3);
    for (const document of [...articles, ...authors]) {
      expect(validateContentAgainstDesign(document.content as never, DEMO_DESIGN)).toEqual([]);
    }
    expect(ProjectConfigSchema.safeParse(demoConfig(5)).success).toBe(true);
  });

  it('when the main menu is built, then Home and each category point at their pages, children below their parent', () => {
    const { checked: menu, documentNodes } = inspectMenu(demoMenu([100, 101, 102, 103, 104]));
    if (!menu.ok) throw new Error(JSON.stringify(menu.issues));
    expect(menu.value.nodes.map((node) => [node.label, node.type])).toEqual([
      ['Home', 'document'],
      ['News', 'document'],
      ['Science', 'document'],
      ['Culture', 'path'],
      ['Sport', 'path'],
      ['Travel', 'path'],
      ['Archive', 'path'],
      ['Subscribe', 'uri'],
    ]);
    expect(menu.value.nodes[1]!.nodes.map((node) => node.label)).toEqual(['Politics', 'Economy']);
    expect(documentNodes.map((node) => node.documentId)).toEqual([100, 101, 102, 103, 104]);
    expect(menu.value.nodes[3]).toMatchObject({ type: 'path', path: '/culture' });
  });

  it('when a PNG is generated, then it has the PNG signature and the requested size', () => {
    const png = solidPng(8, 4, [255, 0, 0]);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(8);
    expect(png.readUInt32BE(20)).toBe(4);
  });
});

describe('parseDocumentsFile', () => {
  it('when the file is a JSON array, {documents}, or NDJSON, then the documents are read', () => {
    expect(parseDocumentsFile('[{"id":"a"},{"id":"b"}]')).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(parseDocumentsFile('{"documents":[{"id":"a"}]}')).toEqual([{ id: 'a' }]);
    expect(parseDocumentsFile('{"id":"a"}\n\n{"id":"b"}\n')).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(parseDocumentsFile('')).toEqual([]);
  });

  it('when an NDJSON line is not JSON, then the error names the file, the line and the column', () => {
    expect(() => parseDocumentsFile('{"id":"a"}\n{oops', 'a.ndjson')).toThrow(
      "a.ndjson: line 2 is not JSON: Expected property name or '}' in JSON at column 2",
    );
    // Lines are counted from the top of the file, blank leading lines too.
    expect(() => parseDocumentsFile('\n\n{"id":"a"}\n{oops', 'a.ndjson')).toThrow(
      'a.ndjson: line 4 is not JSON',
    );
  });

  it('when a JSON file spread over lines has a mistake, then it is named with JSON’s problem on one line, not as line 1 of NDJSON', () => {
    // 'line 1 is not JSON' before: line 1 is the '[' of a file whose mistake is a trailing comma further down.
    const parse = () => parseDocumentsFile('[\n  {"id":"a"},\n  {"id":"b"},\n]\n', 'docs.json');
    expect(parse).toThrow(
      /^docs\.json is not JSON: Unexpected token '\]', .* is not valid JSON \(line 4 column 1\)$/,
    );
    expect(parse).not.toThrow(/\n/);
  });

  it('when JSON names no position for its problem, then the line and column are found and named', () => {
    // V8 says where for some problems only: an unexpected token or word came without any, so a mistake in
    // the first line of an NDJSON file (or anywhere in a JSON file) was named without its line.
    expect(() => parseDocumentsFile('{"id": a}\n{"id":"b"}\n', 'f.ndjson')).toThrow(
      /^f\.ndjson is not JSON: Unexpected token 'a', .* \(line 1 column 8\)$/,
    );
    expect(() => parseDocumentsFile('[\n {"id": "a"},\n {"id": tru}\n]', 'docs.json')).toThrow(
      /^docs\.json is not JSON: Unexpected token '}', .* \(line 3 column 9\)$/,
    );
    // Where the scanner stops: the first character that cannot be there (the end when the text ends early).
    const offsets: [string, number][] = [
      ['{"id": "a\u0001"}', 9],
      ['{"id": "\\q"}', 8],
      ['{"id": 01}', 8],
      ['{"id" "a"}', 6],
      ['[{"id": "a"}] x', 14],
      ['[{"id": "a"}', 12],
      ['[1, 2,]', 6],
      ['{"a": [1, {"b": falsey}]}', 16],
      [`${'['.repeat(100_000)}x`, 100_000],
    ];
    for (const [text, offset] of offsets)
      expect([text.slice(0, 20), jsonErrorOffset(text)]).toEqual([text.slice(0, 20), offset]);
  });
});

describe('withAutoPublish (import --auto-publish)', () => {
  it('when a document has no flags or flags that are an object, then autoPublish is set and the other flags kept', () => {
    expect(withAutoPublish({ id: 'a' })).toEqual({ id: 'a', flags: { autoPublish: true } });
    expect(withAutoPublish({ id: 'a', flags: { unpublish: false, autoPublish: false } })).toEqual({
      id: 'a',
      flags: { unpublish: false, autoPublish: true },
    });
  });

  it('when the document or its flags are not objects, then it is left as it is for validation to name', () => {
    for (const document of [
      { id: 'a', flags: 'ab' },
      { id: 'a', flags: [1] },
      { id: 'a', flags: null },
      [{ id: 'a' }],
      'a',
      null,
    ]) {
      expect(withAutoPublish(document)).toBe(document);
    }
  });
});
