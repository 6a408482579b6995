import {
  applyComponentConditions,
  checkConditionRequest,
  conditionContext,
  conditionRequestOf,
  parseConditionRequest,
  parseIsoDateTime,
  satisfiesConditions,
  type ConditionContext,
  type ConditionDefaults,
  type ConditionQuery,
} from '../../src/domain/component-conditions';
import {
  findComponent,
  walkComponents,
  type ComponentConditions,
  type Content,
} from '../../src/domain/content';
import { valueOrThrow } from '../../src/domain/validation';
import { validationDetails } from '../helpers/errors';
import { loadPublication } from '../helpers/fixtures';

// The checks report issues; the 400 keyed by the parameter is what a caller makes of them (valueOrThrow).
const parseComponentConditionsParam = (
  raw: string | undefined,
  defaults: ConditionDefaults,
  paramName = 'componentConditions',
) => conditionContext(valueOrThrow(parseConditionRequest(raw), paramName), defaults);
const parseComponentConditionsObject = (
  value: unknown,
  defaults: ConditionDefaults,
  paramName = 'componentConditions',
) => conditionContext(valueOrThrow(checkConditionRequest(value), paramName), defaults);
const resolveConditions = (query: ConditionQuery, defaults: ConditionDefaults) => {
  const request = valueOrThrow(conditionRequestOf(query), 'componentConditions');
  return request && conditionContext(request, defaults);
};

const loadContent = (file: string): Content => loadPublication(file).content;

const now = new Date('2025-06-15T12:00:00.000Z');
const defaults = { now, defaultBrand: 'ch' };

function ids(content: Content): string[] {
  return [...walkComponents(content)].map((component) => component.id);
}

describe('parseIsoDateTime', () => {
  it('when given a UTC date-time, then it returns that instant', () => {
    expect(parseIsoDateTime('2025-01-31T12:30:00Z')?.toISOString()).toBe('2025-01-31T12:30:00.000Z');
  });

  it('when given an offset, then the instant is converted to UTC', () => {
    expect(parseIsoDateTime('2025-01-31T12:30:00+02:00')?.toISOString()).toBe('2025-01-31T10:30:00.000Z');
  });

  it('when the offset is missing, then the time is read as UTC rather than server time', () => {
    expect(parseIsoDateTime('2025-01-31T12:30')?.toISOString()).toBe('2025-01-31T12:30:00.000Z');
  });

  it('when given a date only, then it is midnight UTC', () => {
    expect(parseIsoDateTime('2025-01-31')?.toISOString()).toBe('2025-01-31T00:00:00.000Z');
  });

  it('when given more than millisecond precision, then it is truncated to milliseconds', () => {
    expect(parseIsoDateTime('2025-01-31T00:00:00.123456Z')?.toISOString()).toBe('2025-01-31T00:00:00.123Z');
    // The commands take any number of digits (RFC 3339); such a stored bound must still be read.
    expect(parseIsoDateTime('2025-01-31T00:00:00.123456789012+01:00')?.toISOString()).toBe(
      '2025-01-30T23:00:00.123Z',
    );
  });

  it('when asked to round up, then digits past the millisecond make the next millisecond unless all are 0', () => {
    const up = (value: string) => parseIsoDateTime(value, { roundUp: true })?.toISOString();
    expect(up('2025-01-31T00:00:00.123456Z')).toBe('2025-01-31T00:00:00.124Z');
    expect(up('2025-01-31T00:00:00.999000001Z')).toBe('2025-01-31T00:00:01.000Z');
    expect(up('2025-01-31T00:00:00.123000Z')).toBe('2025-01-31T00:00:00.123Z');
    expect(up('2025-01-31T00:00:00.1Z')).toBe('2025-01-31T00:00:00.100Z');
    expect(up('2025-01-31')).toBe('2025-01-31T00:00:00.000Z');
  });

  it.each(['2025-02-30', '2025-13-01', '2025-01-01T24:00:00Z', 'tomorrow', '1700000000000', '', '2025-1-1'])(
    'when given %p, then it is rejected',
    (value) => {
      expect(parseIsoDateTime(value)).toBeUndefined();
    },
  );

  it('when given 29 February of a leap year, then it is accepted', () => {
    expect(parseIsoDateTime('2024-02-29')).toBeDefined();
    expect(parseIsoDateTime('2025-02-29')).toBeUndefined();
  });
});

