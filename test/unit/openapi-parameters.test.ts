import { z } from 'zod';
import { perVersion } from '../../src/domain/api-versions';
import {
  commaList,
  dateTimeParam,
  documentIdParam,
  idParam,
  integerParam,
  queryBoolean,
  withConditions,
  conditionParams,
} from '../../src/http/query-params';
import { fromCheck } from '../../src/domain/validation';
import { checkPathParameters, parametersOf } from '../../src/http/routes/openapi/parameters';

describe('parametersOf', () => {
  it('when a query parses text into numbers, booleans and dates, then each is described as what a client sends', () => {
    const query = z.strictObject({
      limit: integerParam(0, 100).default(10).describe('items per page'),
      reverse: queryBoolean.default(false),
      'id.gt': idParam.optional(),
      since: dateTimeParam.optional(),
      tags: commaList.optional().describe('comma separated'),
      name: z.string().min(1),
    });
    expect(parametersOf({ query })).toEqual([
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: 'items per page',
        schema: { type: 'integer', minimum: 0, maximum: 100, default: 10 },
      },
      {
        name: 'reverse',
        in: 'query',
        required: false,
        description: 'true or false, also 1 or 0, or reverse alone for true',
        allowEmptyValue: true,
        schema: { type: 'boolean', default: false },
      },
      {
        name: 'id.gt',
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      },
      { name: 'since', in: 'query', required: false, schema: { type: 'string', format: 'date-time' } },
      {
        name: 'tags',
        in: 'query',
        required: false,
        description:
          'comma separated; sent as tags=a,b, tags=a&tags=b, tags[]=a&tags[]=b or tags[0]=a&tags[1]=b',
        style: 'form',
        explode: true,
        schema: { type: 'array', items: { type: 'string' } },
      },
      { name: 'name', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
    ]);
  });

  it('when the query object is refined and transformed, then its keys are still the parameters', () => {
    const query = z
      .strictObject({ fields: commaList.optional(), ...conditionParams })
      .refine(() => true)
      .transform(fromCheck(withConditions));
    expect(parametersOf({ query }).map((parameter) => parameter.name)).toEqual([
      'fields',
      'ignoreComponentConditions',
      'componentConditions',
    ]);
  });

  it('when a path parameter is parsed into an id, then it is a required integer with its bounds', () => {
    expect(parametersOf({ path: z.object({ documentId: documentIdParam }) })).toEqual([
      {
        name: 'documentId',
        in: 'path',
        required: true,
        schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      },
    ]);
  });

  it('when a key is z.never() in some versions or differs by version, then each variant is marked with its versions', () => {
    const query = perVersion((version) =>
      z.strictObject({
        limit: integerParam(0, version.atLeast('2025-09') ? 200 : 100).optional(),
        after: version.wrapsLists ? z.string().optional() : z.never().optional(),
        renditions: version.atMost('2025-07') ? z.string().optional() : z.never().optional(),
      }),
    );
    const described = parametersOf({ query }).map((parameter) => ({
      name: parameter.name,
      maximum: (parameter.schema as { maximum?: number }).maximum,
      versions: parameter['x-broadsheet-versions'],
    }));
    expect(described).toEqual([
      { name: 'limit', maximum: 100, versions: { to: '2025-07' } },
      { name: 'renditions', maximum: undefined, versions: { to: '2025-07' } },
      { name: 'limit', maximum: 200, versions: { from: '2025-09' } },
      { name: 'after', maximum: undefined, versions: { from: '2026-01' } },
    ]);
  });

  it('when the schema is not an object, then the description refuses to build', () => {
    expect(() => parametersOf({ query: z.string() })).toThrow('must be a zod object');
  });
});

describe('checkPathParameters', () => {
  it("when an operation's path parameters are not its path's names, then the description refuses to build", () => {
    const path = (parameters: unknown[]) => ({
      paths: { '/documents/{documentId}': { get: { parameters } } },
    });
    const documentId = { name: 'documentId', in: 'path', required: true, schema: { type: 'integer' } };
    expect(checkPathParameters(path([documentId]))).toEqual(path([documentId]));
    expect(() => checkPathParameters(path([]))).toThrow(
      'GET /documents/{documentId} describes the path parameters none',
    );
    expect(() => checkPathParameters(path([{ ...documentId, name: 'id' }]))).toThrow('path parameters id');
  });
});
