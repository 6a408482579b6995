import {
  elementCommands,
  plannerElementContentType,
  plannerElementSchema,
  plannerElementsEnabled,
  storedElementFields,
} from '../../src/domain/planner-element';
import { ProjectConfigSchema } from '../../src/domain/project-config';

const set = (propertyName: string, value: unknown) => ({
  operation: 'setMetadataProperty',
  propertyName,
  value,
});

describe('elementCommands', () => {
  it('when there is no previous element, then every mapped field becomes a command', () => {
    expect(
      elementCommands(undefined, { title: 'T', description: 'D', metadata: { flag: 'x', priority: 2 } }),
    ).toEqual([set('flag', 'x'), set('priority', 2), set('title', 'T'), set('description', 'D')]);
    expect(elementCommands(undefined, {})).toEqual([]);
  });

  it('when the element changes, then only the fields that differ from the previous element become commands', () => {
    const previous = {
      title: 'T',
      metadata: { flag: 'x', tags: ['a', 'b'], place: { city: 'Bern', zip: '3000' } },
    };
    const next = {
      title: 'T',
      metadata: { flag: 'y', tags: ['a', 'b'], place: { zip: '3000', city: 'Bern' } },
    };
    expect(elementCommands(previous, next)).toEqual([set('flag', 'y')]);
  });

  it('when a field the previous element had is gone or null, then the command removes it', () => {
    expect(
      elementCommands({ title: 'T', description: 'D', metadata: { flag: 'x' } }, { title: null }),
    ).toEqual([set('title', null), set('flag', null), set('description', null)]);
  });

  it('when an element was stored earlier, then its mapped fields are read back, whatever else it holds', () => {
    expect(storedElementFields({ id: 'e1', title: 'T', metadata: { a: 1 }, assignments: [1] })).toEqual({
      title: 'T',
      metadata: { a: 1 },
    });
    expect(storedElementFields({ assignments: [] })).toEqual({});
    expect(storedElementFields('not an element')).toEqual({});
  });
});

describe('plannerElementSchema', () => {
  it('when an element comes with keys of the tool, then they are kept and the id becomes a string', () => {
    expect(
      plannerElementSchema.parse({ id: 42, title: 'T', slug: 'council', publications: [{ id: 1 }] }),
    ).toEqual({
      id: '42',
      title: 'T',
      slug: 'council',
      publications: [{ id: 1 }],
    });
  });
});

describe('the planner section of the project config', () => {
  const parse = (planner: unknown) =>
    ProjectConfigSchema.safeParse({
      settings: { handle: 'demo' },
      contentTypes: [
        { handle: 'page', documentType: 'page' },
        { handle: 'news', documentType: 'article' },
        { handle: 'story', documentType: 'article' },
      ],
      planner,
    });

  it('when element sync names a content type the project lacks, then the config is refused at that path', () => {
    const parsed = parse({ elements: { enabled: true, contentType: 'video' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['planner.elements.contentType', "unknown content type 'video'"],
    ]);
  });

  it('when element sync is enabled, then drafts get the named content type, else the first article type', () => {
    const named = parse({
      elements: { enabled: true, contentType: 'story' },
      integration: { enabled: false },
    });
    expect(plannerElementsEnabled(named.data!)).toBe(true);
    expect(plannerElementContentType(named.data!)?.handle).toBe('story');
    const first = parse({ elements: { enabled: true } });
    expect(plannerElementContentType(first.data!)?.handle).toBe('news');
    expect(plannerElementsEnabled(parse({ elements: { enabled: false } }).data!)).toBe(false);
    expect(plannerElementsEnabled(parse(undefined).data!)).toBe(false);
  });
});
