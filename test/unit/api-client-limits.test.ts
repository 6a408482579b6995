import { clientNameProblem, MAX_CLIENT_NAME_LENGTH } from '../../src/domain/api-client-limits';

describe('clientNameProblem', () => {
  it('when a name is empty or longer than the limit, then it says why', () => {
    expect(clientNameProblem('  ')).toBe('must not be empty');
    expect(clientNameProblem('n'.repeat(MAX_CLIENT_NAME_LENGTH + 1))).toBe(
      `must be at most ${MAX_CLIENT_NAME_LENGTH} characters`,
    );
    expect(clientNameProblem('n'.repeat(MAX_CLIENT_NAME_LENGTH))).toBeUndefined();
  });

  it('when a name is made of emoji, then its characters are counted, not its UTF-16 code units', () => {
    // 101 emoji were refused as more than 200 characters: each is two code units of a JS string.
    const emoji = '\u{1F4F0}';
    expect(clientNameProblem(emoji.repeat(MAX_CLIENT_NAME_LENGTH))).toBeUndefined();
    expect(clientNameProblem(emoji.repeat(MAX_CLIENT_NAME_LENGTH + 1))).toBe(
      `must be at most ${MAX_CLIENT_NAME_LENGTH} characters`,
    );
  });
});
