import { ApiVersion } from '../../src/domain/api-versions';
import { parseCommandRequest, operationsIn, OPERATIONS } from '../../src/domain/document-commands/schema';
import { AppError } from '../../src/domain/errors';

const version = (label: string): ApiVersion => {
  const parsed = ApiVersion.parse(label);
  if (!parsed) throw new Error(`unknown version ${label}`);
  return parsed;
};
const latest = ApiVersion.latest();

function errorOf(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

/** The 400 details of parsing `body`, without the name every validation error carries. */
function pathsOf(body: unknown, apiVersion: ApiVersion = latest): Record<string, unknown> {
  const error = errorOf(() => parseCommandRequest(body, apiVersion));
  expect(error.status).toBe(400);
  const { name, ...paths } = error.details;
  expect(name).toBe('ValidationError');
  return paths;
}

const one = (command: Record<string, unknown>) => ({ commands: [command] });

const BASE_OPERATIONS = [
  'setMetadataProperty',
  'setEditableDirective',
  'publish',
  'unpublish',
  'removeComponent',
  'setComponentCondition',
  'setComponentStyle',
  'setStyleDirective',
  'setLinkDirective',
  'setIncludeDirective',
];
const SCHEDULING_OPERATIONS = [
  'setEmbargo',
  'removeEmbargo',
  'addPublishSchedule',
  'cancelPublishSchedule',
  'addUnpublishSchedule',
  'cancelUnpublishSchedule',
];

describe('parseCommandRequest: valid requests', () => {
  const valid: Array<Record<string, unknown>> = [
    { operation: 'setMetadataProperty', propertyName: 'title', value: 'New' },
    { operation: 'setMetadataProperty', propertyName: 'title', value: null, oldValue: 'Old' },
    { operation: 'setMetadataProperty', propertyName: 'category', value: { id: 'c1' }, oldValue: null },
    { operation: 'setEditableDirective', componentId: 'doc-1', directiveName: 'title', value: 'Hello' },
    { operation: 'publish' },
    { operation: 'unpublish' },
    { operation: 'removeComponent', componentId: 'doc-1' },
    {
      operation: 'setComponentCondition',
      componentId: 'doc-1',
      conditionName: 'dateTime',
      value: { gte: '2025-01-01T00:00:00Z', lt: '2025-02-01T00:00:00+01:00' },
      oldValue: null,
    },
    { operation: 'setComponentCondition', componentId: 'doc-1', conditionName: 'dateTime', value: null },
    {
      operation: 'setComponentCondition',
      componentId: 'doc-1',
      conditionName: 'brands',
      value: ['ch', 'de'],
    },
    {
      operation: 'setComponentStyle',
      componentId: 'doc-1',
      propertyName: 'color',
      value: 'red',
      oldValue: 'blue',
    },
    {
      operation: 'setStyleDirective',
      componentId: 'doc-1',
      directiveName: 'layout',
      propertyName: 'width',
      value: 'full',
    },
    {
      operation: 'setLinkDirective',
      componentId: 'doc-1',
      directiveName: 'link',
      value: { href: 'https://example.com', target: '_blank' },
    },
    { operation: 'setLinkDirective', componentId: 'doc-1', directiveName: 'link', value: null },
    {
      operation: 'setIncludeDirective',
      componentId: 'doc-1',
      directiveName: 'teaser',
      value: {
        params: { article: { $ref: 'document', reference: { id: '12' } } },
        overrides: [
          {
            id: 'doc-9',
            content: { title: 'T' },
            originalSnapshot: { title: 'O' },
            contentProperties: ['title'],
          },
        ],
      },
      oldValue: { params: {} },
    },
    {
      operation: 'setIncludeDirective',
      componentId: 'doc-1',
      directiveName: 'teaser',
      value: { params: {} },
    },
    { operation: 'setEmbargo', reason: 'legal', until: '2030-01-01T00:00:00Z' },
    { operation: 'setEmbargo', reason: 'legal' },
    { operation: 'setEmbargo', reason: 'legal', until: null },
    { operation: 'removeEmbargo' },
    { operation: 'addPublishSchedule', date: '2030-01-01T08:00:00.000Z' },
    { operation: 'cancelPublishSchedule' },
    { operation: 'addUnpublishSchedule', date: '2030-01-01T08:00:00+02:00' },
    { operation: 'cancelUnpublishSchedule' },
  ];

  it.each(valid.map((command) => [command.operation, command]))(
    'when a %s command is well formed, then it parses to itself',
    (_operation, command) => {
      expect(parseCommandRequest(one(command), latest)).toEqual(one(command));
    },
  );

  it('when the body carries preconditions, version and preserveUpdatedAt, then they are kept', () => {
    const body = {
      commands: [{ operation: 'publish' }],
      preconditions: [
        { type: 'isPublished', value: false },
        { type: 'isPublishedAndHasNoChanges', value: false },
      ],
      version: 0,
      preserveUpdatedAt: true,
    };
    expect(parseCommandRequest(body, latest)).toEqual(body);
  });

  it('when isPublishedAndHasNoChanges comes without a value, as the vendor sends it, then it asserts true', () => {
    const body = {
      commands: [{ operation: 'publish' }],
      preconditions: [{ type: 'isPublishedAndHasNoChanges' }],
    };
    expect(parseCommandRequest(body, latest).preconditions).toEqual([
      { type: 'isPublishedAndHasNoChanges', value: true },
    ]);
  });

  it('when a link references a document, then the id becomes a string and $ref is filled in', () => {
    const request = parseCommandRequest(
      one({
        operation: 'setLinkDirective',
        componentId: 'doc-1',
        directiveName: 'link',
        value: { reference: { id: 12 } },
      }),
      latest,
    );
    expect(request.commands[0]).toMatchObject({ value: { $ref: 'document', reference: { id: '12' } } });
  });
});

describe('parseCommandRequest: invalid bodies', () => {
  it.each([
    ['the body is not an object', null, { body: 'must be an object' }],
    ['commands is missing', {}, { commands: 'is required' }],
    ['commands is empty', { commands: [] }, { commands: 'must have at least 1 item' }],
    [
      'there are more than 100 commands',
      { commands: Array.from({ length: 101 }, () => ({ operation: 'publish' })) },
      { commands: 'must have at most 100 items' },
    ],
    ['a command is not an object', { commands: [5] }, { 'commands.0': 'must be an object' }],
    [
      'the body has an unknown field',
      { commands: [{ operation: 'publish' }], force: true },
      { force: 'is not allowed' },
    ],
    [
      'version is negative',
      { commands: [{ operation: 'publish' }], version: -1 },
      { version: 'must be >= 0' },
    ],
    [
      'version is not an integer',
      { commands: [{ operation: 'publish' }], version: 1.5 },
      { version: 'must be an integer' },
    ],
    [
      'preserveUpdatedAt is not a boolean',
      { commands: [{ operation: 'publish' }], preserveUpdatedAt: 'yes' },
      { preserveUpdatedAt: 'must be a boolean' },
    ],
    [
      'a precondition type is unknown',
      { commands: [{ operation: 'publish' }], preconditions: [{ type: 'isDraft', value: true }] },
      { 'preconditions.0.type': "must be one of 'isPublished', 'isPublishedAndHasNoChanges'" },
    ],
    [
      'isPublished comes without a value',
      { commands: [{ operation: 'publish' }], preconditions: [{ type: 'isPublished' }] },
      { 'preconditions.0.value': 'is required for isPublished' },
    ],
    [
      'a precondition value is not a boolean',
      { commands: [{ operation: 'publish' }], preconditions: [{ type: 'isPublished', value: 'yes' }] },
      { 'preconditions.0.value': 'must be a boolean' },
    ],
  ])('when %s, then 400 names the path', (_case, body, paths) => {
    expect(pathsOf(body)).toEqual(paths);
  });
});

describe('parseCommandRequest: invalid commands', () => {
  it('when the operation is unknown, then commands.<i>.operation lists the operations of the version', () => {
    expect(pathsOf({ commands: [{ operation: 'publish' }, { operation: 'explode' }] })).toEqual({
      'commands.1.operation': `must be one of ${OPERATIONS.join(', ')}`,
    });
    expect(pathsOf(one({ operation: 'explode' }), version('2025-05'))).toEqual({
      'commands.0.operation': `must be one of ${BASE_OPERATIONS.join(', ')}`,
    });
  });

  it('when the operation is missing or not a string, then commands.<i>.operation says what it must be', () => {
    expect(Object.keys(pathsOf(one({ componentId: 'doc-1' })))).toEqual(['commands.0.operation']);
    expect(pathsOf(one({ operation: 7 }))['commands.0.operation']).toMatch(
      /^must be one of setMetadataProperty/,
    );
  });

  it.each([
    [
      'a required field is missing',
      { operation: 'removeComponent' },
      { 'commands.0.componentId': 'is required' },
    ],
    [
      'a field is not known to the operation',
      { operation: 'publish', componentId: 'doc-1' },
      { 'commands.0.componentId': 'is not allowed' },
    ],
    [
      'setEditableDirective carries an oldValue',
      { operation: 'setEditableDirective', componentId: 'c', directiveName: 'd', value: 'v', oldValue: 'o' },
      { 'commands.0.oldValue': 'is not allowed' },
    ],
    [
      'setEditableDirective value is not a string',
      { operation: 'setEditableDirective', componentId: 'c', directiveName: 'd', value: 3 },
      { 'commands.0.value': 'must be a string' },
    ],
    [
      'setMetadataProperty has no value',
      { operation: 'setMetadataProperty', propertyName: 'title' },
      { 'commands.0.value': 'is required' },
    ],
    [
      'a property name would reach the prototype',
      { operation: 'setMetadataProperty', propertyName: '__proto__', value: 1 },
      { 'commands.0.propertyName': 'is a reserved name' },
    ],
    [
      'componentId is empty',
      { operation: 'removeComponent', componentId: '' },
      { 'commands.0.componentId': 'must not be empty' },
    ],
    [
      'a condition name is unknown',
      { operation: 'setComponentCondition', componentId: 'c', conditionName: 'weather', value: null },
      { 'commands.0.conditionName': "must be one of 'dateTime', 'brands'" },
    ],
    [
      'a dateTime bound is not an ISO date-time',
      {
        operation: 'setComponentCondition',
        componentId: 'c',
        conditionName: 'dateTime',
        value: { gte: '2025-01-01' },
      },
      { 'commands.0.value.gte': 'must be an ISO 8601 date-time with a time zone, e.g. 2025-01-31T12:00:00Z' },
    ],
    [
      'a dateTime condition has no bound',
      { operation: 'setComponentCondition', componentId: 'c', conditionName: 'dateTime', value: {} },
      { 'commands.0.value': 'must have at least one of gte, gt, lte, lt' },
    ],
    [
      'a dateTime condition has an unknown bound',
      {
        operation: 'setComponentCondition',
        componentId: 'c',
        conditionName: 'dateTime',
        value: { after: 'x' },
      },
      {
        'commands.0.value.after': 'is not allowed',
        'commands.0.value': 'must have at least one of gte, gt, lte, lt',
      },
    ],
    [
      'a brands condition is empty',
      { operation: 'setComponentCondition', componentId: 'c', conditionName: 'brands', value: [] },
      { 'commands.0.value': 'must have at least 1 item' },
    ],
    [
      'a brands condition gets a dateTime value',
      { operation: 'setComponentCondition', componentId: 'c', conditionName: 'brands', value: { gte: 'x' } },
      { 'commands.0.value': 'must be an array' },
    ],
    [
      'a link value has an unknown field',
      { operation: 'setLinkDirective', componentId: 'c', directiveName: 'd', value: { href: 'x', rel: 'y' } },
      { 'commands.0.value.rel': 'is not allowed' },
    ],
    [
      'a link value is empty',
      { operation: 'setLinkDirective', componentId: 'c', directiveName: 'd', value: {} },
      { 'commands.0.value': 'must have href or reference (null removes the link)' },
    ],
    [
      'a link value has $ref without reference',
      {
        operation: 'setLinkDirective',
        componentId: 'c',
        directiveName: 'd',
        value: { href: 'x', $ref: 'document' },
      },
      { 'commands.0.value.reference': 'is required when $ref is given' },
    ],
    [
      'setIncludeDirective has overrides without params',
      {
        operation: 'setIncludeDirective',
        componentId: 'c',
        directiveName: 'd',
        value: { overrides: [{ id: 'o', content: {}, originalSnapshot: {}, contentProperties: [] }] },
      },
      { 'commands.0.value.overrides': 'is only allowed together with params' },
    ],
    [
      'an include override lacks its fields',
      {
        operation: 'setIncludeDirective',
        componentId: 'c',
        directiveName: 'd',
        value: { params: {}, overrides: [{ id: 'o' }] },
      },
      {
        'commands.0.value.overrides.0.content': 'is required',
        'commands.0.value.overrides.0.originalSnapshot': 'is required',
        'commands.0.value.overrides.0.contentProperties': 'is required',
      },
    ],
    [
      'setEmbargo has no reason',
      { operation: 'setEmbargo', until: '2030-01-01T00:00:00Z' },
      { 'commands.0.reason': 'is required' },
    ],
    [
      'setEmbargo until is not a date-time',
      { operation: 'setEmbargo', reason: 'r', until: 'tomorrow' },
      { 'commands.0.until': 'must be an ISO 8601 date-time with a time zone, e.g. 2025-01-31T12:00:00Z' },
    ],
    [
      'addPublishSchedule has a date without a time zone',
      { operation: 'addPublishSchedule', date: '2030-01-01T00:00:00' },
      { 'commands.0.date': 'must be an ISO 8601 date-time with a time zone, e.g. 2025-01-31T12:00:00Z' },
    ],
    [
      'addUnpublishSchedule has no date',
      { operation: 'addUnpublishSchedule' },
      { 'commands.0.date': 'is required' },
    ],
    [
      'a link references a document by an id that is neither a string nor an integer',
      {
        operation: 'setLinkDirective',
        componentId: 'c1',
        directiveName: 'link',
        value: { $ref: 'document', reference: { id: true } },
      },
      { 'commands.0.value.reference.id': 'must be a document id: a non-empty string or a positive integer' },
    ],
    [
      'a link reference has no id',
      {
        operation: 'setLinkDirective',
        componentId: 'c1',
        directiveName: 'link',
        value: { $ref: 'document', reference: {} },
      },
      { 'commands.0.value.reference.id': 'is required' },
    ],
  ])('when %s, then 400 names the path', (_case, command, paths) => {
    expect(pathsOf(one(command))).toEqual(paths);
  });

  it('when several commands are invalid, then every offending path is reported at once', () => {
    expect(
      pathsOf({
        commands: [{ operation: 'publish' }, { operation: 'removeComponent' }, { operation: 'nope' }],
        version: 'x',
      }),
    ).toEqual({
      'commands.1.componentId': 'is required',
      'commands.2.operation': `must be one of ${OPERATIONS.join(', ')}`,
      version: 'must be a number',
    });
  });
});

describe('parseCommandRequest: API versions', () => {
  it.each(['v1', 'beta', '2025-03', '2025-05'])(
    'when the version is %s, then only the operations from before 2025-07 exist',
    (label) => {
      expect(operationsIn(version(label))).toEqual(BASE_OPERATIONS);
    },
  );

  it.each(['2025-07', '2025-09', '2025-11', '2026-01', '2026-03'])(
    'when the version is %s, then the embargo and schedule operations exist too',
    (label) => {
      expect(operationsIn(version(label))).toEqual([...BASE_OPERATIONS, ...SCHEDULING_OPERATIONS]);
    },
  );

  it.each(SCHEDULING_OPERATIONS)(
    'when %s is used before 2025-07, then 400 names commands.<i>.operation',
    (operation) => {
      const command = { operation, reason: 'r', date: '2030-01-01T00:00:00Z' };
      expect(
        pathsOf(
          { commands: [{ operation: 'publish' }, { operation: 'publish' }, command] },
          version('2025-05'),
        ),
      ).toEqual({
        'commands.2.operation': `operation '${operation}' is not available in API version 2025-05`,
      });
    },
  );

  it('when a scheduling operation is used on v1, then the message names the label the client used', () => {
    expect(pathsOf(one({ operation: 'removeEmbargo' }), version('v1'))).toEqual({
      'commands.0.operation': "operation 'removeEmbargo' is not available in API version v1",
    });
  });

  it('when a scheduling operation is used from 2025-07, then it parses', () => {
    const body = one({ operation: 'addPublishSchedule', date: '2030-01-01T00:00:00Z' });
    expect(parseCommandRequest(body, version('2025-07'))).toEqual(body);
  });

  it.each([
    [{ operation: 'setEmbargo', reason: 'r', until: '9999-12-31T23:59:59-18:00' }, 'commands.0.until'],
    [{ operation: 'addPublishSchedule', date: '9999-12-31T23:59:59-00:01' }, 'commands.0.date'],
    [{ operation: 'addUnpublishSchedule', date: '9999-12-31T23:59:59.9999-01:00' }, 'commands.0.date'],
  ])(
    'when %o falls after year 9999 in UTC (Postgres cannot store it as sent), then 400 names %s',
    (command, path) => {
      expect(pathsOf(one(command))).toEqual({
        [path]: 'must be at most 9999-12-31T23:59:59.999Z: later instants cannot be stored',
      });
    },
  );

  it.each([
    [{ operation: 'setEmbargo', reason: 'r', until: '0001-01-01T00:00:00+10:00' }, 'commands.0.until'],
    [{ operation: 'addPublishSchedule', date: '0000-06-01T00:00:00Z' }, 'commands.0.date'],
  ])('when %o falls before year 1 in UTC (Postgres reads no year 0), then 400 names %s', (command, path) => {
    expect(pathsOf(one(command))).toEqual({
      [path]: 'must be at least 0001-01-01T00:00:00.000Z: earlier instants cannot be stored',
    });
  });

  it('when a schedule or embargo ends at the last storable instant, or a component condition later, then it parses', () => {
    for (const command of [
      { operation: 'setEmbargo', reason: 'r', until: '9999-12-31T23:59:59.999Z' },
      { operation: 'setEmbargo', reason: 'r', until: '0001-01-01T00:00:00-00:30' },
      { operation: 'addPublishSchedule', date: '9999-12-31T23:59:59+00:00' },
      { operation: 'addUnpublishSchedule', date: '9999-12-31T23:59:59.999999+00:00' },
      // Conditions are kept as written, inside the content, and only compared: no need to refuse them.
      {
        operation: 'setComponentCondition',
        componentId: 'c1',
        conditionName: 'dateTime',
        value: { gte: '9999-12-31T23:59:59-18:00' },
      },
    ]) {
      expect(parseCommandRequest(one(command), latest)).toEqual(one(command));
    }
  });

  it.each(['v1', '2025-05', '2025-07', '2026-01'])(
    'when preserveUpdatedAt is sent on %s, then 400 names preserveUpdatedAt',
    (label) => {
      expect(
        pathsOf({ commands: [{ operation: 'publish' }], preserveUpdatedAt: false }, version(label)),
      ).toEqual({
        preserveUpdatedAt: `is not available in API version ${label}, only from 2026-03`,
      });
    },
  );

  it('when preserveUpdatedAt is left out before 2026-03, then the request parses', () => {
    expect(parseCommandRequest({ commands: [{ operation: 'publish' }] }, version('2026-01'))).toEqual({
      commands: [{ operation: 'publish' }],
    });
  });
});