describe('parseComponentConditionsParam', () => {
  it('when the parameter is absent, then the defaults apply', () => {
    expect(parseComponentConditionsParam(undefined, defaults)).toEqual({ dateTime: now, brand: 'ch' });
  });

  it('when the parameter is blank, then the defaults apply', () => {
    expect(parseComponentConditionsParam('  ', defaults)).toEqual({ dateTime: now, brand: 'ch' });
  });

  it('when no default brand exists and none is asked for, then the context has no brand key', () => {
    const ctx = parseComponentConditionsParam('{}', { now });
    expect(ctx).toEqual({ dateTime: now });
    expect('brand' in ctx).toBe(false);
  });

  it('when dateTime and brand are given, then they override the defaults', () => {
    expect(
      parseComponentConditionsParam('{"dateTime":"2030-01-01T00:00:00Z","brand":"de"}', defaults),
    ).toEqual({
      dateTime: new Date('2030-01-01T00:00:00Z'),
      brand: 'de',
    });
  });

  it('when only the brand is given, then the dateTime is now', () => {
    expect(parseComponentConditionsParam('{"brand":"de"}', defaults)).toEqual({ dateTime: now, brand: 'de' });
  });

  it('when the JSON is invalid, then a 400 names the parameter', () => {
    const details = validationDetails(() => parseComponentConditionsParam('{dateTime:', defaults));
    expect(details.name).toBe('ValidationError');
    expect(details.componentConditions).toMatch(/valid JSON/);
  });

  it.each(['[]', '"2025-01-01"', '42', 'null', 'true'])(
    'when the JSON is %s, then it is rejected as not an object',
    (raw) => {
      const details = validationDetails(() => parseComponentConditionsParam(raw, defaults));
      expect(details.componentConditions).toMatch(/must be an object/);
    },
  );

  it('when dateTime is not an ISO date, then the message says so', () => {
    const details = validationDetails(() =>
      parseComponentConditionsParam('{"dateTime":"next monday"}', defaults),
    );
    expect(details.componentConditions).toMatch(/dateTime must be an ISO 8601/);
  });

  it('when dateTime is a number, then it is rejected', () => {
    const details = validationDetails(() =>
      parseComponentConditionsParam('{"dateTime":1700000000000}', defaults),
    );
    expect(details.componentConditions).toMatch(/dateTime/);
  });

  it.each(['{"brand":42}', '{"brand":""}', '{"brand":null}', '{"brand":["ch"]}'])(
    'when the brand is %s, then it is rejected',
    (raw) => {
      const details = validationDetails(() => parseComponentConditionsParam(raw, defaults));
      expect(details.componentConditions).toMatch(/brand must be a non-empty string/);
    },
  );

  it('when unknown keys are present, then all of them are named', () => {
    const details = validationDetails(() =>
      parseComponentConditionsParam('{"dateTime":"2025-01-01","brands":["ch"],"foo":1}', defaults),
    );
    expect(details.componentConditions).toBe(
      "unknown keys 'brands', 'foo'; allowed keys are dateTime and brand",
    );
  });

  it('when a different parameter name is given, then the error is keyed by it', () => {
    const details = validationDetails(() =>
      parseComponentConditionsParam('nope', defaults, 'body.componentConditions'),
    );
    expect(Object.keys(details).sort()).toEqual(['body.componentConditions', 'name']);
  });
});

describe('parseComponentConditionsObject', () => {
  it('when the composition body carries an object, then it is validated like the query parameter', () => {
    expect(parseComponentConditionsObject({ dateTime: '2030-01-01' }, defaults)).toEqual({
      dateTime: new Date('2030-01-01T00:00:00Z'),
      brand: 'ch',
    });
    const details = validationDetails(() =>
      parseComponentConditionsObject('x', defaults, 'componentConditions'),
    );
    expect(details.componentConditions).toMatch(/must be an object/);
  });

  it('when the object is absent, then the defaults apply', () => {
    expect(parseComponentConditionsObject(undefined, defaults)).toEqual({ dateTime: now, brand: 'ch' });
  });
});

