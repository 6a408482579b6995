import { z } from 'zod';
import { Handle } from './project-config';
import { fromZodIssues, invalid, readableIssueMessage, valid, type Checked, type Issue } from './validation';

/**
 * Menus (supplement §8) in the shape sites send and expect: `{handle, label, version, maxDepth, nodes}`, each
 * node `{id, label, type, uri | path | documentId, nodes}`; a `path` node may also name the document its path
 * leads to (`{type: 'path', path, documentId}`, as the vendor's menus link an article). Operators load them
 * from JSON files (the CLI's `menu load`); the API serves them as stored.
 */

/** The deepest a menu may nest: maxDepth counts levels below the top one (0 = a flat menu). */
export const MAX_MENU_DEPTH = 10;

export type MenuNode = { id: string; label: string; nodes: MenuNode[] } & (
  | { type: 'uri'; uri: string }
  | { type: 'path'; path: string; documentId?: string }
  | { type: 'document'; documentId: string }
);

export interface Menu {
  handle: string;
  label: string;
  /** From the file, when it has one; the stored version is decided when the menu is stored. */
  version?: number | undefined;
  maxDepth: number;
  nodes: MenuNode[];
}

/** The highest version a menu can have (Postgres `integer`): a changed menu stored at it cannot count up. */
export const MAX_MENU_VERSION = 2_147_483_647;

const MenuSchema = z.strictObject({
  handle: Handle,
  label: z.string().trim().min(1),
  version: z.number().int().positive().max(MAX_MENU_VERSION).optional(),
  maxDepth: z.number().int().min(0).max(MAX_MENU_DEPTH),
  nodes: z.array(z.unknown()),
});

const nodeFields = {
  id: z
    .string()
    .regex(/^[A-Za-z0-9_.:~-]{1,64}$/, 'must be 1 to 64 letters, digits, _ . : ~ or -')
    .optional(),
  label: z.string().trim().min(1),
  // Checked node by node by the walk below, so that each problem is reported at its own path.
  nodes: z.array(z.unknown()).default([]),
};

/** Links a site may render as they are: no `javascript:` or `data:` URIs in a menu. */
const LINK_PROTOCOLS = /^(https?|mailto|tel)$/;

const DOCUMENT_ID = 'must be a document id, e.g. "322"';

/** Sites send and expect a string ("322"); a number is accepted too. Ids stay exact up to 2^53 - 1. */
const documentId = z
  .union([z.string().regex(/^[1-9]\d*$/, DOCUMENT_ID), z.number().int().positive()], {
    error: DOCUMENT_ID,
  })
  .transform(String)
  .refine((id) => Number.isSafeInteger(Number(id)), `must be at most ${Number.MAX_SAFE_INTEGER}`);

/** One node without its children: what its type requires, and nothing else. */
const NodeSchema = z.discriminatedUnion('type', [
  z.strictObject({
    ...nodeFields,
    type: z.literal('uri'),
    uri: z.url({ protocol: LINK_PROTOCOLS, error: 'must be an absolute http, https, mailto or tel URI' }),
  }),
  z.strictObject({
    ...nodeFields,
    type: z.literal('path'),
    path: z.string().regex(/^\/\S*$/, "must be a path starting with '/', without spaces"),
    // The document the path leads to, when the site routes to one (supplement §8 lists documentId on nodes).
    documentId: documentId.optional(),
  }),
  z.strictObject({ ...nodeFields, type: z.literal('document'), documentId }),
]);

type ParsedNode = z.output<typeof NodeSchema>;

/** The node with its children in the key order sites expect; `id` given or generated. */
function nodeOf(parsed: ParsedNode, id: string, nodes: MenuNode[]): MenuNode {
  const { label } = parsed;
  switch (parsed.type) {
    case 'uri':
      return { id, label, type: 'uri', uri: parsed.uri, nodes };
    case 'path':
      return parsed.documentId === undefined
        ? { id, label, type: 'path', path: parsed.path, nodes }
        : { id, label, type: 'path', path: parsed.path, documentId: parsed.documentId, nodes };
    case 'document':
      return { id, label, type: 'document', documentId: parsed.documentId, nodes };
  }
}

/**
 * Stored nodes in the key order sites expect, at every level: Postgres keeps jsonb keys shortest first
 * (`id, type, label, nodes, documentId`), so what the menu was stored with is not what comes back.
 */
export function nodesInSiteOrder(nodes: readonly MenuNode[]): MenuNode[] {
  return nodes.map((node) => nodeOf(node, node.id, nodesInSiteOrder(node.nodes)));
}

/** Every node of a menu that names a document (a document node, a path node's documentId) with its path. */
export type MenuDocumentNode = { documentId: number; path: PropertyKey[] };

/**
 * The documents a stored menu links to, at any depth (its document nodes' ids and its path nodes'
 * documentIds, the nodes a load looks up: inspectMenu's documentNodes). A load compares the file with
 * them (addedDocumentNodes): a menu keeps linking to a document that is gone since (no key ties a node to its
 * document), and reloading the file must not be blocked by a node the menu held before.
 */
export function menuDocumentIds(nodes: readonly MenuNode[]): Set<number> {
  const ids = new Set<number>();
  const walk = (level: readonly MenuNode[]) =>
    level.forEach((node) => {
      if (node.type !== 'uri' && node.documentId !== undefined) ids.add(Number(node.documentId));
      walk(node.nodes);
    });
  walk(nodes);
  return ids;
}

