import { exportLineHint, summarizeImport } from '../../src/cli/commands/import';
import type { ImportLog } from '../../src/domain/import-request';

const imported = (id: string): ImportLog => ({ state: 'imported', external_id: id, document_id: 1 });
const published = (id: string): ImportLog => ({ state: 'published', external_id: id, document_id: 2 });
const failed = (id: string): ImportLog => ({
  state: 'failed',
  external_id: id,
  document_id: null,
  reason: 'bad',
});
const jobFailed: ImportLog = {
  state: 'failed',
  external_id: '',
  document_id: null,
  reason: 'The import job failed: project 7 no longer exists',
};

describe('summarizeImport (broadsheet import)', () => {
  it('when every document is written, then it counts them and exits 0', () => {
    expect(summarizeImport([imported('a'), published('b')], 2)).toEqual({
      totals: { imported: 1, published: 1, failed: 0 },
      failures: [],
      jobFailure: undefined,
      exitCode: 0,
    });
  });

  it('when some or all documents fail, then it lists them and exits 2 or 1', () => {
    expect(summarizeImport([imported('a'), failed('b')], 2)).toMatchObject({
      totals: { imported: 1, published: 0, failed: 1 },
      failures: [failed('b')],
      exitCode: 2,
    });
    expect(summarizeImport([failed('a'), failed('b')], 2)).toMatchObject({
      failures: [failed('a'), failed('b')],
      exitCode: 1,
    });
  });

  it('when the job failed as a whole, then its line is given apart, not counted as a document, and it exits non-zero', () => {
    // The job's line was skipped: a run that failed as a whole printed its totals, said nothing and exited 0.
    expect(summarizeImport([jobFailed], 3)).toEqual({
      totals: { imported: 0, published: 0, failed: 0 },
      failures: [],
      jobFailure: jobFailed,
      exitCode: 1,
    });
    expect(summarizeImport([imported('a'), jobFailed], 3)).toEqual({
      totals: { imported: 1, published: 0, failed: 0 },
      failures: [],
      jobFailure: jobFailed,
      exitCode: 2,
    });
  });
});

describe('exportLineHint (broadsheet import of an export file)', () => {
  it('when documents are export lines, then it names the first and counts the others', () => {
    const line = { systemdata: { documentId: 1, contentType: 'regular' }, metadata: {}, content: [] };
    const hint = exportLineHint([{ id: 'a', contentType: 'regular' }, line, line]);
    expect(hint).toMatch(/^document 2 \(and 1 more\) looks like a line written by broadsheet export/);
  });

  it('when a document merely lacks its contentType or carries one beside systemdata, then there is no hint', () => {
    expect(
      exportLineHint([{ id: 'a' }, { id: 'b', contentType: 'regular', systemdata: {} }]),
    ).toBeUndefined();
  });
});