describe('resolveConditions', () => {
  it('when ignoreComponentConditions is true, then no conditions apply', () => {
    expect(resolveConditions({ ignoreComponentConditions: true }, defaults)).toBeNull();
  });

  it('when ignoring, then an invalid componentConditions value is still a 400, as when not ignored', () => {
    // Supplement §6: an invalid componentConditions is a 400; ignoring the conditions does not excuse it.
    const ignored = validationDetails(() =>
      resolveConditions({ ignoreComponentConditions: true, componentConditions: '{bad' }, defaults),
    );
    const applied = validationDetails(() => resolveConditions({ componentConditions: '{bad' }, defaults));
    expect(ignored.componentConditions).toMatch(/must be valid JSON/);
    expect(ignored).toEqual(applied);
  });

  it('when ignoring, then a valid componentConditions value is accepted and no conditions apply', () => {
    expect(
      resolveConditions({ ignoreComponentConditions: true, componentConditions: '{"brand":"de"}' }, defaults),
    ).toBeNull();
  });

  it('when nothing is asked, then the defaults apply', () => {
    expect(resolveConditions({}, defaults)).toEqual({ dateTime: now, brand: 'ch' });
    expect(resolveConditions({ ignoreComponentConditions: false }, defaults)).toEqual({
      dateTime: now,
      brand: 'ch',
    });
  });

  it('when componentConditions is given, then it is parsed', () => {
    expect(resolveConditions({ componentConditions: '{"brand":"de"}' }, defaults)).toEqual({
      dateTime: now,
      brand: 'de',
    });
  });

  it('when componentConditions is invalid and not ignored, then it is a 400', () => {
    validationDetails(() => resolveConditions({ componentConditions: '[' }, defaults));
  });
});

describe('satisfiesConditions', () => {
  const at = (iso: string, brand?: string): ConditionContext => ({
    dateTime: new Date(iso),
    ...(brand ? { brand } : {}),
  });

  it('when a component has no conditions, then it is kept', () => {
    expect(satisfiesConditions(undefined, at('2025-01-01T00:00:00Z'))).toBe(true);
    expect(satisfiesConditions({}, at('2025-01-01T00:00:00Z'))).toBe(true);
  });

  it('when the time equals an inclusive bound, then it holds; an exclusive one does not', () => {
    const edge = '2025-01-01T00:00:00.000Z';
    expect(satisfiesConditions({ dateTime: { gte: edge } }, at(edge))).toBe(true);
    expect(satisfiesConditions({ dateTime: { lte: edge } }, at(edge))).toBe(true);
    expect(satisfiesConditions({ dateTime: { gt: edge } }, at(edge))).toBe(false);
    expect(satisfiesConditions({ dateTime: { lt: edge } }, at(edge))).toBe(false);
  });

  it('when the time lies inside a gte/lt window, then it holds; outside, it does not', () => {
    const window = { dateTime: { gte: '2025-01-01T00:00:00Z', lt: '2025-02-01T00:00:00Z' } };
    expect(satisfiesConditions(window, at('2025-01-15T00:00:00Z'))).toBe(true);
    expect(satisfiesConditions(window, at('2024-12-31T23:59:59Z'))).toBe(false);
    expect(satisfiesConditions(window, at('2025-02-01T00:00:00Z'))).toBe(false);
  });

  it('when a bound carries an offset, then it is compared as an instant', () => {
    const conditions = { dateTime: { gte: '2025-01-01T02:00:00+02:00' } };
    expect(satisfiesConditions(conditions, at('2025-01-01T00:00:00Z'))).toBe(true);
    expect(satisfiesConditions(conditions, at('2024-12-31T23:59:59Z'))).toBe(false);
  });

  it('when a stored bound cannot be read, then the component is hidden', () => {
    expect(satisfiesConditions({ dateTime: { gte: 'soon' } }, at('2025-01-01T00:00:00Z'))).toBe(false);
  });

  it('when stored conditions have another shape than a command writes (an import stores content as sent), then the component is hidden, as with an unreadable bound', () => {
    const now = at('2025-01-01T00:00:00Z', 'ch');
    for (const conditions of [
      'x',
      ['x'],
      5,
      true,
      { dateTime: '2099-01-01T00:00:00Z' },
      { dateTime: ['2099-01-01T00:00:00Z'] },
      { dateTime: 4070908800000 },
      { brands: 'ch' },
      { brands: { ch: true } },
      { dateTime: { gte: '2024-01-01T00:00:00Z' }, brands: 'ch' },
    ]) {
      expect([conditions, satisfiesConditions(conditions as ComponentConditions, now)]).toEqual([
        conditions,
        false,
      ]);
    }
    // null is no condition, as absent is.
    expect(satisfiesConditions(null as unknown as ComponentConditions, now)).toBe(true);
    expect(satisfiesConditions({ dateTime: null, brands: null } as unknown as ComponentConditions, now)).toBe(
      true,
    );
  });

  it('when brands are set, then only a listed brand passes and no brand fails', () => {
    const conditions = { brands: ['ch', 'de'] };
    expect(satisfiesConditions(conditions, at('2025-01-01T00:00:00Z', 'de'))).toBe(true);
    expect(satisfiesConditions(conditions, at('2025-01-01T00:00:00Z', 'at'))).toBe(false);
    expect(satisfiesConditions(conditions, at('2025-01-01T00:00:00Z'))).toBe(false);
  });

  it('when the brand list is empty, then it restricts nothing', () => {
    expect(satisfiesConditions({ brands: [] }, at('2025-01-01T00:00:00Z'))).toBe(true);
  });

  it('when both conditions are set, then both must hold', () => {
    const conditions = { dateTime: { gte: '2025-01-01T00:00:00Z' }, brands: ['ch'] };
    expect(satisfiesConditions(conditions, at('2025-06-01T00:00:00Z', 'ch'))).toBe(true);
    expect(satisfiesConditions(conditions, at('2024-06-01T00:00:00Z', 'ch'))).toBe(false);
    expect(satisfiesConditions(conditions, at('2025-06-01T00:00:00Z', 'de'))).toBe(false);
  });
});

