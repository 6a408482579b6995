import { changesPublicationDates, cutImportBatches, importTargetKey } from '../../src/commands/import-batch';
import { ImportDocumentSchema } from '../../src/domain/import-request';

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
