import { diffJson, escapePointerToken } from '../../src/domain/json-diff';

describe('diffJson', () => {
  it('when both values are deeply equal, then there are no patches', () => {
    expect(diffJson({ a: [1, { b: 'x' }], c: null }, { c: null, a: [1, { b: 'x' }] })).toEqual([]);
  });

  it('when a nested scalar changes, then one update names its pointer with both values', () => {
    expect(diffJson({ settings: { label: 'Old' } }, { settings: { label: 'New' } })).toEqual([
      { action: 'update', pointer: '/settings/label', value: 'New', valueBefore: 'Old' },
    ]);
  });

  it('when keys appear and disappear, then they are added and removed', () => {
    expect(diffJson({ a: 1, gone: true }, { a: 1, brandNew: { x: 1 } })).toEqual([
      { action: 'remove', pointer: '/gone', valueBefore: true },
      { action: 'add', pointer: '/brandNew', value: { x: 1 } },
    ]);
  });

  it('when an array grows or shrinks, then items are compared by index and surplus ones added or removed from the end', () => {
    const types = (...handles: string[]) => ({ contentTypes: handles.map((handle) => ({ handle })) });
    expect(diffJson(types('a', 'b'), types('a', 'c', 'd'))).toEqual([
      { action: 'update', pointer: '/contentTypes/1/handle', value: 'c', valueBefore: 'b' },
      { action: 'add', pointer: '/contentTypes/2', value: { handle: 'd' } },
    ]);
    expect(diffJson([1, 2, 3, 4], [1])).toEqual([
      { action: 'remove', pointer: '/3', valueBefore: 4 },
      { action: 'remove', pointer: '/2', valueBefore: 3 },
      { action: 'remove', pointer: '/1', valueBefore: 2 },
    ]);
  });

  it('when a value changes type, then it is one update of the whole value', () => {
    expect(diffJson({ a: [1] }, { a: { 0: 1 } })).toEqual([
      { action: 'update', pointer: '/a', value: { 0: 1 }, valueBefore: [1] },
    ]);
    expect(diffJson('x', 'y')).toEqual([{ action: 'update', pointer: '', value: 'y', valueBefore: 'x' }]);
  });

  it('when a key holds ~ or /, then the pointer escapes it per RFC 6901', () => {
    expect(escapePointerToken('a/b~c')).toBe('a~1b~0c');
    expect(diffJson({}, { 'a/b~c': 1 })).toEqual([{ action: 'add', pointer: '/a~1b~0c', value: 1 }]);
  });

  it('when a key is undefined, then it counts as absent', () => {
    expect(diffJson({ a: undefined }, {})).toEqual([]);
    expect(diffJson({ a: undefined }, { a: 1 })).toEqual([{ action: 'add', pointer: '/a', value: 1 }]);
  });

  it('when a nested object or array changes in hundreds of thousands of places, then every change is a patch', () => {
    // Each level spread its children's patches into a call's arguments: past ~120,000 that was a RangeError.
    const keys = Array.from({ length: 200_000 }, (_, index) => `k${index}`);
    const patches = diffJson(
      { categories: [{ metadata: {} }], list: [] },
      { categories: [{ metadata: Object.fromEntries(keys.map((key) => [key, 1])) }], list: keys },
    );
    expect(patches).toHaveLength(400_000);
    expect(patches[0]).toEqual({ action: 'add', pointer: '/categories/0/metadata/k0', value: 1 });
    expect(patches.at(-1)).toEqual({ action: 'add', pointer: '/list/199999', value: 'k199999' });
  });
});