describe('applyComponentConditions', () => {
  const tree = (): Content => [
    {
      id: 'doc-container',
      identifier: 'living-times.article-container',
      containers: {
        main: [
          { id: 'doc-always', identifier: 'living-times.paragraph', content: { text: 'always' } },
          {
            id: 'doc-future',
            identifier: 'living-times.paragraph',
            content: { text: 'later' },
            conditions: { dateTime: { gte: '2026-01-01T00:00:00Z' } },
          },
          {
            id: 'doc-swiss',
            identifier: 'living-times.bullet-list',
            conditions: { brands: ['ch'] },
            containers: {
              list: [
                { id: 'doc-swiss-item', identifier: 'living-times.bullet-list-item', content: { text: 'x' } },
              ],
            },
          },
        ],
        sidebar: [],
      },
    },
    {
      id: 'doc-expired',
      identifier: 'living-times.whole',
      conditions: { dateTime: { lt: '2025-01-01T00:00:00Z' } },
      containers: { 'column-one': [{ id: 'doc-expired-child', identifier: 'living-times.paragraph' }] },
    },
  ];

  it('when conditions fail, then the component and everything inside it is dropped', () => {
    const result = applyComponentConditions(tree(), { dateTime: now, brand: 'de' });
    expect(ids(result)).toEqual(['doc-container', 'doc-always']);
  });

  it('when every condition holds, then the whole tree stays with its stored conditions', () => {
    const result = applyComponentConditions(tree(), {
      dateTime: new Date('2026-06-01T00:00:00Z'),
      brand: 'ch',
    });
    expect(ids(result)).toEqual(['doc-container', 'doc-always', 'doc-future', 'doc-swiss', 'doc-swiss-item']);
    expect(findComponent(result, 'doc-future')?.conditions).toEqual({
      dateTime: { gte: '2026-01-01T00:00:00Z' },
    });
  });

  it('when no brand is asked for, then brand-restricted components are dropped', () => {
    const result = applyComponentConditions(tree(), { dateTime: new Date('2026-06-01T00:00:00Z') });
    expect(ids(result)).not.toContain('doc-swiss');
    expect(ids(result)).not.toContain('doc-swiss-item');
  });

  it('when a container empties, then the container key stays as an empty array', () => {
    const result = applyComponentConditions(
      [
        {
          id: 'doc-parent',
          containers: { main: [{ id: 'doc-gone', conditions: { brands: ['ch'] } }] },
        },
      ],
      { dateTime: now },
    );
    expect(result).toEqual([{ id: 'doc-parent', containers: { main: [] } }]);
  });

  it('when applied, then the input is untouched and only what held a dropped component is new', () => {
    const input = tree();
    const snapshot = structuredClone(input);
    const result = applyComponentConditions(input, { dateTime: now, brand: 'de' });
    expect(input).toEqual(snapshot);
    expect(ids(result)).toEqual(['doc-container', 'doc-always']);

    // The container held dropped components: it and its main list are new, the rest is the input's own.
    const [container] = result;
    expect(container).not.toBe(input[0]);
    expect(container?.containers?.main).not.toBe(input[0]?.containers?.main);
    expect(container?.containers?.sidebar).toBe(input[0]?.containers?.sidebar);
    expect(findComponent(result, 'doc-always')).toBe(findComponent(input, 'doc-always'));
  });

  it('when every condition holds, then the content comes back as it is, not copied', () => {
    // The container alone: the expired component beside it would be dropped.
    const input = tree().slice(0, 1);
    const result = applyComponentConditions(input, {
      dateTime: new Date('2026-06-01T00:00:00Z'),
      brand: 'ch',
    });
    expect(result).toBe(input);
    expect(ids(result)).toEqual(['doc-container', 'doc-always', 'doc-future', 'doc-swiss', 'doc-swiss-item']);
  });

  it('when the content is empty, then the result is an empty array', () => {
    expect(applyComponentConditions([], { dateTime: now })).toEqual([]);
  });

  it('when applied to a real article without conditions, then nothing changes', () => {
    const content = loadContent('articles/321.json');
    expect(applyComponentConditions(content, { dateTime: now, brand: 'ch' })).toEqual(content);
  });

  it('when a real article gains conditions, then exactly the affected subtrees disappear', () => {
    const content = loadContent('articles/323.json');
    const all = ids(content);
    const [container] = content;
    const main = container?.containers?.main ?? [];
    const bulletList = main.find((component) => component.identifier === 'living-times.bullet-list');
    expect(bulletList).toBeDefined();
    bulletList!.conditions = { dateTime: { gte: '2030-01-01T00:00:00Z' } };
    const nestedIds = ids([bulletList!]);
    expect(nestedIds.length).toBeGreaterThan(1);

    const result = applyComponentConditions(content, { dateTime: now });
    expect(ids(result)).toEqual(all.filter((id) => !nestedIds.includes(id)));
    expect(ids(applyComponentConditions(content, { dateTime: new Date('2031-01-01T00:00:00Z') }))).toEqual(
      all,
    );
  });

  it('when a real article carries date and brand conditions, then each reader sees the components meant for them', () => {
    const content = loadContent('articles/329.json');
    const conditioned = [...walkComponents(content)].filter((component) => component.conditions);
    const [signUp, update, radio] = conditioned.map((component) => component.id);
    expect(conditioned.map((component) => component.conditions)).toEqual([
      { dateTime: { lt: '2025-06-01T00:00:00Z' } },
      { dateTime: { gte: '2025-09-01T00:00:00Z' } },
      { brands: ['harbour-radio'] },
    ]);
    const all = ids(content);
    const seenBy = (dateTime: string, brand?: string) =>
      ids(applyComponentConditions(content, { dateTime: new Date(dateTime), ...(brand ? { brand } : {}) }));

    // In May the sign-up notice shows; the September update and the radio brand's promotion do not.
    expect(seenBy('2025-05-25T08:00:00Z', 'living-times')).toEqual(
      all.filter((id) => id !== update && id !== radio),
    );
    // In September, on the radio's site, the notice has expired and the other two show.
    expect(seenBy('2025-09-06T08:00:00Z', 'harbour-radio')).toEqual(all.filter((id) => id !== signUp));
    // Exactly at the notice's exclusive end it is gone; without a brand the brand-restricted one is too.
    expect(seenBy('2025-06-01T00:00:00Z')).toEqual(
      all.filter((id) => id !== signUp && id !== update && id !== radio),
    );
  });
});

