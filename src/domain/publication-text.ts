import {
  componentName,
  isRecord,
  walkComponents,
  type Component,
  type Content,
  type Metadata,
} from './content';
import { characterCount } from './shown-input';

/** What full-text search indexes of one publication (supplement §5). */
export interface SearchText {
  title?: string;
  description?: string;
  /** Plain text of the content's text directives, one per line, in document order. */
  text: string;
}

/** The `statistics.*` filter keys of search (supplement §5). */
export interface PublicationStatistics {
  characterCount: number;
  componentCount: Record<string, number>;
}

/** Directives whose value is markup to render, never words to find. */
const MARKUP_DIRECTIVES = new Set(['free-html', 'html', 'script']);
const MARKUP_COMPONENTS = new Set(['free-html']);

/** Inside an object value (an image, a link) only these keys carry words a reader sees. */
const NESTED_TEXT_KEYS = new Set([
  'alt',
  'altText',
  'caption',
  'credit',
  'description',
  'label',
  'source',
  'subtitle',
  'text',
  'title',
]);

const MACHINE_KEY =
  /^(id|key|url|uri|href|src|target|rel|mimeType|filename|locale|layout|service)$|(Id|Url|Uri|Href|Src)$/;
const MACHINE_VALUE = /^(https?:\/\/|mailto:|\/\/|\/)\S*$|^doc-[A-Za-z0-9_-]+$/;

/** A Map: the names come from stored HTML, and `&constructor;` must not find Object.prototype's. */
export const NAMED_ENTITIES: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
  ['nbsp', '\u00a0'],
  ['shy', ''],
  ['ndash', '\u2013'],
  ['mdash', '\u2014'],
  ['hellip', '\u2026'],
  ['lsquo', '\u2018'],
  ['rsquo', '\u2019'],
  ['sbquo', '\u201a'],
  ['ldquo', '\u201c'],
  ['rdquo', '\u201d'],
  ['bdquo', '\u201e'],
  ['laquo', '\u00ab'],
  ['raquo', '\u00bb'],
  ['lsaquo', '\u2039'],
  ['rsaquo', '\u203a'],
  ['copy', '\u00a9'],
  ['reg', '\u00ae'],
  ['trade', '\u2122'],
  ['euro', '\u20ac'],
  ['pound', '\u00a3'],
  ['yen', '\u00a5'],
  ['cent', '\u00a2'],
  ['deg', '\u00b0'],
  ['middot', '\u00b7'],
  ['bull', '\u2022'],
  ['times', '\u00d7'],
  ['divide', '\u00f7'],
  ['sect', '\u00a7'],
  ['para', '\u00b6'],
  ['auml', '\u00e4'],
  ['ouml', '\u00f6'],
  ['uuml', '\u00fc'],
  ['Auml', '\u00c4'],
  ['Ouml', '\u00d6'],
  ['Uuml', '\u00dc'],
  ['szlig', '\u00df'],
  ['eacute', '\u00e9'],
  ['egrave', '\u00e8'],
  ['agrave', '\u00e0'],
  ['ccedil', '\u00e7'],
]);

// Tags that end a block: replaced by a space so "<p>one</p><p>two</p>" does not read "onetwo".
const BLOCK_TAG_NAMES: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);
const LONGEST_BLOCK_TAG_NAME = Math.max(...[...BLOCK_TAG_NAMES].map((name) => name.length));

/** Elements whose content is never words a reader sees: `<script …>…</script>` goes as a whole. */
const RAW_TEXT_OPEN = /<(script|style|noscript|template)\b/gi;
const RAW_TEXT_CLOSE: Readonly<Record<string, RegExp>> = {
  script: /<\/script\s*>/gi,
  style: /<\/style\s*>/gi,
  noscript: /<\/noscript\s*>/gi,
  template: /<\/template\s*>/gi,
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z][a-z0-9]*);/gi, (entity, body: string) => {
    if (body.startsWith('#')) {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES.get(body) ?? entity;
  });
}

