import {
  applyCommands,
  embargoBlocksPublish,
  referencedDocumentIds,
  referencedMediaIds,
  setsProjectValues,
  storedReferenceIds,
} from '../../src/domain/document-commands/apply';
import type { CommandOutcome, DraftState } from '../../src/domain/document-commands/apply';
import type { Command, CommandRequest } from '../../src/domain/document-commands/schema';
import { findComponent } from '../../src/domain/content';
import type { Design } from '../../src/domain/design';
import { AppError } from '../../src/domain/errors';
import { DOCUMENT_LIMITS } from '../../src/domain/json-limits';
import { nestedArrays } from '../helpers/json';

const NOW = new Date('2026-01-15T12:00:00Z');
const FUTURE = '2026-02-01T00:00:00Z';
const PAST = '2026-01-01T00:00:00Z';

const TEASER = {
  service: 'teaser',
  params: { article: { $ref: 'document', reference: { id: '12' } } },
  overrides: [
    { id: 'doc-9', content: { title: 'T' }, originalSnapshot: { title: 'O' }, contentProperties: ['title'] },
  ],
};

function buildState(overrides: Partial<DraftState> = {}): DraftState {
  return {
    version: 3,
    metadata: { title: 'Old title', category: { id: 'c1', label: 'News' } },
    content: [
      {
        id: 'doc-1',
        component: 'head',
        content: {
          title: 'Hello',
          link: { href: 'https://a.example', target: '_blank' },
          teaser: structuredClone(TEASER),
          layout: { width: 'full', color: 'blue' },
        },
        styles: { color: 'blue' },
        conditions: { brands: ['ch'] },
      },
      {
        id: 'doc-2',
        component: 'container',
        containers: { main: [{ id: 'doc-3', component: 'p', content: { text: 'nested' } }, { id: 'doc-4' }] },
      },
    ],
    isPublished: false,
    hasUnpublishedChanges: true,
    embargo: null,
    publishSchedule: null,
    unpublishSchedule: null,
    ...overrides,
  };
}

function run(
  commands: Command[],
  state: DraftState = buildState(),
  extra: Partial<CommandRequest> = {},
): CommandOutcome {
  return applyCommands(state, { commands, ...extra }, NOW);
}

