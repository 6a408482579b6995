import { namesPossibleTarget, storableReferences } from '../../src/domain/reference-targets';

describe('reference targets', () => {
  it('when a document reference has the digits of a document id, then it can name a target; any other text not', () => {
    const document = (targetId: string) => namesPossibleTarget({ targetType: 'document', targetId });
    expect(['1', '42', '9223372036854775807'].map(document)).toEqual([true, true, true]);
    expect(
      ['', '0', '012', '-3', '1.5', '1e+21', ' 12', 'abc', '12345678901234567890'].map(document),
    ).toEqual(Array(9).fill(false));
  });

  it('when a media reference has the form of a media library id, then it can name a target; any other text not', () => {
    const media = (targetId: string) => namesPossibleTarget({ targetType: 'media', targetId });
    expect(['hero', 'img-1', 'A'.repeat(32), '5'].map(media)).toEqual([true, true, true, true]);
    expect(['', 'a'.repeat(33), 'a/b', 'hero image', 'x'.repeat(4000)].map(media)).toEqual(
      Array(5).fill(false),
    );
  });

  it('when references are stored, then those that can name no target are left out, in order', () => {
    const rows = [
      { targetType: 'document' as const, targetId: '7', location: 'metadata' as const },
      { targetType: 'document' as const, targetId: 'x'.repeat(4000), location: 'metadata' as const },
      { targetType: 'media' as const, targetId: 'hero', location: 'metadata' as const },
      { targetType: 'media' as const, targetId: 'x'.repeat(4000), location: 'metadata' as const },
    ];
    expect(storableReferences(rows).map((row) => row.targetId)).toEqual(['7', 'hero']);
  });
});