/**
 * The document nodes of a file that name a document the stored menu (`stored`, menuDocumentIds of the menu the
 * load replaces) does not link to anywhere: only these are looked up, so an id the menu held already passes, in
 * its place or another, its document gone or not; one it no longer holds is new again.
 */
export function addedDocumentNodes(
  documentNodes: readonly MenuDocumentNode[],
  stored: ReadonlySet<number>,
): MenuDocumentNode[] {
  return documentNodes.filter((node) => !stored.has(node.documentId));
}

/**
 * Checks a menu as a file holds it and gives it back with every node's `id`: an `id` in the file is kept
 * (unique within the menu); a node without one gets its position, 1-based indices joined by '.' (`2.1` is
 * the first child of the second top node), made unique with a `~n` suffix should the file use that id for
 * another node. A node nested below `maxDepth` (0 = top level only) is refused. Every problem is reported at
 * its path (`nodes.0.nodes.1.documentId`).
 */
export function checkMenu(input: unknown): Checked<Menu> {
  return inspectMenu(input).checked;
}

/**
 * `checkMenu`, and the document nodes of the file whose own shape is valid, also when other parts of the
 * file are not: so that `menu load` can name unknown documents in the same run as the file's other problems.
 * The nodes are walked even when the menu's own keys or a parent node are wrong (as long as `nodes` is an
 * array), and a node too deep is named once, its own shape and its children's still checked; depth is not checked when
 * `maxDepth` itself is invalid.
 */
export function inspectMenu(input: unknown): { checked: Checked<Menu>; documentNodes: MenuDocumentNode[] } {
  const issues: Issue[] = [];
  const documentNodes: MenuDocumentNode[] = [];
  const top = MenuSchema.safeParse(input, { error: readableIssueMessage });
  if (!top.success) issues.push(...fromZodIssues(top.error.issues));
  const record = typeof input === 'object' && input !== null && !Array.isArray(input) ? input : undefined;
  const rawNodes = top.success
    ? top.data.nodes
    : record !== undefined && 'nodes' in record && Array.isArray(record.nodes)
      ? (record.nodes as unknown[])
      : [];
  const maxDepth = top.success
    ? top.data.maxDepth
    : MenuSchema.shape.maxDepth.safeParse(
        record !== undefined && 'maxDepth' in record ? record.maxDepth : undefined,
      ).data;
  const explicitIds = new Map<string, string>();

  // First the nodes themselves, so that every explicit id is known before any is generated.
  interface Parsed {
    node: ParsedNode;
    position: string;
    children: Parsed[];
  }
  /** `tooDeep`: an ancestor was already named as too deep, so its descendants are not named again. */
  const parse = (
    raw: unknown[],
    path: PropertyKey[],
    position: string,
    depth: number,
    tooDeep: boolean,
  ): Parsed[] =>
    raw.flatMap((value, index) => {
      const at = [...path, index];
      const here = position === '' ? String(index + 1) : `${position}.${index + 1}`;
      let deep = tooDeep;
      if (!deep && maxDepth !== undefined && depth > maxDepth) {
        issues.push({
          path: at,
          message: `is at depth ${depth} (the top level is 0), deeper than maxDepth ${maxDepth}`,
        });
        deep = true;
      }
      const parsed = NodeSchema.safeParse(value, { error: readableIssueMessage });
      if (!parsed.success) {
        issues.push(
          ...fromZodIssues(parsed.error.issues).map((issue) => ({ ...issue, path: [...at, ...issue.path] })),
        );
        // Its children are still checked (and their documents looked up), so that one run names them too.
        const children =
          typeof value === 'object' && value !== null && 'nodes' in value ? value.nodes : undefined;
        if (Array.isArray(children)) parse(children, [...at, 'nodes'], here, depth + 1, deep);
        return [];
      }
      if (parsed.data.type !== 'uri' && parsed.data.documentId !== undefined) {
        documentNodes.push({ documentId: Number(parsed.data.documentId), path: at });
      }
      const { id } = parsed.data;
      if (id !== undefined) {
        const first = explicitIds.get(id);
        if (first === undefined) explicitIds.set(id, at.join('.'));
        else issues.push({ path: [...at, 'id'], message: `'${id}' is already the id of ${first}` });
      }
      return [
        {
          node: parsed.data,
          position: here,
          children: parse(parsed.data.nodes, [...at, 'nodes'], here, depth + 1, deep),
        },
      ];
    });
  const parsed = parse(rawNodes, ['nodes'], '', 0, false);
  if (!top.success || issues.length > 0) return { checked: invalid(issues), documentNodes };
  const { nodes: _nodes, ...menu } = top.data;

  const taken = new Set(explicitIds.keys());
  const build = (items: Parsed[]): MenuNode[] =>
    items.map(({ node, position, children }) => {
      let id = node.id;
      if (id === undefined) {
        id = position;
        for (let n = 2; taken.has(id); n += 1) id = `${position}~${n}`;
        taken.add(id);
      }
      return nodeOf(node, id, build(children));
    });
  return { checked: valid({ ...menu, nodes: build(parsed) }), documentNodes };
}