/** The words of an HTML fragment as a reader sees them: tags gone, entities decoded, whitespace collapsed. */
export function htmlToPlainText(html: string): string {
  // Fast paths (most directive values are plain text): with no '<' there is no tag or comment to remove,
  // with no '&' no entity to decode, and with no whitespace but single spaces nothing to collapse.
  const withoutTags = !html.includes('<') ? html : stripTags(html);
  const decoded = withoutTags.includes('&') ? decodeEntities(withoutTags) : withoutTags;
  return COLLAPSIBLE_SPACE.test(decoded) ? decoded.replace(/\s+/g, ' ').trim() : decoded.trim();
}

/** Whitespace that `\s+` → ' ' would change: any whitespace but a plain space, or two spaces in a row. */
const COLLAPSIBLE_SPACE = /[^\S ]| {2}/;

/**
 * Comments, script-like elements and tags out; entities are decoded after, so "&lt;b&gt;" stays text.
 *
 * Four passes, each the exact result of the `replace` it stands for (the unit test holds them to it):
 * `/<!--[\s\S]*?-->/g` → ' ', `/<(script|style|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi` → ' ',
 * the block tags (`/<\/?(?:p|br|…)\b[^>]*>/gi`) → ' ', then `/<\/?[a-z][^>]*>/gi` → ''. Each pass finds its
 * next start and then the first end after it once: those expressions searched the rest of the text for an
 * end from every start that had none, so `<a<a<a…` or `<p<p<p…` cost time in the square of its length
 * (10 s for 80,000 characters) and one long directive stalled the indexing worker. Exported for that test.
 */
export function stripTags(html: string): string {
  return stripInlineTags(stripBlockTags(stripRawTextElements(stripComments(html))));
}

/** `/<!--[\s\S]*?-->/g` → ' '. Once a `<!--` has no `-->` after it, no later one has. */
function stripComments(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const start = text.indexOf('<!--', from);
    if (start < 0) break;
    const end = text.indexOf('-->', start + 4);
    if (end < 0) break;
    out += `${text.slice(from, start)} `;
    from = end + 3;
  }
  return out + text.slice(from);
}

/**
 * `/<(script|style|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi` → ' '. Once an opening tag has no `>`
 * after it no later one has; once an element has no closing tag after its opening one, no later element of
 * that name has either, so each name's closing tag is searched for in vain at most once.
 */
function stripRawTextElements(text: string): string {
  let out = '';
  let from = 0;
  const unclosed = new Set<string>();
  RAW_TEXT_OPEN.lastIndex = 0;
  for (let open = RAW_TEXT_OPEN.exec(text); open !== null; open = RAW_TEXT_OPEN.exec(text)) {
    const name = (open[1] ?? '').toLowerCase();
    const close = RAW_TEXT_CLOSE[name];
    if (close === undefined || unclosed.has(name)) continue;
    const tagEnd = text.indexOf('>', RAW_TEXT_OPEN.lastIndex);
    if (tagEnd < 0) break;
    close.lastIndex = tagEnd + 1;
    const closing = close.exec(text);
    if (closing === null) {
      unclosed.add(name);
      continue;
    }
    out += `${text.slice(from, open.index)} `;
    from = closing.index + closing[0].length;
    RAW_TEXT_OPEN.lastIndex = from;
  }
  return out + text.slice(from);
}

/** `BLOCK_TAG_NAMES` as `/<\/?(?:address|…|ul)\b[^>]*>/gi` → ' ': the whole word after `<` or `</` is a name. */
function stripBlockTags(text: string): string {
  let out = '';
  let from = 0;
  for (let lt = text.indexOf('<'); lt >= 0; lt = text.indexOf('<', lt + 1)) {
    const nameStart = text[lt + 1] === '/' ? lt + 2 : lt + 1;
    let nameEnd = nameStart;
    // One character past the longest name is enough to tell a longer word from a name.
    while (nameEnd - nameStart <= LONGEST_BLOCK_TAG_NAME && isWordChar(text.charCodeAt(nameEnd)))
      nameEnd += 1;
    if (!BLOCK_TAG_NAMES.has(text.slice(nameStart, nameEnd).toLowerCase())) continue;
    const tagEnd = text.indexOf('>', nameEnd);
    // No '>' after this tag start: none after any later one either.
    if (tagEnd < 0) break;
    out += `${text.slice(from, lt)} `;
    from = tagEnd + 1;
    lt = tagEnd;
  }
  return out + text.slice(from);
}

