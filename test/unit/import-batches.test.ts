import { cutImportBatches, importTargetKey } from '../../src/commands/import-batch';
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
