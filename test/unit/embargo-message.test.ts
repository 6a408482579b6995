import { embargoMessage } from '../../src/commands/run-document-commands';

describe('embargoMessage', () => {
  it('when an embargo has a reason, then the 409 says until when and why', () => {
    expect(embargoMessage({ until: '2030-01-01T00:00:00.000Z', reason: 'Court order' })).toBe(
      'The document is under embargo until 2030-01-01T00:00:00.000Z (Court order)',
    );
    expect(embargoMessage({ until: null, reason: 'Legal' })).toBe(
      'The document is under embargo until it is removed (Legal)',
    );
  });

  it('when the reason a client gave is long, then every refusal repeats it cut, not whole', () => {
    // A reason has no limit of its own: one of a megabyte made every later write's 409 a megabyte long.
    const reason = `${'r'.repeat(100)}${'s'.repeat(99_900)}`;
    expect(embargoMessage({ until: null, reason })).toBe(
      `The document is under embargo until it is removed (${'r'.repeat(100)}… (100000 characters))`,
    );
  });
});