/** `/<\/?[a-z][^>]*>/gi` → ''. */
function stripInlineTags(text: string): string {
  let out = '';
  let from = 0;
  for (let lt = text.indexOf('<'); lt >= 0; lt = text.indexOf('<', lt + 1)) {
    const letter = text[lt + 1] === '/' ? lt + 2 : lt + 1;
    if (!isAsciiLetter(text.charCodeAt(letter))) continue;
    const tagEnd = text.indexOf('>', letter + 1);
    if (tagEnd < 0) break;
    out += text.slice(from, lt);
    from = tagEnd + 1;
    lt = tagEnd;
  }
  return out + text.slice(from);
}

/** `[a-z]` under the `i` flag without `u`: the ASCII letters only. NaN (past the end) is none. */
function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** `\w` (and so `\b`) without the `u` flag: ASCII letters, digits and '_'. */
function isWordChar(code: number): boolean {
  return isAsciiLetter(code) || (code >= 0x30 && code <= 0x39) || code === 0x5f;
}

function isMachineText(key: string, value: string): boolean {
  return MACHINE_KEY.test(key) || MACHINE_VALUE.test(value.trim());
}

/** Texts inside an object directive (an image's caption, a link's title); never a reference's preloaded value. */
function nestedTexts(value: unknown, into: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) nestedTexts(item, into);
    return;
  }
  if (!isRecord(value) || '$ref' in value || (typeof value.service === 'string' && 'params' in value)) return;
  for (const [key, nested] of Object.entries(value)) {
    if (typeof nested === 'string') {
      if (NESTED_TEXT_KEYS.has(key) && !isMachineText(key, nested)) into.push(nested);
    } else {
      nestedTexts(nested, into);
    }
  }
}

function componentTexts(component: Component): string[] {
  if (!isRecord(component.content) || MARKUP_COMPONENTS.has(componentName(component))) return [];
  const raw: string[] = [];
  for (const [directive, value] of Object.entries(component.content)) {
    if (MARKUP_DIRECTIVES.has(directive)) continue;
    if (typeof value === 'string') {
      if (!isMachineText(directive, value)) raw.push(value);
    } else {
      nestedTexts(value, raw);
    }
  }
  return raw.map(htmlToPlainText).filter((text) => text !== '');
}

function contentText(content: Content): string {
  const lines: string[] = [];
  // Not push(...texts): one component can hold more directives than one call takes as arguments.
  for (const component of walkComponents(content))
    for (const text of componentTexts(component)) lines.push(text);
  return lines.join('\n');
}

function metadataText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = htmlToPlainText(value);
  return text === '' ? undefined : text;
}

/** Title, description and content text of one publication, as plain text for full-text search. */
export function extractSearchText(metadata: Metadata, content: Content): SearchText {
  const title = metadataText(metadata.title);
  const description = metadataText(metadata.description);
  return {
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    text: contentText(content),
  };
}

/**
 * `characterCount` counts the characters (code points, so an emoji is one) of the content's plain text as
 * `extractSearchText` builds it; `componentCount` counts components by name, nested ones included.
 */
export function computeStatistics(
  content: Content,
  /** `extractSearchText(…, content).text` when the caller has it already: it is the costly part. */
  text: string = contentText(content),
): PublicationStatistics {
  const counts = new Map<string, number>();
  for (const component of walkComponents(content)) {
    const name = componentName(component);
    // A nameless component cannot become a `statistics.componentCount.<name>` field.
    if (name === '') continue;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  // fromEntries defines own properties, so even a component named "__proto__" is just counted.
  return { characterCount: characterCount(text), componentCount: Object.fromEntries(counts) };
}
