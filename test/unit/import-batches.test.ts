import {
  changesPublicationDates,
  cutImportBatches,
  importTargetKey,
  writeImportBatch,
  type PreparedImport,
} from '../../src/commands/import-batch';
import type { Pool } from '../../src/db/pool';
import { ImportDocumentSchema } from '../../src/domain/import-request';
import type { Boss } from '../../src/jobs/boss';

const document = (id: string, documentId?: number) =>
  ImportDocumentSchema.parse({ id, contentType: 'regular', ...(documentId ? { documentId } : {}) });
const ids = (batches: { id: string }[][]) => batches.map((batch) => batch.map((item) => item.id));

describe('cutImportBatches', () => {
  it('when documents are all distinct, then batches hold at most the size, in order', () => {
    const documents = ['a', 'b', 'c', 'd', 'e'].map((id) => document(id));
    expect(ids(cutImportBatches(documents, 2, importTargetKey))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(ids(cutImportBatches(documents, 500, importTargetKey))).toEqual([['a', 'b', 'c', 'd', 'e']]);
  });

  it('when a document comes again, then a new batch starts before it, so each write applies in order', () => {
    const documents = ['a', 'b', 'a', 'c', 'a'].map((id) => document(id));
    expect(ids(cutImportBatches(documents, 500, importTargetKey))).toEqual([['a', 'b'], ['a', 'c'], ['a']]);
  });

  it('when documents name a documentId, then that is their key, whatever their external id', () => {
    const documents = [document('x', 7), document('y', 7), document('x'), document('z', 8)];
    expect(ids(cutImportBatches(documents, 500, importTargetKey))).toEqual([['x'], ['y', 'x', 'z']]);
  });

  it('when there are no documents, then there are no batches', () => {
    expect(cutImportBatches([], 10, importTargetKey)).toEqual([]);
  });
});

describe('changesPublicationDates', () => {
  const stored = {
    firstPublicationDate: new Date('2020-01-01T00:00:00.000Z'),
    significantPublicationDate: null,
    visiblePublicationDateOverride: new Date('2021-06-01T12:00:00.123Z'),
    lastPublicationDate: new Date('2022-01-01T00:00:00.000Z'),
  };

  it('when the import names no dates, then nothing changes', () => {
    expect(changesPublicationDates(undefined, stored)).toBe(false);
    expect(changesPublicationDates({}, stored)).toBe(false);
  });

  it('when it names the stored instants, in any offset, then nothing changes', () => {
    expect(
      changesPublicationDates(
        {
          firstPublicationDate: '2020-01-01T01:00:00+01:00',
          visiblePublicationDateOverride: '2021-06-01T12:00:00.123Z',
          lastPublicationDate: '2022-01-01T00:00:00Z',
        },
        stored,
      ),
    ).toBe(false);
  });

  it('when one date differs, even by a millisecond, or fills one the document lacks, then the dates change', () => {
    expect(
      changesPublicationDates({ visiblePublicationDateOverride: '2021-06-01T12:00:00.124Z' }, stored),
    ).toBe(true);
    expect(changesPublicationDates({ significantPublicationDate: '2020-01-01T00:00:00Z' }, stored)).toBe(
      true,
    );
    expect(
      changesPublicationDates(
        { firstPublicationDate: '2020-01-01T00:00:00Z', lastPublicationDate: '2023-01-01T00:00:00Z' },
        stored,
      ),
    ).toBe(true);
  });
});

describe('writeImportBatch when Postgres refuses a new document on its unique key', () => {
  const uniqueViolation = (constraint: string) =>
    Object.assign(new Error(`duplicate key value violates unique constraint "${constraint}"`), {
      code: '23505',
      constraint,
    });

  /** A pool of one fake connection: every insert of documents is refused with `error`; counts the attempts. */
  function refusingPool(error: Error) {
    let attempts = 0;
    const client = {
      query: (statement: string | { text: string }) => {
        const text = typeof statement === 'string' ? statement : statement.text;
        if (text === 'BEGIN') attempts += 1;
        if (text.includes('INSERT INTO documents')) return Promise.reject(error);
        return Promise.resolve({ rows: [], rowCount: 0 });
      },
      release: () => undefined,
    };
    const pool = { connect: () => Promise.resolve(client) } as unknown as Pool;
    return { pool, attempts: () => attempts };
  }

  const item: PreparedImport = {
    document: document('x'),
    draft: {
      projectId: 1,
      channelId: 1,
      documentType: 'article',
      contentType: 'regular',
      designName: null,
      designVersion: null,
      metadata: {},
      content: [],
    },
    references: [],
  };
  const write = (pool: Pool) => writeImportBatch({ pool, boss: {} as Boss }, 1, 'wire', [item], new Date());

  it('when another writer keeps creating the same external id first, then three attempts, and the failure says so in words', async () => {
    const taken = uniqueViolation('documents_project_id_system_name_external_id_key');
    const { pool, attempts } = refusingPool(taken);
    await expect(write(pool)).rejects.toMatchObject({
      message:
        'another writer created a document of the same external id at the same time, 3 times in a row; import it again',
      cause: taken,
    });
    expect(attempts()).toBe(3);
  });

  it('when the refusal is of another unique key, then it is thrown as it is, after one attempt', async () => {
    const other = uniqueViolation('documents_pkey');
    const { pool, attempts } = refusingPool(other);
    await expect(write(pool)).rejects.toBe(other);
    expect(attempts()).toBe(1);
  });
});
