import {
  documentCursorKey,
  groupIncomingDocumentReferences,
  incomingCursorSignature,
  mediaCursorKey,
  nextKey,
  openIncomingCursor,
  type StoredIncomingReference,
} from '../../src/domain/incoming-references';
import { cursorCodec } from '../../src/domain/search-cursor';

const row = (
  sourceDocumentId: number,
  overrides: Partial<StoredIncomingReference> = {},
): StoredIncomingReference => ({
  sourceDocumentId,
  targetId: '7',
  location: 'metadata',
  propertyName: 'authors',
  componentId: null,
  componentName: null,
  directiveName: null,
  serviceName: null,
  ...overrides,
});

describe('groupIncomingDocumentReferences', () => {
  it('when rows of several sources come in source order, then one item per source with its references in row order', () => {
    const include = row(3, {
      location: 'include-directive',
      propertyName: 'doc',
      componentId: 'doc-1',
      componentName: 'embed',
      directiveName: 'teaser',
      serviceName: 'teaser',
    });
    expect(groupIncomingDocumentReferences([row(2), row(3), include])).toEqual([
      { id: 2, references: [{ id: '7', location: 'metadata', propertyName: 'authors', type: 'document' }] },
      {
        id: 3,
        references: [
          { id: '7', location: 'metadata', propertyName: 'authors', type: 'document' },
          {
            componentId: 'doc-1',
            componentName: 'embed',
            directiveName: 'teaser',
            id: '7',
            location: 'include-directive',
            propertyName: 'doc',
            serviceName: 'teaser',
            type: 'document',
          },
        ],
      },
    ]);
  });

  it('when a part is null, then it is left out, not sent as null', () => {
    const [item] = groupIncomingDocumentReferences([
      row(1, { propertyName: null, location: 'link-directive' }),
    ]);
    expect(item!.references[0]).toEqual({ id: '7', location: 'link-directive', type: 'document' });
  });

  it('when there are no rows, then no items', () => {
    expect(groupIncomingDocumentReferences([])).toEqual([]);
  });
});

describe('nextKey', () => {
  const key = (item: string) => item;

  it('when the page is full, then the key of its last item; on a short page or with limit 0, then null', () => {
    expect(nextKey(['b', 'c'], key, 2)).toBe('c');
    expect(nextKey(['d'], key, 2)).toBeNull();
    expect(nextKey([], key, 0)).toBeNull();
  });
});

describe('cursor keys', () => {
  it('when a document cursor holds one positive safe integer, then it is the key; anything else is refused', () => {
    expect(documentCursorKey([5])).toEqual({ ok: true, value: 5 });
    for (const values of [[], [0], [-1], [1.5], ['5'], [5, 6], [Number.MAX_SAFE_INTEGER + 1], [null]]) {
      expect(documentCursorKey(values).ok).toBe(false);
    }
  });

  it('when a media cursor holds one non-empty string, then it is the key; anything else is refused', () => {
    expect(mediaCursorKey(['m-1'])).toEqual({ ok: true, value: 'm-1' });
    for (const values of [[], [''], [5], ['a', 'b'], [null]]) {
      expect(mediaCursorKey(values).ok).toBe(false);
    }
  });
});

describe('openIncomingCursor', () => {
  const codec = cursorCodec(Buffer.alloc(32, 7));
  const ENDPOINT = 'incomingDocumentReferences:publication';
  const PROJECT = 3;
  const open = (after: string | undefined, id: number, endpoint = ENDPOINT) =>
    openIncomingCursor(
      codec,
      after,
      endpoint,
      { projectId: PROJECT, id, noun: 'document' },
      documentCursorKey,
    );
  const OTHER_LIST =
    'invalid cursor: it was issued for another list (the endpoint and its document must stay those of the ' +
    'first page); start again without after';

  it('when no cursor is sent, then no key', () => {
    expect(open(undefined, 5)).toEqual({ ok: true, value: undefined });
  });

  it('when the cursor was issued for the same endpoint and target, then its key', () => {
    expect(open(codec.encode([12], incomingCursorSignature(ENDPOINT, 5), PROJECT), 5)).toEqual({
      ok: true,
      value: 12,
    });
  });

  it('when the cursor was issued for another target, another endpoint or no target, then refused at after', () => {
    for (const cursor of [
      codec.encode([12], incomingCursorSignature(ENDPOINT, 6), PROJECT),
      codec.encode([12], incomingCursorSignature('incomingDocumentReferences:draft', 5), PROJECT),
      codec.encode([12], ENDPOINT, PROJECT),
    ]) {
      expect(open(cursor, 5)).toEqual({ ok: false, issues: [{ path: ['after'], message: OTHER_LIST }] });
    }
  });

  it('when the cursor was issued in another project, then refused at after, saying so', () => {
    expect(open(codec.encode([12], incomingCursorSignature(ENDPOINT, 5), PROJECT + 1), 5)).toEqual({
      ok: false,
      issues: [
        {
          path: ['after'],
          message: 'invalid cursor: it was issued for another project; start again without after',
        },
      ],
    });
  });

  it('when the cursor names no project (issued before cursors named one), then refused as another list', () => {
    expect(open(codec.encode([12], incomingCursorSignature(ENDPOINT, 5)), 5)).toEqual({
      ok: false,
      issues: [{ path: ['after'], message: OTHER_LIST }],
    });
  });

  it('when the target is a media id, then another id is another list; a document id signs as its digits', () => {
    expect(incomingCursorSignature('x', 'hero')).not.toBe(incomingCursorSignature('x', 'hero-2'));
    expect(incomingCursorSignature('x', 5)).toBe(incomingCursorSignature('x', '5'));
  });
});