describe('content stored as sent (imports up to 2025-11)', () => {
  const junk = [
    null,
    5,
    { id: 'a', component: 'p', conditions: { brands: ['de'] } },
    { id: 'b', component: 'box', containers: 'no' },
    {
      id: 'c',
      component: 'box',
      containers: { main: [null, 'x', { id: 'd', conditions: { brands: ['de'] } }], side: { x: 1 } },
    },
  ] as unknown as Content;

  it('when items are no components and containers no lists, then conditions filter the components and keep the rest as stored', () => {
    expect(applyComponentConditions(junk, { dateTime: new Date(), brand: 'ch' })).toEqual([
      null,
      5,
      { id: 'b', component: 'box', containers: 'no' },
      { id: 'c', component: 'box', containers: { main: [null, 'x'], side: { x: 1 } } },
    ]);
  });

  it('when a component inside a container has conditions of another shape, then it and its containers are dropped, the rest stays', () => {
    const content = [
      {
        id: 'box',
        component: 'container',
        containers: {
          main: [
            { id: 'later', component: 'p', conditions: { dateTime: '2099-01-01T00:00:00Z' } },
            { id: 'kept', component: 'p' },
          ],
        },
      },
      { id: 'one-brand', component: 'p', conditions: { brands: 'de' }, containers: { main: [{ id: 'x' }] } },
    ] as unknown as Content;
    expect(applyComponentConditions(content, { dateTime: new Date(), brand: 'ch' })).toEqual([
      { id: 'box', component: 'container', containers: { main: [{ id: 'kept', component: 'p' }] } },
    ]);
  });

  it('when the tree is walked, then only the components are visited', () => {
    expect([...walkComponents(junk)].map((component) => component.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(findComponent(junk, 'd')).toMatchObject({ id: 'd' });
  });
});
