import type sanitizeHtml from 'sanitize-html';

/** Targets that stay in a browsing context the page already has; any other (`_blank`, a name) may open a tab. */
const SAME_CONTEXT_TARGETS = new Set(['', '_self', '_parent', '_top']);

/**
 * The rel a link with this target needs: for one that may open a new tab, its rel with `noopener noreferrer`
 * (an `opener` asked for goes), without which the opened page could navigate the linking page through
 * window.opener (reverse tabnabbing); undefined when the target keeps to the page's own browsing contexts.
 */
export function newTabRel(target: string | undefined, rel: string | undefined): string | undefined {
  if (SAME_CONTEXT_TARGETS.has((target ?? '').toLowerCase())) return undefined;
  const tokens = (rel ?? '').split(/\s+/).filter((token) => token !== '' && token.toLowerCase() !== 'opener');
  for (const token of ['noopener', 'noreferrer']) if (!tokens.includes(token)) tokens.push(token);
  return tokens.join(' ');
}

/** sanitize-html's transform of an `a`: a link that may open a new tab gets its newTabRel. */
export const noOpener: sanitizeHtml.Transformer = (tagName, attribs) => {
  const rel = newTabRel(attribs.target, attribs.rel);
  return { tagName, attribs: rel === undefined ? attribs : { ...attribs, rel } };
};
