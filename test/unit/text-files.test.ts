import { decodeUtf8Text } from '../../src/cli/text-files';

describe('decodeUtf8Text (files the CLI reads)', () => {
  it('when a file is UTF-8, with or without a byte order mark, then its text is read as it is', () => {
    expect(decodeUtf8Text('a.json', Buffer.from('{"title":"Café"}'))).toBe('{"title":"Café"}');
    expect(decodeUtf8Text('a.json', Buffer.from('\uFEFF{"title":"Café"}'))).toBe('{"title":"Café"}');
  });

  it('when a file is Latin-1, then it is refused naming the file and the line, not read with U+FFFD in place of é', () => {
    const latin1 = Buffer.concat([
      Buffer.from('{"id":"a"}\n{"title":"Caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}'),
    ]);
    expect(() => decodeUtf8Text('a.ndjson', latin1)).toThrow(
      'a.ndjson is not UTF-8 text (line 2): save it as UTF-8',
    );
  });

  it('when a file is UTF-16, then it is refused saying so', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('[]', 'utf16le')]);
    expect(() => decodeUtf8Text('a.json', utf16)).toThrow('a.json is UTF-16 text: save it as UTF-8');
  });
});
