import { checkCursorProject, issuedForOther, type CursorCodec } from './search-cursor';
import { invalid, under, valid, type Checked } from './validation';

/** One reference of an incoming document reference (api-spec §2.9); absent parts are left out. */
export interface IncomingDocumentReference {
  componentId?: string;
  componentName?: string;
  directiveName?: string;
  id: string;
  location: string;
  propertyName?: string;
  serviceName?: string;
  type: 'document';
}

/** A document that points at another one, with every reference it makes to it (api-spec §2.9). */
export interface IncomingDocumentItem {
  id: number;
  references: IncomingDocumentReference[];
}

/** One stored reference to a document, with the document it comes from (api-spec §2.9): what the query reads. */
export interface StoredIncomingReference {
  sourceDocumentId: number;
  targetId: string;
  location: string;
  propertyName: string | null;
  componentId: string | null;
  componentName: string | null;
  directiveName: string | null;
  serviceName: string | null;
}

/** Rows ordered by source document → one item per source, in that order, its references in row order. */
export function groupIncomingDocumentReferences(
  rows: readonly StoredIncomingReference[],
): IncomingDocumentItem[] {
  const items: IncomingDocumentItem[] = [];
  for (const row of rows) {
    let item = items.at(-1);
    if (item?.id !== row.sourceDocumentId) {
      item = { id: row.sourceDocumentId, references: [] };
      items.push(item);
    }
    item.references.push({
      ...(row.componentId === null ? {} : { componentId: row.componentId }),
      ...(row.componentName === null ? {} : { componentName: row.componentName }),
      ...(row.directiveName === null ? {} : { directiveName: row.directiveName }),
      id: row.targetId,
      location: row.location,
      ...(row.propertyName === null ? {} : { propertyName: row.propertyName }),
      ...(row.serviceName === null ? {} : { serviceName: row.serviceName }),
      type: 'document',
    });
  }
  return items;
}

/** Where a page of incoming references starts: a cursor's last key, or an offset. */
export interface IncomingPage<K> {
  limit: number;
  offset: number;
  after?: K | undefined;
}

/** The key of a full page's last item, null otherwise. */
export function nextKey<T, K>(results: readonly T[], keyOf: (item: T) => K, limit: number): K | null {
  return limit > 0 && results.length === limit ? keyOf(results.at(-1)!) : null;
}

const UNFIT = 'invalid cursor: it was not issued by this endpoint; start again without after';

/** A decoded cursor's values of a document-keyed page: one positive safe integer. */
export function documentCursorKey(values: readonly unknown[]): Checked<number> {
  const [key] = values;
  return values.length === 1 && Number.isSafeInteger(key) && (key as number) > 0
    ? valid(key as number)
    : invalid([{ path: [], message: UNFIT }]);
}

/** A decoded cursor's values of a media-keyed page: one non-empty string. */
export function mediaCursorKey(values: readonly unknown[]): Checked<string> {
  const [key] = values;
  return values.length === 1 && typeof key === 'string' && key !== ''
    ? valid(key)
    : invalid([{ path: [], message: UNFIT }]);
}

/**
 * What a cursor of an incoming-references list is signed for: the endpoint (whose references, keyed how) and
 * the target whose references it pages through. A cursor says where in one target's list a page starts, so
 * one of another endpoint or of another target is refused, as a search's cursor is under another search. The
 * cursor also names the target's project (CursorCodec.encode's projectId): a media library entry's id is only
 * unique in its project.
 */
export function incomingCursorSignature(endpoint: string, target: string | number): string {
  return `${endpoint}\n${String(target)}`;
}

/**
 * The key of the last item of the previous page from an `after` cursor (undefined without one), checked to be
 * a cursor this server issued for this endpoint and this target of this project (`noun` names the target in
 * the 400); the issues are keyed `after`. One of another project is refused as a search's is
 * (checkCursorProject); one that names no project was issued before cursors did and says not whose list it
 * pages, so it is refused as another list is.
 */
export function openIncomingCursor<K>(
  cursors: CursorCodec,
  after: string | undefined,
  endpoint: string,
  target: { projectId: number; id: string | number; noun: string },
  keyOf: (values: readonly unknown[]) => Checked<K>,
): Checked<K | undefined> {
  if (after === undefined) return valid(undefined);
  const otherList = `another list (the endpoint and its ${target.noun} must stay those of the first page)`;
  const opened = cursors.decode(after, incomingCursorSignature(endpoint, target.id), otherList);
  if (!opened.ok) return under('after', opened);
  const { projectId, values } = opened.value;
  const issuedHere =
    projectId === undefined ? issuedForOther(otherList) : checkCursorProject(projectId, target.projectId);
  return under('after', issuedHere.ok ? keyOf(values) : issuedHere);
}