function errorOf(action: () => unknown): AppError {
  try {
    action();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

const failed = (index: number, why: string) => ({
  status: 400,
  details: {
    name: 'ValidationError',
    message: `Command at index ${index} failed: ${why}`,
    commandIndex: index,
  },
});
const outdated = (index: number) => ({
  status: 409,
  details: { name: 'Conflict', message: 'Cannot update outdated value', commandIndex: index },
});

const component = (outcome: CommandOutcome, id: string) => findComponent(outcome.content, id);

/** The kind of directive each directive command writes, as its 400 names it. */
const KIND: Record<string, string> = {
  setEditableDirective: 'editable',
  setLinkDirective: 'link',
  setStyleDirective: 'style',
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('applyCommands: version and preconditions', () => {
  it('when the version matches, then the commands run', () => {
    expect(run([{ operation: 'publish' }], buildState(), { version: 3 }).effects).toEqual([
      { type: 'publish' },
    ]);
  });

  it('when the version differs, then 409 with expectedVersion and currentVersion', () => {
    const error = errorOf(() => run([{ operation: 'publish' }], buildState(), { version: 2 }));
    expect(error).toMatchObject({
      status: 409,
      details: {
        name: 'Conflict',
        message: 'The document you tried to update is outdated',
        expectedVersion: 2,
        currentVersion: 3,
      },
    });
  });

  it('when both the version and a precondition fail, then the version is reported', () => {
    const error = errorOf(() =>
      run([{ operation: 'publish' }], buildState(), {
        version: 4,
        preconditions: [{ type: 'isPublished', value: true }],
      }),
    );
    expect(error.details.message).toBe('The document you tried to update is outdated');
  });

  it.each([
    ['isPublished', true, { isPublished: false }],
    ['isPublished', false, { isPublished: true }],
    ['isPublishedAndHasNoChanges', true, { isPublished: true, hasUnpublishedChanges: true }],
    ['isPublishedAndHasNoChanges', true, { isPublished: false, hasUnpublishedChanges: false }],
    ['isPublishedAndHasNoChanges', false, { isPublished: true, hasUnpublishedChanges: false }],
  ] as const)(
    'when %s must be %s and the document is %j, then 409 names the precondition',
    (type, value, state) => {
      const error = errorOf(() =>
        run([{ operation: 'publish' }], buildState(state), { preconditions: [{ type, value }] }),
      );
      expect(error.status).toBe(409);
      expect(error.details).toEqual({ name: 'Conflict', message: `Precondition failed: '${type}'` });
    },
  );

  it.each([
    ['isPublished', true, { isPublished: true }],
    ['isPublished', false, { isPublished: false }],
    ['isPublishedAndHasNoChanges', true, { isPublished: true, hasUnpublishedChanges: false }],
    ['isPublishedAndHasNoChanges', false, { isPublished: true, hasUnpublishedChanges: true }],
  ] as const)('when %s must be %s and the document is %j, then the commands run', (type, value, state) => {
    const outcome = run([{ operation: 'publish' }], buildState(state), { preconditions: [{ type, value }] });
    expect(outcome.effects).toEqual([{ type: 'publish' }]);
  });

  it('when a precondition fails and a command would fail too, then the precondition is reported', () => {
    const error = errorOf(() =>
      run([{ operation: 'removeEmbargo' }], buildState(), {
        preconditions: [{ type: 'isPublished', value: true }],
      }),
    );
    expect(error.details.message).toBe("Precondition failed: 'isPublished'");
  });
});

describe('applyCommands: setMetadataProperty', () => {
  it('when a property is set, then the metadata has the new value and the draft changed', () => {
    const outcome = run([{ operation: 'setMetadataProperty', propertyName: 'description', value: 'New' }]);
    expect(outcome.metadata).toEqual({
      title: 'Old title',
      category: { id: 'c1', label: 'News' },
      description: 'New',
    });
    expect(outcome.draftChanged).toBe(true);
  });

  it('when the value is null, then the property is removed', () => {
    const outcome = run([{ operation: 'setMetadataProperty', propertyName: 'title', value: null }]);
    expect(outcome.metadata).toEqual({ category: { id: 'c1', label: 'News' } });
  });

  it('when oldValue deep-equals the current value in another key order, then the value is set', () => {
    const outcome = run([
      {
        operation: 'setMetadataProperty',
        propertyName: 'category',
        value: { id: 'c2' },
        oldValue: { label: 'News', id: 'c1' },
      },
    ]);
    expect(outcome.metadata.category).toEqual({ id: 'c2' });
  });

  it('when oldValue is null and the property does not exist, then the value is set', () => {
    const outcome = run([
      { operation: 'setMetadataProperty', propertyName: 'toString', value: 'x', oldValue: null },
    ]);
    expect(Object.getOwnPropertyDescriptor(outcome.metadata, 'toString')?.value).toBe('x');
  });

  it('when oldValue differs from the current value, then 409 with the commandIndex', () => {
    const error = errorOf(() =>
      run([
        { operation: 'publish' },
        { operation: 'setMetadataProperty', propertyName: 'title', value: 'New', oldValue: 'Older title' },
      ]),
    );
    expect(error).toMatchObject(outdated(1));
    expect(error.details).toEqual(outdated(1).details);
  });

  it('when oldValue is null but the property exists, then 409', () => {
    const error = errorOf(() =>
      run([{ operation: 'setMetadataProperty', propertyName: 'title', value: 'New', oldValue: null }]),
    );
    expect(error).toMatchObject(outdated(0));
  });

  it('when the value equals the current value, then the draft did not change', () => {
    const outcome = run([{ operation: 'setMetadataProperty', propertyName: 'title', value: 'Old title' }]);
    expect(outcome.draftChanged).toBe(false);
  });
});

describe('applyCommands: setEditableDirective', () => {
  it('when the component is nested, then its directive is set', () => {
    const outcome = run([
      { operation: 'setEditableDirective', componentId: 'doc-3', directiveName: 'text', value: 'New' },
    ]);
    expect(component(outcome, 'doc-3')?.content).toEqual({ text: 'New' });
    expect(outcome.draftChanged).toBe(true);
  });

  it('when the component has no content yet, then the content is created', () => {
    const outcome = run([
      { operation: 'setEditableDirective', componentId: 'doc-4', directiveName: 'text', value: 'A' },
    ]);
    expect(component(outcome, 'doc-4')?.content).toEqual({ text: 'A' });
  });

  it('when the component does not exist, then 400 names the command', () => {
    const error = errorOf(() =>
      run([{ operation: 'setEditableDirective', componentId: 'doc-404', directiveName: 'text', value: 'A' }]),
    );
    expect(error.status).toBe(400);
    expect(error.details).toEqual(failed(0, "component 'doc-404' does not exist").details);
  });

  it('when the directive holds something other than text, then 400', () => {
    const error = errorOf(() =>
      run([{ operation: 'setEditableDirective', componentId: 'doc-1', directiveName: 'link', value: 'A' }]),
    );
    expect(error).toMatchObject(failed(0, "directive 'link' is not an editable directive"));
  });
});

describe('applyCommands: removeComponent', () => {
  it('when the component is at the top, then it is removed', () => {
    const outcome = run([{ operation: 'removeComponent', componentId: 'doc-1' }]);
    expect(outcome.content.map((c) => c.id)).toEqual(['doc-2']);
    expect(outcome.draftChanged).toBe(true);
  });

  it('when the component is nested, then it is removed from its container', () => {
    const outcome = run([{ operation: 'removeComponent', componentId: 'doc-3' }]);
    expect(component(outcome, 'doc-2')?.containers).toEqual({ main: [{ id: 'doc-4' }] });
  });

  it('when the component does not exist, then 400', () => {
    const error = errorOf(() => run([{ operation: 'removeComponent', componentId: 'doc-404' }]));
    expect(error).toMatchObject(failed(0, "component 'doc-404' does not exist"));
  });

  it('when a component is removed twice, then the second command fails', () => {
    const remove: Command = { operation: 'removeComponent', componentId: 'doc-3' };
    expect(errorOf(() => run([remove, remove]))).toMatchObject(failed(1, "component 'doc-3' does not exist"));
  });
});

describe('applyCommands: setComponentCondition', () => {
  it('when a dateTime condition is set, then it sits beside the existing brands', () => {
    const value = { gte: '2026-01-01T00:00:00Z', lt: '2026-02-01T00:00:00Z' };
    const outcome = run([
      { operation: 'setComponentCondition', componentId: 'doc-1', conditionName: 'dateTime', value },
    ]);
    expect(component(outcome, 'doc-1')?.conditions).toEqual({ brands: ['ch'], dateTime: value });
  });

  it('when brands are set with a matching oldValue, then they are replaced', () => {
    const outcome = run([
      {
        operation: 'setComponentCondition',
        componentId: 'doc-1',
        conditionName: 'brands',
        value: ['de', 'at'],
        oldValue: ['ch'],
      },
    ]);
    expect(component(outcome, 'doc-1')?.conditions).toEqual({ brands: ['de', 'at'] });
  });

  it('when the last condition is set to null, then the component has no conditions', () => {
    const outcome = run([
      { operation: 'setComponentCondition', componentId: 'doc-1', conditionName: 'brands', value: null },
    ]);
    expect(component(outcome, 'doc-1')).not.toHaveProperty('conditions');
  });

  it('when oldValue differs, then 409', () => {
    const error = errorOf(() =>
      run([
        {
          operation: 'setComponentCondition',
          componentId: 'doc-1',
          conditionName: 'brands',
          value: ['de'],
          oldValue: ['de'],
        },
      ]),
    );
    expect(error).toMatchObject(outdated(0));
  });

  it('when the component does not exist, then 400', () => {
    const error = errorOf(() =>
      run([
        { operation: 'setComponentCondition', componentId: 'doc-x', conditionName: 'brands', value: ['de'] },
      ]),
    );
    expect(error).toMatchObject(failed(0, "component 'doc-x' does not exist"));
  });
});

describe('applyCommands: setComponentStyle', () => {
  it('when a style is set, then styles[propertyName] holds it', () => {
    const outcome = run([
      {
        operation: 'setComponentStyle',
        componentId: 'doc-1',
        propertyName: 'color',
        value: 'red',
        oldValue: 'blue',
      },
    ]);
    expect(component(outcome, 'doc-1')?.styles).toEqual({ color: 'red' });
  });

  it('when the component has no styles yet, then they are created', () => {
    const outcome = run([
      { operation: 'setComponentStyle', componentId: 'doc-3', propertyName: 'size', value: 2 },
    ]);
    expect(component(outcome, 'doc-3')?.styles).toEqual({ size: 2 });
  });

  it('when the value is null, then the style is removed', () => {
    const outcome = run([
      { operation: 'setComponentStyle', componentId: 'doc-1', propertyName: 'color', value: null },
    ]);
    expect(component(outcome, 'doc-1')?.styles).toEqual({});
  });

  it('when null removes a style that never existed, then nothing changes', () => {
    const outcome = run([
      { operation: 'setComponentStyle', componentId: 'doc-3', propertyName: 'x', value: null },
    ]);
    expect(component(outcome, 'doc-3')).not.toHaveProperty('styles');
    expect(outcome.draftChanged).toBe(false);
  });

  it('when oldValue differs, then 409', () => {
    const error = errorOf(() =>
      run([
        {
          operation: 'setComponentStyle',
          componentId: 'doc-1',
          propertyName: 'color',
          value: 'red',
          oldValue: 'green',
        },
      ]),
    );
    expect(error).toMatchObject(outdated(0));
  });
});

describe('applyCommands: setStyleDirective', () => {
  it('when a property is set, then the style directive keeps its other properties', () => {
    const outcome = run([
      {
        operation: 'setStyleDirective',
        componentId: 'doc-1',
        directiveName: 'layout',
        propertyName: 'width',
        value: 'half',
        oldValue: 'full',
      },
    ]);
    expect(component(outcome, 'doc-1')?.content?.layout).toEqual({ width: 'half', color: 'blue' });
  });

  it('when the directive is not there yet, then it is created', () => {
    const outcome = run([
      {
        operation: 'setStyleDirective',
        componentId: 'doc-3',
        directiveName: 'box',
        propertyName: 'pad',
        value: 4,
      },
    ]);
    expect(component(outcome, 'doc-3')?.content).toEqual({ text: 'nested', box: { pad: 4 } });
  });

  it('when a property would make the style read as an image, a link or an include, then 400 and nothing applies', () => {
    const style = (propertyName: string, value: unknown): Command =>
      ({
        operation: 'setStyleDirective',
        componentId: 'doc-3',
        directiveName: 'box',
        propertyName,
        value,
      }) as Command;
    for (const [propertyName, value, kind] of [
      ['mediaId', 'img-1', 'an image'],
      ['url', 'https://a.example/i.png', 'an image'],
      ['$ref', 'mediaLibrary', 'an image'],
      ['href', '/x', 'a link'],
      ['service', 'teaser', 'an include'],
    ] as const) {
      const error = errorOf(() =>
        run([
          style('params', { article: { $ref: 'document', reference: { id: '9' } } }),
          style(propertyName, value),
        ]),
      );
      expect(error).toMatchObject(
        failed(1, `property '${propertyName}' would make directive 'box' read as ${kind}, not a style`),
      );
    }
  });

  it('when the value is null, then the property is removed', () => {
    const outcome = run([
      {
        operation: 'setStyleDirective',
        componentId: 'doc-1',
        directiveName: 'layout',
        propertyName: 'color',
        value: null,
      },
    ]);
    expect(component(outcome, 'doc-1')?.content?.layout).toEqual({ width: 'full' });
  });

  it('when oldValue differs from the property, then 409', () => {
    const error = errorOf(() =>
      run([
        {
          operation: 'setStyleDirective',
          componentId: 'doc-1',
          directiveName: 'layout',
          propertyName: 'width',
          value: 'half',
          oldValue: 'half',
        },
      ]),
    );
    expect(error).toMatchObject(outdated(0));
  });

  it.each(['title', 'link', 'teaser'])(
    'when the directive %s is not a style directive, then 400',
    (directiveName) => {
      const error = errorOf(() =>
        run([
          {
            operation: 'setStyleDirective',
            componentId: 'doc-1',
            directiveName,
            propertyName: 'x',
            value: 1,
          },
        ]),
      );
      expect(error).toMatchObject(failed(0, `directive '${directiveName}' is not a style directive`));
    },
  );
});

describe('applyCommands: a set command names a directive of another kind', () => {
  const withImage = () => {
    const state = buildState();
    const head = findComponent(state.content, 'doc-1')!;
    head.content = {
      ...head.content,
      photo: { url: 'https://img.example/a.jpg', width: 10 },
      portrait: { $ref: 'mediaLibrary', reference: { id: 'm-1' } },
      legacyPhoto: { mediaId: 'm-2' },
    };
    return state;
  };

  it.each(['layout', 'photo', 'portrait', 'legacyPhoto'])(
    'when setLinkDirective names %s (a style or an image), then 400 and it is not replaced',
    (directiveName) => {
      const state = withImage();
      const error = errorOf(() =>
        run(
          [{ operation: 'setLinkDirective', componentId: 'doc-1', directiveName, value: { href: '/x' } }],
          state,
        ),
      );
      expect(error).toMatchObject(failed(0, `directive '${directiveName}' is not a link directive`));
    },
  );

  it.each(['photo', 'portrait', 'legacyPhoto'])(
    'when setStyleDirective names the image %s, then 400',
    (directiveName) => {
      const error = errorOf(() =>
        run(
          [
            {
              operation: 'setStyleDirective',
              componentId: 'doc-1',
              directiveName,
              propertyName: 'color',
              value: 'red',
            },
          ],
          withImage(),
        ),
      );
      expect(error).toMatchObject(failed(0, `directive '${directiveName}' is not a style directive`));
    },
  );

  it('when setLinkDirective names an empty record or a link with only a target, then it is set', () => {
    const state = buildState();
    const head = findComponent(state.content, 'doc-1')!;
    head.content = { ...head.content, empty: {}, partial: { target: '_blank' } };
    const outcome = run(
      [
        {
          operation: 'setLinkDirective',
          componentId: 'doc-1',
          directiveName: 'empty',
          value: { href: '/a' },
        },
        {
          operation: 'setLinkDirective',
          componentId: 'doc-1',
          directiveName: 'partial',
          value: { href: '/b' },
        },
      ],
      state,
    );
    expect(component(outcome, 'doc-1')?.content).toMatchObject({
      empty: { href: '/a' },
      partial: { href: '/b' },
    });
  });
});

describe('applyCommands: a reference to a document', () => {
  const link = (id: string): Command => ({
    operation: 'setLinkDirective',
    componentId: 'doc-1',
    directiveName: 'link',
    value: { $ref: 'document', reference: { id }, href: '/x' },
  });

  it("when the linked document is not among the project's, then 400 at its index and nothing applies", () => {
    const state = buildState({ documentTargets: new Set(['7']) });
    const error = errorOf(() => run([link('7'), link('8')], state));
    expect(error).toMatchObject(failed(1, "the link's document '8' is not a document of this project"));
  });

  it("when every linked document is the project's, or the targets are not known, then the links are set", () => {
    const outcome = run([link('7')], buildState({ documentTargets: new Set(['7']) }));
    expect(component(outcome, 'doc-1')?.content?.link).toEqual({
      $ref: 'document',
      reference: { id: '7' },
      href: '/x',
    });
    expect(() => run([link('8')])).not.toThrow();
  });

  const include = (params: Record<string, unknown>): Command =>
    ({
      operation: 'setIncludeDirective',
      componentId: 'doc-1',
      directiveName: 'teaser',
      value: { params },
    }) as Command;
  const metadata = (propertyName: string, value: unknown): Command =>
    ({ operation: 'setMetadataProperty', propertyName, value }) as Command;
  const ref = (id: string | number) => ({ $ref: 'document', reference: { id } });

  it("when an include's params reference a document not among the project's, then 400 naming the param", () => {
    const state = buildState({ documentTargets: new Set(['7']) });
    for (const [params, param, id] of [
      [{ article: ref('8') }, 'article', '8'],
      [{ more: { $ref: 'documents', references: [{ id: '7' }, { id: 9 }] } }, 'more', '9'],
      [{ mediaId: 10 }, 'mediaId', '10'],
    ] as const) {
      const error = errorOf(() => run([include({ ok: ref(7), ...params })], state));
      expect(error).toMatchObject(
        failed(0, `the include's document '${id}' (params.${param}) is not a document of this project`),
      );
    }
    // A list, a media entry or a plain value is no document reference.
    const outcome = run(
      [
        include({
          list: { $ref: 'list', reference: { id: 3 } },
          image: { $ref: 'mediaLibrary', reference: { id: 'x' } },
          size: 'xl',
        }),
      ],
      state,
    );
    expect(component(outcome, 'doc-1')?.content?.teaser).toMatchObject({ params: { size: 'xl' } });
  });

  it("when a metadata value references a document not among the project's, at any depth, then 400 naming the property", () => {
    const state = buildState({ documentTargets: new Set(['7']) });
    for (const value of [
      ref('8'),
      [ref('7'), ref('8')],
      { nested: { deeper: ref(8) } },
      { $ref: 'documents', references: [{ id: '8' }] },
    ]) {
      const error = errorOf(() => run([metadata('title', 'New'), metadata('related', value)], state));
      expect(error).toMatchObject(
        failed(1, "the document '8' (metadata property 'related') is not a document of this project"),
      );
    }
    // The language group, a media entry and plain values reference no document.
    const outcome = run(
      [
        metadata('related', ref('7')),
        metadata('language', { groupId: '8', locale: 'de' }),
        metadata('picture', { $ref: 'mediaLibrary', reference: { id: '8' } }),
        metadata('count', 8),
      ],
      state,
    );
    expect(outcome.metadata.related).toEqual(ref('7'));
  });

  it('when the stored draft references an id already (its document gone or not), then it may be sent again, there or elsewhere; a new id is still checked', () => {
    // The stored teaser's params reference document '12', which is not among the project's (deleted since).
    const state = buildState({ documentTargets: new Set(['7']) });
    const teaser = component(run([include(TEASER.params)], state), 'doc-1')?.content?.teaser;
    expect(teaser).toEqual({ service: 'teaser', params: TEASER.params });
    const outcome = run(
      [
        metadata('title', 'Typo fixed'),
        link('12'),
        metadata('related', [ref(12), ref('7')]),
        include({ article: ref('12'), more: { $ref: 'documents', references: [{ id: '12' }] } }),
      ],
      state,
    );
    expect(outcome.metadata.related).toEqual([ref(12), ref('7')]);
    for (const [command, what] of [
      [link('13'), "the link's document '13'"],
      [metadata('related', [ref('12'), ref('13')]), "the document '13' (metadata property 'related')"],
      [include({ article: ref('12'), mediaId: 13 }), "the include's document '13' (params.mediaId)"],
    ] as const) {
      const error = errorOf(() => run([metadata('title', 'Typo fixed'), command], state));
      expect(error).toMatchObject(failed(1, `${what} is not a document of this project`));
    }
  });

  it('when a request removes a stored reference and sets it again, then it passes: the stored draft is what the request is compared with, not its own earlier commands', () => {
    const state = buildState({ documentTargets: new Set() });
    const outcome = run(
      [include({ size: 'xl' }), metadata('related', ref('12')), include(TEASER.params)],
      state,
    );
    expect(outcome.metadata.related).toEqual(ref('12'));
    expect(component(outcome, 'doc-1')?.content?.teaser).toEqual({
      service: 'teaser',
      params: TEASER.params,
    });
  });

  it('names the ids a request references by links, includes and metadata, in order, once each', () => {
    expect(
      referencedDocumentIds({
        commands: [
          link('7'),
          include({ a: ref('3'), b: { $ref: 'documents', references: [{ id: '7' }, { id: '4' }] } }),
          metadata('related', [ref('5'), ref(3)]),
          { operation: 'publish' },
        ],
      }),
    ).toEqual(['7', '3', '4', '5']);
  });
});

describe('applyCommands: a reference to a media library entry', () => {
  const include = (params: Record<string, unknown>): Command =>
    ({
      operation: 'setIncludeDirective',
      componentId: 'doc-1',
      directiveName: 'teaser',
      value: { params },
    }) as Command;
  const metadata = (propertyName: string, value: unknown): Command =>
    ({ operation: 'setMetadataProperty', propertyName, value }) as Command;
  const media = (id: string) => ({ $ref: 'mediaLibrary', reference: { id } });
  const state = () => buildState({ mediaTargets: new Set(['img-1']) });

  it("when a metadata value references an entry not among the project's, at any depth, then 400 naming the property", () => {
    for (const value of [
      media('img-2'),
      { $ref: 'media', references: [{ id: 'img-1' }, { id: 'img-2' }] },
      { teaser: { image: { mediaId: 'img-2', crop: 'wide' } } },
      [media('img-1'), media('img-2')],
    ]) {
      const error = errorOf(() => run([metadata('title', 'New'), metadata('picture', value)], state()));
      expect(error).toMatchObject(
        failed(
          1,
          "the media entry 'img-2' (metadata property 'picture') is not a media library entry of this project",
        ),
      );
    }
  });

  it("when an include's params reference an entry not among the project's, then 400 naming the param", () => {
    const error = errorOf(() => run([include({ ok: media('img-1'), image: media('img-2') })], state()));
    expect(error).toMatchObject(
      failed(
        0,
        "the include's media entry 'img-2' (params.image) is not a media library entry of this project",
      ),
    );
  });

  it("when every entry is the project's, or the entries are not known, then the values are set", () => {
    const outcome = run(
      [
        metadata('picture', media('img-1')),
        metadata('teaser', { mediaId: 'img-1' }),
        include({ image: media('img-1') }),
      ],
      state(),
    );
    expect(outcome.metadata.picture).toEqual(media('img-1'));
    expect(() => run([metadata('picture', media('img-2'))])).not.toThrow();
  });

  it('when the stored draft references an entry already (removed from the library or not), then it may be sent again, there or elsewhere; a new one, or a stored document id as an entry, is still checked', () => {
    const stored = buildState({
      mediaTargets: new Set(['img-1']),
      metadata: { title: 'Old title', picture: media('img-gone') },
    });
    const outcome = run(
      [
        metadata('title', 'Typo fixed'),
        metadata('picture', media('img-gone')),
        metadata('teaser', { mediaId: 'img-gone' }),
        include({ image: media('img-gone'), other: media('img-1') }),
      ],
      stored,
    );
    expect(outcome.metadata.teaser).toEqual({ mediaId: 'img-gone' });
    for (const [command, what] of [
      [
        metadata('picture', [media('img-gone'), media('img-2')]),
        "the media entry 'img-2' (metadata property 'picture')",
      ],
      // The stored teaser references document '12': as a media entry it is new.
      [include({ image: media('12') }), "the include's media entry '12' (params.image)"],
    ] as const) {
      const error = errorOf(() => run([command], stored));
      expect(error).toMatchObject(failed(0, `${what} is not a media library entry of this project`));
    }
  });

  it('names the entries a request references by metadata and includes, in order, once each; documents apart', () => {
    const request = {
      commands: [
        metadata('picture', media('b')),
        include({ image: media('a'), article: { $ref: 'document', reference: { id: '7' } }, mediaId: 8 }),
        metadata('more', [{ mediaId: 'c' }, media('b')]),
      ],
    };
    expect(referencedMediaIds(request)).toEqual(['b', 'a', 'c']);
    expect(referencedDocumentIds(request)).toEqual(['7', '8']);
  });
});

describe('applyCommands: a directive command on a document whose design is known', () => {
  // The components of buildState as a design declares them; `container` declares no directives.
  const DESIGN: Design = {
    name: 'd',
    version: '1.0.0',
    components: [
      {
        name: 'head',
        directives: [
          { name: 'title', type: 'editable' },
          { name: 'body', type: 'html' },
          { name: 'photo', type: 'image' },
          { name: 'link', type: 'link' },
          { name: 'teaser', type: 'include' },
          { name: 'layout', type: 'style' },
        ],
      },
      { name: 'p', directives: [{ name: 'text', type: 'editable' }] },
      { name: 'container', directives: [], containers: ['main'] },
    ],
  };
  const withDesign = () => buildState({ design: DESIGN });
  const set = (operation: string, directiveName: string, componentId = 'doc-1'): Command => {
    switch (operation) {
      case 'setEditableDirective':
        return { operation, componentId, directiveName, value: 'A' };
      case 'setLinkDirective':
        return { operation, componentId, directiveName, value: { href: '/a' } };
      case 'setStyleDirective':
        return { operation, componentId, directiveName, propertyName: 'color', value: 'red' };
      default:
        throw new Error(operation);
    }
  };

  it.each([
    ['setEditableDirective', 'photo', 'it is an image directive'],
    ['setEditableDirective', 'layout', 'it is a style directive'],
    ['setLinkDirective', 'photo', 'it is an image directive'],
    ['setLinkDirective', 'title', 'it is an editable directive'],
    ['setStyleDirective', 'photo', 'it is an image directive'],
    ['setStyleDirective', 'body', 'it is an html directive'],
  ])(
    'when %s names the %s directive, which is not there yet, then 400 naming its type',
    (operation, name, why) => {
      const state = withDesign();
      delete findComponent(state.content, 'doc-1')!.content![name];
      const error = errorOf(() => run([set(operation, name)], state));
      expect(error).toMatchObject(
        failed(
          0,
          `component 'doc-1' (head) of design d@1.0.0 has no ${KIND[operation]} directive '${name}': ${why}`,
        ),
      );
    },
  );

  it.each(['setEditableDirective', 'setLinkDirective', 'setStyleDirective'])(
    'when %s names a directive the component does not declare, then 400 and nothing applies',
    (operation) => {
      const state = withDesign();
      const error = errorOf(() =>
        run(
          [
            { operation: 'setMetadataProperty', propertyName: 'title', value: 'x' },
            set(operation, 'bogus', 'doc-3'),
          ],
          state,
        ),
      );
      expect(error).toMatchObject(
        failed(
          1,
          `component 'doc-3' (p) of design d@1.0.0 has no ${KIND[operation]} directive 'bogus': it declares text`,
        ),
      );
    },
  );

  it('when a component declares no directives, then the 400 says so', () => {
    const error = errorOf(() => run([set('setEditableDirective', 'text', 'doc-2')], withDesign()));
    expect(error).toMatchObject(
      failed(
        0,
        "component 'doc-2' (container) of design d@1.0.0 has no editable directive 'text': it declares none",
      ),
    );
  });

  it('when each command names a directive of its own type, then they run (an html directive takes text too)', () => {
    const state = withDesign();
    delete findComponent(state.content, 'doc-1')!.content!.layout;
    const outcome = run(
      [
        set('setEditableDirective', 'title'),
        set('setEditableDirective', 'body'),
        set('setLinkDirective', 'link'),
        set('setStyleDirective', 'layout'),
        {
          operation: 'setIncludeDirective',
          componentId: 'doc-1',
          directiveName: 'teaser',
          value: { params: {} },
        },
      ],
      state,
    );
    expect(component(outcome, 'doc-1')?.content).toMatchObject({
      title: 'A',
      body: 'A',
      link: { href: '/a' },
      layout: { color: 'red' },
      teaser: { service: 'teaser', params: {} },
    });
  });

  it('when null clears a directive the design does not declare (content stored before), then it is removed', () => {
    const state = withDesign();
    findComponent(state.content, 'doc-3')!.content!.legacy = { href: '/old' };
    const outcome = run(
      [{ operation: 'setLinkDirective', componentId: 'doc-3', directiveName: 'legacy', value: null }],
      state,
    );
    expect(component(outcome, 'doc-3')?.content).toEqual({ text: 'nested' });
  });

  it('when the component is not in the design or the document has no design, then nothing is checked', () => {
    const state = withDesign();
    findComponent(state.content, 'doc-4')!.component = 'unknown';
    expect(() => run([set('setEditableDirective', 'anything', 'doc-4')], state)).not.toThrow();
    expect(() => run([set('setEditableDirective', 'bogus', 'doc-3')])).not.toThrow();
  });
});

describe('applyCommands: setLinkDirective', () => {
  it('when a link is set, then it replaces the directive', () => {
    const value = { $ref: 'document' as const, reference: { id: '7' }, href: '/seven' };
    const outcome = run([
      {
        operation: 'setLinkDirective',
        componentId: 'doc-1',
        directiveName: 'link',
        value,
        oldValue: { target: '_blank', href: 'https://a.example' },
      },
    ]);
    expect(component(outcome, 'doc-1')?.content?.link).toEqual(value);
  });

  it('when the value is null, then the link is cleared', () => {
    const outcome = run([
      { operation: 'setLinkDirective', componentId: 'doc-1', directiveName: 'link', value: null },
    ]);
    expect(component(outcome, 'doc-1')?.content).not.toHaveProperty('link');
  });

  it('when oldValue differs, then 409', () => {
    const error = errorOf(() =>
      run([
        {
          operation: 'setLinkDirective',
          componentId: 'doc-1',
          directiveName: 'link',
          value: null,
          oldValue: { href: 'https://b.example' },
        },
      ]),
    );
    expect(error).toMatchObject(outdated(0));
  });

  it.each(['title', 'teaser'])('when the directive %s is not a link, then 400', (directiveName) => {
    const error = errorOf(() =>
      run([{ operation: 'setLinkDirective', componentId: 'doc-1', directiveName, value: { href: '/x' } }]),
    );
    expect(error).toMatchObject(failed(0, `directive '${directiveName}' is not a link directive`));
  });
});

describe('applyCommands: setIncludeDirective', () => {
  const params = { article: { $ref: 'document', reference: { id: '13' } } };

  it('when only params are given, then the existing overrides are removed and the service kept', () => {
    const outcome = run([
      { operation: 'setIncludeDirective', componentId: 'doc-1', directiveName: 'teaser', value: { params } },
    ]);
    expect(component(outcome, 'doc-1')?.content?.teaser).toEqual({ service: 'teaser', params });
  });

  it('when params and overrides are given, then both are stored', () => {
    const overrides = [{ id: 'doc-8', content: { a: 1 }, originalSnapshot: {}, contentProperties: ['a'] }];
    const outcome = run([
      {
        operation: 'setIncludeDirective',
        componentId: 'doc-1',
        directiveName: 'teaser',
        value: { params, overrides },
        oldValue: { params: TEASER.params, overrides: TEASER.overrides },
      },
    ]);
    expect(component(outcome, 'doc-1')?.content?.teaser).toEqual({ service: 'teaser', params, overrides });
  });

  it('when oldValue is the stored directive with its service, then it counts as current', () => {
    const outcome = run([
      {
        operation: 'setIncludeDirective',
        componentId: 'doc-1',
        directiveName: 'teaser',
        value: { params },
        oldValue: TEASER,
      },
    ]);
    expect(component(outcome, 'doc-1')?.content?.teaser).toEqual({ service: 'teaser', params });
  });

  it('when oldValue differs, then 409', () => {
    const error = errorOf(() =>
      run([
        {
          operation: 'setIncludeDirective',
          componentId: 'doc-1',
          directiveName: 'teaser',
          value: { params },
          oldValue: { params },
        },
      ]),
    );
    expect(error).toMatchObject(outdated(0));
  });

  it.each([
    ['missing', 'nothing'],
    ['not an include', 'link'],
  ])('when the directive is %s, then 400', (_case, directiveName) => {
    const error = errorOf(() =>
      run([{ operation: 'setIncludeDirective', componentId: 'doc-1', directiveName, value: { params } }]),
    );
    expect(error).toMatchObject(failed(0, `directive '${directiveName}' is not an include directive`));
  });
});

describe('applyCommands: embargo', () => {
  it('when an embargo is set, then it is in place and the draft did not change', () => {
    const outcome = run([{ operation: 'setEmbargo', reason: 'legal', until: FUTURE }]);
    expect(outcome.embargo).toEqual({ reason: 'legal', until: FUTURE });
    expect(outcome.draftChanged).toBe(false);
  });

  it('when an embargo has no until, then it holds until removed and replaces an existing one', () => {
    const outcome = run(
      [{ operation: 'setEmbargo', reason: 'court' }],
      buildState({ embargo: { reason: 'x', until: FUTURE } }),
    );
    expect(outcome.embargo).toEqual({ reason: 'court', until: null });
  });

  it('when until is not in the future, then 400 names commands.<i>.until', () => {
    const error = errorOf(() =>
      run([{ operation: 'publish' }, { operation: 'setEmbargo', reason: 'r', until: PAST }]),
    );
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ name: 'ValidationError', 'commands.1.until': 'must be in the future' });
  });

  it('when an embargo is removed, then there is none', () => {
    const outcome = run(
      [{ operation: 'removeEmbargo' }],
      buildState({ embargo: { reason: 'x', until: null } }),
    );
    expect(outcome.embargo).toBeNull();
  });

  it('when there is no embargo to remove, then 400', () => {
    expect(errorOf(() => run([{ operation: 'removeEmbargo' }]))).toMatchObject(
      failed(0, 'the document has no embargo'),
    );
  });
});

describe('applyCommands: schedules', () => {
  it.each([
    ['addPublishSchedule', 'publishSchedule'],
    ['addUnpublishSchedule', 'unpublishSchedule'],
  ] as const)('when %s has a future date, then %s holds it', (operation, field) => {
    const outcome = run(
      [{ operation, date: FUTURE }],
      buildState({ publishSchedule: PAST, unpublishSchedule: PAST }),
    );
    expect(outcome[field]).toBe(FUTURE);
    expect(outcome.draftChanged).toBe(false);
  });

  it.each([
    ['addPublishSchedule', PAST],
    ['addPublishSchedule', NOW.toISOString()],
    ['addUnpublishSchedule', PAST],
  ] as const)('when %s has the date %s, then 400 names commands.<i>.date', (operation, date) => {
    const error = errorOf(() =>
      run([{ operation: 'publish' }, { operation: 'publish' }, { operation, date }]),
    );
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ name: 'ValidationError', 'commands.2.date': 'must be in the future' });
  });

  it.each([
    ['cancelPublishSchedule', 'publishSchedule'],
    ['cancelUnpublishSchedule', 'unpublishSchedule'],
  ] as const)('when %s runs on a scheduled document, then %s is cleared', (operation, field) => {
    const outcome = run([{ operation }], buildState({ [field]: FUTURE }));
    expect(outcome[field]).toBeNull();
  });

  it.each([
    ['cancelPublishSchedule', 'the document has no publish schedule'],
    ['cancelUnpublishSchedule', 'the document has no unpublish schedule'],
  ] as const)('when %s finds nothing scheduled, then 400', (operation, why) => {
    expect(errorOf(() => run([{ operation }]))).toMatchObject(failed(0, why));
  });
});

