/**
 * A small parser for a design component's HTML template (`<div class="x"><div doc-editable="title"></div></div>`):
 * elements, attributes and text, enough to find the directive elements and fill them. Never evaluates
 * anything; markup it cannot read stays text.
 */
export type TemplateNode = TemplateElement | { kind: 'text'; text: string };

export interface TemplateElement {
  kind: 'element';
  tag: string;
  /** In template order; a value is the raw attribute text (entities as written), undefined for `<x disabled>`. */
  attributes: [name: string, value: string | undefined][];
  children: TemplateNode[];
  /** A void element (`<img>`, `<br>`) or one written self-closing: it has no end tag. */
  isVoid: boolean;
}

const VOID_TAGS = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);

// A start tag, an end tag or a comment. Attribute values may be double-, single- or unquoted.
const TAG =
  /<!--[\s\S]*?-->|<\/([a-zA-Z][\w:-]*)\s*>|<([a-zA-Z][\w:-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*(\/?)>/g;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function parseAttributes(source: string): TemplateElement['attributes'] {
  const attributes: TemplateElement['attributes'] = [];
  for (const match of source.matchAll(ATTRIBUTE)) {
    const [, name, doubleQuoted, singleQuoted, bare] = match;
    if (name === undefined) continue;
    attributes.push([name.toLowerCase(), doubleQuoted ?? singleQuoted ?? bare]);
  }
  return attributes;
}

/**
 * The template as a tree. An end tag without its start tag is dropped; an element left open at the end is
 * closed there. Comments are dropped.
 */
export function parseTemplate(template: string): TemplateNode[] {
  const root: TemplateElement = {
    kind: 'element',
    tag: '#root',
    attributes: [],
    children: [],
    isVoid: false,
  };
  const open: TemplateElement[] = [root];
  const current = () => open[open.length - 1]!;
  let at = 0;
  for (const match of template.matchAll(TAG)) {
    if (match.index > at) current().children.push({ kind: 'text', text: template.slice(at, match.index) });
    at = match.index + match[0].length;
    const [, endTag, startTag, attributeSource = '', selfClosing] = match;
    if (endTag !== undefined) {
      const name = endTag.toLowerCase();
      const depth = open.findLastIndex((element) => element.tag === name);
      if (depth > 0) open.length = depth;
      continue;
    }
    if (startTag === undefined) continue; // a comment
    const tag = startTag.toLowerCase();
    const element: TemplateElement = {
      kind: 'element',
      tag,
      attributes: parseAttributes(attributeSource),
      children: [],
      isVoid: VOID_TAGS.has(tag) || selfClosing === '/',
    };
    current().children.push(element);
    if (!element.isVoid) open.push(element);
  }
  if (at < template.length) current().children.push({ kind: 'text', text: template.slice(at) });
  return root.children;
}
