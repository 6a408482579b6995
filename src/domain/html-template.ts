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

// A start tag, an end tag or a comment, read as the single regular expression
//   /<!--[\s\S]*?-->|<\/([a-zA-Z][\w:-]*)\s*>|<([a-zA-Z][\w:-]*)((?:ATTRIBUTE_SOURCE)*)\s*(\/?)>/g
// would read them, in pieces: that expression started over from every `<` and ran to the end of the text
// when nothing closed, so a template of `<a b=c <a b=c ...` (an attribute may be named `<a`) or of `<!--`
// without `-->` took time quadratic in its length (100,000 characters: 8 to 15 s per render). Attribute
// names and values are delimited so that a tag's attributes read one way only: where its attributes go on
// from a given position does not depend on where the tag began, so it is worked out once per position.
const END_TAG = /<\/([a-zA-Z][\w:-]*)\s*>/y;
const TAG_NAME = /<([a-zA-Z][\w:-]*)/y;
const ATTRIBUTE_SOURCE = /\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?/y;
const TAG_CLOSE = /\s*(\/?)>/y;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

export interface TagMatch {
  index: number;
  /** Just after the match. */
  end: number;
  endTag?: string;
  startTag?: string;
  attributeSource?: string;
  selfClosing?: string;
}

/** How a start tag's attributes end from a position: where they end and the tag's close, or never (null). */
type AttributesEnd = { attributesEnd: number; end: number; selfClosing: string } | null;

/** The tags and comments of a template in order, as the regular expression above matches them. */
export function* scanTags(template: string): Generator<TagMatch> {
  const attributesEnds = new Map<number, AttributesEnd>();
  // Where a `-->` was last looked for in vain: no comment opening after it closes.
  let noCommentCloseFrom = Infinity;

  const attributesEndFrom = (start: number): AttributesEnd => {
    const passed: number[] = [];
    let at = start;
    let found: AttributesEnd | undefined;
    while ((found = attributesEnds.get(at)) === undefined) {
      passed.push(at);
      ATTRIBUTE_SOURCE.lastIndex = at;
      if (ATTRIBUTE_SOURCE.test(template)) {
        at = ATTRIBUTE_SOURCE.lastIndex;
        continue;
      }
      TAG_CLOSE.lastIndex = at;
      const close = TAG_CLOSE.exec(template);
      found = close ? { attributesEnd: at, end: TAG_CLOSE.lastIndex, selfClosing: close[1]! } : null;
      break;
    }
    for (const position of passed) attributesEnds.set(position, found);
    return found;
  };

  const matchAt = (index: number): TagMatch | undefined => {
    if (template.startsWith('<!--', index)) {
      const close = index + 4 >= noCommentCloseFrom ? -1 : template.indexOf('-->', index + 4);
      if (close === -1) {
        noCommentCloseFrom = Math.min(noCommentCloseFrom, index + 4);
        return undefined;
      }
      return { index, end: close + 3 };
    }
    END_TAG.lastIndex = index;
    const endTag = END_TAG.exec(template);
    if (endTag) return { index, end: END_TAG.lastIndex, endTag: endTag[1]! };
    TAG_NAME.lastIndex = index;
    const startTag = TAG_NAME.exec(template);
    if (!startTag) return undefined;
    const nameEnd = TAG_NAME.lastIndex;
    const attributes = attributesEndFrom(nameEnd);
    if (!attributes) return undefined;
    return {
      index,
      end: attributes.end,
      startTag: startTag[1]!,
      attributeSource: template.slice(nameEnd, attributes.attributesEnd),
      selfClosing: attributes.selfClosing,
    };
  };

  let from = template.indexOf('<');
  while (from !== -1) {
    const match = matchAt(from);
    if (match) yield match;
    from = template.indexOf('<', match ? match.end : from + 1);
  }
}

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
  // How many elements of each tag are open: an end tag that closes none is dropped without a search of the
  // open elements (each `</b>` after 16,000 open `<a>` searched them all, 3.6 s over 96,000 characters).
  const openByTag = new Map<string, number>();
  const current = () => open[open.length - 1]!;
  let at = 0;
  for (const match of scanTags(template)) {
    if (match.index > at) current().children.push({ kind: 'text', text: template.slice(at, match.index) });
    at = match.end;
    const { endTag, startTag, attributeSource = '', selfClosing } = match;
    if (endTag !== undefined) {
      const name = endTag.toLowerCase();
      if (!openByTag.get(name)) continue;
      const depth = open.findLastIndex((element) => element.tag === name);
      for (const closed of open.splice(depth)) openByTag.set(closed.tag, openByTag.get(closed.tag)! - 1);
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
    if (!element.isVoid) {
      open.push(element);
      openByTag.set(tag, (openByTag.get(tag) ?? 0) + 1);
    }
  }
  if (at < template.length) current().children.push({ kind: 'text', text: template.slice(at) });
  return root.children;
}