describe('applyCommands: publish and unpublish', () => {
  it('when publish runs, then the outcome asks for a publish', () => {
    expect(run([{ operation: 'publish' }]).effects).toEqual([{ type: 'publish' }]);
  });

  it('when unpublish runs on a published document, then the outcome asks for an unpublish', () => {
    expect(run([{ operation: 'unpublish' }], buildState({ isPublished: true })).effects).toEqual([
      { type: 'unpublish' },
    ]);
  });

  it('when unpublish runs on a document that is not published, then 400', () => {
    expect(errorOf(() => run([{ operation: 'unpublish' }]))).toMatchObject(
      failed(0, 'the document is not published'),
    );
  });

  it('when publish comes before unpublish in one batch, then both effects are returned in order', () => {
    expect(run([{ operation: 'publish' }, { operation: 'unpublish' }]).effects).toEqual([
      { type: 'publish' },
      { type: 'unpublish' },
    ]);
  });

  it.each([
    { operation: 'setMetadataProperty', propertyName: 'title', value: 'after' },
    { operation: 'setEditableDirective', componentId: 'doc-3', directiveName: 'text', value: 'after' },
    { operation: 'removeComponent', componentId: 'doc-3' },
    { operation: 'setComponentStyle', componentId: 'doc-1', propertyName: 'color', value: 'red' },
  ] as Command[])(
    'when $operation follows a publish, then 400 naming it (it would be published too)',
    (edit) => {
      const error = errorOf(() =>
        run([
          { operation: 'setMetadataProperty', propertyName: 'title', value: 'before' },
          { operation: 'publish' },
          edit,
        ]),
      );
      expect(error).toMatchObject(
        failed(
          2,
          'it changes the draft after the publish at index 1, which would publish the change too: send it before ' +
            'the publish or in a later request',
        ),
      );
    },
  );

  it('when an edit follows publish and unpublish, or a publish follows edits, then the batch runs', () => {
    const edit: Command = { operation: 'setMetadataProperty', propertyName: 'title', value: 'after' };
    expect(run([{ operation: 'publish' }, { operation: 'unpublish' }, edit]).metadata.title).toBe('after');
    const outcome = run([edit, { operation: 'publish' }, { operation: 'setEmbargo', reason: 'r' }]);
    expect(outcome.effects).toEqual([{ type: 'publish' }]);
  });

  it('when publish runs twice in a batch, then one publish; after an unpublish between them, each', () => {
    const publish: Command = { operation: 'publish' };
    const schedule: Command = { operation: 'addUnpublishSchedule', date: FUTURE };
    expect(run([publish, schedule, publish]).effects).toEqual([{ type: 'publish' }]);
    expect(run([publish, { operation: 'unpublish' }, publish]).effects).toEqual([
      { type: 'publish' },
      { type: 'unpublish' },
      { type: 'publish' },
    ]);
  });

  it('when unpublish runs twice, then the second fails', () => {
    const error = errorOf(() =>
      run([{ operation: 'unpublish' }, { operation: 'unpublish' }], buildState({ isPublished: true })),
    );
    expect(error).toMatchObject(failed(1, 'the document is not published'));
  });
});

