import { errors } from '@elastic/elasticsearch';
import { tooManyClausesMessage } from '../../src/domain/search-text';
import { refusedClauseLimit } from '../../src/search/client';

const responseError = (statusCode: number, body: unknown) =>
  new errors.ResponseError({ body, statusCode, headers: {}, warnings: null, meta: {} as never });

/** Elasticsearch 9.5.4's answer to a match query of 17,000 words on a node that allows 16,384 clauses. */
const REFUSAL = {
  error: {
    root_cause: [
      {
        type: 'query_shard_exception',
        reason:
          'failed to create query: Query contains too many nested clauses; maxClauseCount is set to 16384',
        index: 'broadsheet-publications-v1',
      },
    ],
    type: 'search_phase_execution_exception',
    reason: 'all shards failed',
    phase: 'query',
    grouped: true,
    failed_shards: [
      {
        shard: 0,
        index: 'broadsheet-publications-v1',
        reason: {
          type: 'query_shard_exception',
          reason:
            'failed to create query: Query contains too many nested clauses; maxClauseCount is set to 16384',
          caused_by: {
            type: 'too_many_nested_clauses',
            reason: 'Query contains too many nested clauses; maxClauseCount is set to 16384',
          },
        },
      },
    ],
  },
  status: 400,
};

describe('refusedClauseLimit', () => {
  it('when Elasticsearch refused a search for too many nested clauses, then it is the limit it named', () => {
    expect(refusedClauseLimit(responseError(400, REFUSAL))).toBe(16384);
  });

  it('when the refusal is too_many_clauses (one boolean query too wide), then it is the limit too', () => {
    const body = {
      error: {
        type: 'search_phase_execution_exception',
        caused_by: { type: 'too_many_clauses', reason: 'too many clauses; maxClauseCount is set to 1024' },
      },
    };
    expect(refusedClauseLimit(responseError(400, body))).toBe(1024);
  });

  it('when Elasticsearch answered another 400, another status, or no answer at all, then it is undefined', () => {
    const other = {
      error: { type: 'search_phase_execution_exception', root_cause: [{ type: 'parsing_exception' }] },
    };
    expect(refusedClauseLimit(responseError(400, other))).toBeUndefined();
    expect(refusedClauseLimit(responseError(500, REFUSAL))).toBeUndefined();
    expect(refusedClauseLimit(responseError(400, 'not json'))).toBeUndefined();
    expect(refusedClauseLimit(new errors.ConnectionError('connect ECONNREFUSED'))).toBeUndefined();
    expect(refusedClauseLimit(new Error('maxClauseCount is set to 5'))).toBeUndefined();
  });
});

describe('tooManyClausesMessage', () => {
  it('names the limit and what counts against it', () => {
    expect(tooManyClausesMessage(2340)).toBe(
      'The search and filters make a query of more clauses than Elasticsearch allows: at most 2340 ' +
        '(each word of search counts 3, each of its first 20 words 3 more, each word of a text filter value 1); ' +
        'use fewer words or values',
    );
  });
});
