import type { SearchClient } from '../../src/search/client';
import { bulkWrite, type IndexOperation } from '../../src/search/indexer';

/** A search client that records the bulk bodies it is sent and answers every item 200. */
function recordingClient() {
  const bodies: string[] = [];
  const client = {
    transport: {
      request: (params: { bulkBody: Buffer }) => {
        const body = params.bulkBody.toString();
        bodies.push(body);
        const actions = body
          .split('\n')
          .filter((line) => line.startsWith('{"index"') || line.startsWith('{"delete"'));
        return Promise.resolve({
          items: actions.map((line) => ({
            [line.startsWith('{"index"') ? 'index' : 'delete']: { status: 200 },
          })),
        });
      },
    },
  } as unknown as SearchClient;
  return { client, bodies };
}

const operations: IndexOperation[] = [
  { kind: 'index', key: { projectId: 1, documentId: 2 }, version: 3, document: '{"documentId":2}' },
  { kind: 'delete', key: { projectId: 1, documentId: 4 }, version: 5 },
];

describe('bulk request bodies', () => {
  it('when the targets are aliases, then every index action requires an alias, so a vanished one is never created as an index', async () => {
    const { client, bodies } = recordingClient();
    const outcome = await bulkWrite(client, ['a', 'a-rebuilding'], operations, { requireAlias: true });
    expect(outcome).toEqual({ written: 4, rejected: [], retryable: [] });
    expect(bodies[0]!.split('\n').filter((line) => line.startsWith('{"'))).toEqual([
      '{"index":{"_index":"a","_id":"1:2","version":3,"version_type":"external","require_alias":true}}',
      '{"documentId":2}',
      '{"delete":{"_index":"a","_id":"1:4","version":5,"version_type":"external"}}',
      '{"index":{"_index":"a-rebuilding","_id":"1:2","version":3,"version_type":"external","require_alias":true}}',
      '{"documentId":2}',
      '{"delete":{"_index":"a-rebuilding","_id":"1:4","version":5,"version_type":"external"}}',
    ]);
  });

  it('when the target is an index by name (a rebuild writing its own), then no action requires an alias', async () => {
    const { client, bodies } = recordingClient();
    await bulkWrite(client, ['a-v1'], operations);
    expect(bodies[0]).not.toContain('require_alias');
  });
});