describe('applyCommands: batches', () => {
  it('when the third command fails, then the error carries commandIndex 2', () => {
    const error = errorOf(() =>
      run([
        { operation: 'setMetadataProperty', propertyName: 'title', value: 'New' },
        { operation: 'publish' },
        { operation: 'removeComponent', componentId: 'doc-404' },
        { operation: 'removeEmbargo' },
      ]),
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(400);
    expect(error.details).toEqual({
      name: 'ValidationError',
      message: "Command at index 2 failed: component 'doc-404' does not exist",
      commandIndex: 2,
    });
  });

  it('when commands build on each other, then each sees the result of the ones before', () => {
    const outcome = run([
      { operation: 'setMetadataProperty', propertyName: 'title', value: 'A' },
      { operation: 'setMetadataProperty', propertyName: 'title', value: 'B', oldValue: 'A' },
      { operation: 'setEmbargo', reason: 'r' },
      { operation: 'removeEmbargo' },
    ]);
    expect(outcome.metadata.title).toBe('B');
    expect(outcome.embargo).toBeNull();
  });

  it('when every kind of command runs, then neither the state nor the request is mutated', () => {
    const state = deepFreeze(
      buildState({ isPublished: true, embargo: { reason: 'x', until: null }, publishSchedule: FUTURE }),
    );
    const request: CommandRequest = {
      commands: [
        { operation: 'setMetadataProperty', propertyName: 'category', value: { id: 'c9' } },
        { operation: 'setEditableDirective', componentId: 'doc-3', directiveName: 'text', value: 'x' },
        { operation: 'setComponentCondition', componentId: 'doc-1', conditionName: 'brands', value: ['de'] },
        { operation: 'setComponentStyle', componentId: 'doc-1', propertyName: 'color', value: 'red' },
        {
          operation: 'setStyleDirective',
          componentId: 'doc-1',
          directiveName: 'layout',
          propertyName: 'w',
          value: 1,
        },
        { operation: 'setLinkDirective', componentId: 'doc-1', directiveName: 'link', value: { href: '/x' } },
        {
          operation: 'setIncludeDirective',
          componentId: 'doc-1',
          directiveName: 'teaser',
          value: { params: { a: { b: 1 } } },
        },
        { operation: 'removeComponent', componentId: 'doc-4' },
        { operation: 'removeEmbargo' },
        { operation: 'cancelPublishSchedule' },
        { operation: 'addUnpublishSchedule', date: FUTURE },
        { operation: 'unpublish' },
      ],
      version: 3,
    };
    deepFreeze(request);
    const stateBefore = structuredClone(state);
    const requestBefore = structuredClone(request);

    const outcome = applyCommands(state, request, NOW);

    expect(state).toEqual(stateBefore);
    expect(request).toEqual(requestBefore);
    expect(outcome.draftChanged).toBe(true);
    expect(outcome.effects).toEqual([{ type: 'unpublish' }]);
    // The outcome shares nothing with the inputs, so the caller may change it freely.
    const teaser = component(outcome, 'doc-1')?.content?.teaser as { params: { a: { b: number } } };
    teaser.params.a.b = 2;
    outcome.metadata.category = null;
    expect(request).toEqual(requestBefore);
    expect(state).toEqual(stateBefore);
  });

  it('when a batch fails halfway, then the state passed in is untouched', () => {
    const state = buildState();
    const before = structuredClone(state);
    errorOf(() =>
      run(
        [
          { operation: 'removeComponent', componentId: 'doc-1' },
          { operation: 'removeComponent', componentId: 'doc-1' },
        ],
        state,
      ),
    );
    expect(state).toEqual(before);
  });
});

describe('embargoBlocksPublish', () => {
  it.each([
    ['there is no embargo', null, false],
    ['the embargo has no end', { reason: 'r', until: null }, true],
    ['the embargo ends in the future', { reason: 'r', until: FUTURE }, true],
    ['the embargo ended', { reason: 'r', until: PAST }, false],
    ['the embargo ends right now', { reason: 'r', until: NOW.toISOString() }, false],
  ])('when %s, then it answers %s', (_case, embargo, blocks) => {
    expect(embargoBlocksPublish(embargo, NOW)).toBe(blocks);
  });
});

describe('applyCommands: document limits', () => {
  const deep = nestedArrays;
  const metadataLimit = DOCUMENT_LIMITS.metadata.maxDepth;

  it('when a metadata value would nest the metadata beyond its limit, then the command that set it fails naming the path', () => {
    const error = errorOf(() =>
      run([
        { operation: 'setMetadataProperty', propertyName: 'deep', value: deep(metadataLimit) },
        { operation: 'setMetadataProperty', propertyName: 'title', value: 'fine' },
        { operation: 'publish' },
      ]),
    );
    const path = ['metadata', 'deep', ...Array<number>(metadataLimit - 1).fill(0)].join('.');
    expect(error).toMatchObject({
      status: 400,
      details: {
        name: 'ValidationError',
        message: `Command at index 0 failed: ${path} is nested more than ${metadataLimit} levels deep; objects and arrays in a document's metadata may nest at most ${metadataLimit} levels`,
        commandIndex: 0,
        path,
      },
    });
  });

  it('when a value nests exactly up to the limit, then it is stored', () => {
    const outcome = run([
      { operation: 'setMetadataProperty', propertyName: 'deep', value: deep(metadataLimit - 1) },
    ]);
    expect(outcome.draftChanged).toBe(true);
  });

  it('when a style value inside a nested component is too deep, then the command on that component is blamed', () => {
    const error = errorOf(() =>
      run([
        { operation: 'setComponentStyle', componentId: 'doc-1', propertyName: 'color', value: 'red' },
        { operation: 'setComponentStyle', componentId: 'doc-3', propertyName: 'x', value: deep(70) },
        { operation: 'setEditableDirective', componentId: 'doc-1', directiveName: 'title', value: 'T' },
      ]),
    );
    expect(error.details.commandIndex).toBe(1);
    expect(String(error.details.path)).toMatch(/^content\.1\.containers\.main\.0\.styles\.x\.0\.0/);
  });

  it('when metadata grows beyond its size, then the last command that wrote metadata is blamed', () => {
    const half = 'x'.repeat(DOCUMENT_LIMITS.metadata.maxBytes / 2);
    const error = errorOf(() =>
      run([
        { operation: 'setMetadataProperty', propertyName: 'a', value: half },
        { operation: 'setMetadataProperty', propertyName: 'b', value: half },
        { operation: 'setEditableDirective', componentId: 'doc-1', directiveName: 'title', value: 'T' },
      ]),
    );
    expect(error.details).toMatchObject({ commandIndex: 1, path: 'metadata' });
    expect(error.details.message).toMatch(/^Command at index 1 failed: metadata is 524,\d{3} bytes as JSON/);
  });

  it('when stored content is already beyond the limit, then a request that changes only metadata still runs', () => {
    const state = buildState({ content: [{ id: 'old', content: { x: deep(80) } }] as DraftState['content'] });
    expect(
      run([{ operation: 'setMetadataProperty', propertyName: 'title', value: 'New' }], state).metadata.title,
    ).toBe('New');
  });
});

describe('applyCommands: content stored as sent (imports up to 2025-11)', () => {
  /** Components whose records and containers are not what they should be, and items that are no components. */
  const junk = () =>
    buildState({
      content: [
        null,
        5,
        { id: 'text-content', component: 'p', content: 'abc', styles: [1], conditions: 'c' },
        { id: 'null-content', component: 'p', content: null, styles: null },
        { id: 'box', component: 'container', containers: { main: 'no', side: null, more: { x: 1 } } },
        {
          id: 'list',
          component: 'container',
          containers: { main: [null, 7, { id: 'deep', component: 'p' }] },
        },
      ] as unknown as DraftState['content'],
    });

  it('when a command edits a component whose records are not objects, then they are replaced, not a 500', () => {
    const outcome = run(
      [
        { operation: 'setEditableDirective', componentId: 'null-content', directiveName: 'text', value: 'x' },
        { operation: 'setEditableDirective', componentId: 'text-content', directiveName: 'text', value: 'y' },
        { operation: 'setComponentStyle', componentId: 'null-content', propertyName: 'color', value: 'red' },
        {
          operation: 'setComponentCondition',
          componentId: 'text-content',
          conditionName: 'brands',
          value: ['ch'],
        },
      ],
      junk(),
    );
    expect(findComponent(outcome.content, 'null-content')).toMatchObject({
      content: { text: 'x' },
      styles: { color: 'red' },
    });
    expect(findComponent(outcome.content, 'text-content')).toMatchObject({
      content: { text: 'y' },
      conditions: { brands: ['ch'] },
    });
  });

  it('when a command looks for a component past junk items and containers, then it is found or a 400 names it', () => {
    const outcome = run([{ operation: 'removeComponent', componentId: 'deep' }], junk());
    expect(findComponent(outcome.content, 'deep')).toBeUndefined();
    const missing = errorOf(() => run([{ operation: 'removeComponent', componentId: 'nope' }], junk()));
    expect(missing.status).toBe(400);
    expect(missing.details.message).toContain("component 'nope' does not exist");
  });
});

describe("the project config's brands and categories", () => {
  const projectValues = { brands: ['ch', 'de'], categories: new Set(['news', 'sport']) };
  // buildState: doc-1 carries the brands ['ch'], the metadata the category c1 (no longer in the config).
  const state = () => buildState({ projectValues });
  const brands = (componentId: string, value: string[] | null): Command => ({
    operation: 'setComponentCondition',
    componentId,
    conditionName: 'brands',
    value,
  });
  const category = (value: unknown): Command =>
    ({ operation: 'setMetadataProperty', propertyName: 'category', value }) as Command;

  it('when a brands condition names a handle the project does not have, then 400 naming it and the brands it has', () => {
    expect(
      errorOf(() => run([category({ id: 'news' }), brands('doc-3', ['de', 'dee'])], state())),
    ).toMatchObject(failed(1, "the brand 'dee' is not a brand of this project (it has: ch, de)"));
    const none = buildState({ projectValues: { brands: [], categories: new Set() } });
    expect(errorOf(() => run([brands('doc-3', ['ch'])], none))).toMatchObject(
      failed(0, "the brand 'ch' is not a brand of this project (it has: none)"),
    );
    const long = 'x'.repeat(10_000);
    const message = errorOf(() => run([brands('doc-3', [long])], state())).details.message as string;
    expect(message).toContain(`the brand '${'x'.repeat(100)}…' (10000 characters) is not a brand`);
    expect(message.length).toBeLessThan(250);
  });

  it('when a category metadata value names an id the project does not have, then 400 naming it', () => {
    for (const value of [{ id: 'sports' }, 'sports', { id: 'sports', label: 'Sports' }]) {
      expect(errorOf(() => run([category(value)], state()))).toMatchObject(
        failed(0, "the category 'sports' (metadata property 'category') is not a category of this project"),
      );
    }
  });

  it("when the values are the project's, already carried, removed or not known, then they are set", () => {
    // doc-1 carries 'ch' and the document c1: sent back, with the project's own, they stay.
    const outcome = run(
      [brands('doc-1', ['ch', 'de']), brands('doc-3', ['de']), category({ id: 'c1', label: 'Old' })],
      buildState({ projectValues: { brands: ['de'], categories: new Set() } }),
    );
    expect(outcome.content[0]!.conditions).toEqual({ brands: ['ch', 'de'] });
    expect(outcome.metadata.category).toEqual({ id: 'c1', label: 'Old' });
    expect(run([category('sport'), brands('doc-1', null)], state()).metadata.category).toBe('sport');
    // Another property, or a value that names no id, is no category; without projectValues nothing is checked.
    expect(() =>
      run([metadata('topic', { id: 'sports' }), category(null), category({ id: 5 })], state()),
    ).not.toThrow();
    expect(() => run([brands('doc-3', ['dee']), category({ id: 'sports' })])).not.toThrow();
  });

  it('names the requests that need the config: a brands condition set, or a category id', () => {
    expect(setsProjectValues({ commands: [brands('doc-1', ['ch'])] })).toBe(true);
    expect(setsProjectValues({ commands: [category({ id: 'news' })] })).toBe(true);
    expect(setsProjectValues({ commands: [category('news')] })).toBe(true);
    expect(
      setsProjectValues({
        commands: [
          brands('doc-1', null),
          category(null),
          metadata('title', { id: 'x' }),
          { operation: 'publish' },
        ],
      }),
    ).toBe(false);
  });

  function metadata(propertyName: string, value: unknown): Command {
    return { operation: 'setMetadataProperty', propertyName, value } as Command;
  }
});

describe('storedReferenceIds', () => {
  it('names every document and media entry a draft references (metadata, links, includes, images), ids as strings, each kind apart', () => {
    const ids = storedReferenceIds(
      {
        title: 'T',
        related: { $ref: 'document', reference: { id: 1 } },
        more: { $ref: 'documents', references: [{ id: '2' }, { id: 3 }] },
        picture: { nested: [{ mediaId: 'm-1' }, { $ref: 'mediaLibrary', reference: { id: 'm-2' } }] },
        language: { groupId: '99', locale: 'de' },
      },
      [
        { id: 'a', content: { link: { $ref: 'document', reference: { id: '4' }, href: '/x' } } },
        {
          id: 'b',
          containers: {
            main: [
              {
                id: 'c',
                content: {
                  teaser: {
                    service: 'teaser',
                    params: { article: { $ref: 'document', reference: { id: '5' } }, mediaId: 6 },
                  },
                  image: { mediaId: 'm-3' },
                  picture: { $ref: 'media', reference: { id: 'm-4' } },
                },
              },
            ],
          },
        },
      ],
    );
    expect([...ids.document].sort()).toEqual(['1', '2', '3', '4', '5', '6']);
    expect([...ids.media].sort()).toEqual(['m-1', 'm-2', 'm-3', 'm-4']);
  });

  it('names none for a draft without references, or with content stored as sent that holds no components', () => {
    const none = { document: new Set(), media: new Set() };
    expect(storedReferenceIds({ title: 'T', count: 3 }, [{ id: 'a', content: { text: 'x' } }])).toEqual(none);
    expect(storedReferenceIds({}, ['not a component', 7] as never)).toEqual(none);
  });
});
