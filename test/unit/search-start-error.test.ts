import { errors } from '@elastic/elasticsearch';
import { searchStartError } from '../../src/search/client';

const URLS = ['http://elastic:pw@es1:9200', 'http://es2:9200'];

describe('searchStartError', () => {
  it('when Elasticsearch is unreachable, then the message names ELASTICSEARCH_URL without credentials, and why', () => {
    const error = searchStartError(URLS, new errors.ConnectionError('connect ECONNREFUSED 10.0.0.7:9200'));
    expect((error as Error).message).toBe(
      'cannot use Elasticsearch at ELASTICSEARCH_URL=http://[REDACTED]@es1:9200,http://es2:9200: ' +
        'connect ECONNREFUSED 10.0.0.7:9200',
    );
  });

  it('when Elasticsearch refuses the credentials, then the message says so', () => {
    const refused = new errors.ResponseError({
      body: { error: { type: 'security_exception' } },
      statusCode: 401,
      headers: {},
      warnings: null,
      meta: {} as never,
    });
    expect((searchStartError(URLS, refused) as Error).message).toContain(
      'it refused the credentials (401): check the user and password in the URL',
    );
  });

  it('when the error is anything else, then it is returned as it is', () => {
    const other = new Error('relation "documents" does not exist');
    expect(searchStartError(URLS, other)).toBe(other);
    const notFound = new errors.ResponseError({
      body: {},
      statusCode: 404,
      headers: {},
      warnings: null,
      meta: {} as never,
    });
    expect(searchStartError(URLS, notFound)).toBe(notFound);
  });
});
