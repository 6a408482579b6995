import type sanitizeHtml from 'sanitize-html';
import { lazyModule } from '../lazy-module';
import { componentKey, componentName, isRecord, type Component, type Content } from './content';
import type { Design, DesignComponent } from './design';
import { parseTemplate, type TemplateElement, type TemplateNode } from './html-template';
import { newTabRel, noOpener } from './new-tab-links';
import { simpleMarkup } from './simple-markup';
import { finishSteps, type Pause, type Steps } from './steps';

/**
 * The `html` of POST composition/{documentId} (api-spec §4.4): each component through its design template,
 * its directive elements filled with the component's content, made safe on the way in. README "Composition"
 * describes the rules.
 */
export interface HtmlRenderOptions {
  /** Marks each component's root element and each directive element with data attributes. */
  renderDirectiveInfo: boolean;
}

const DIRECTIVE_KINDS = ['editable', 'image', 'html', 'link', 'include', 'container', 'style'] as const;
type DirectiveKind = (typeof DIRECTIVE_KINDS)[number];

export const escapeHtml = (value: string): string =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** An attribute value as text: the named entities escapeHtml writes and numeric ones decoded. */
function decodeEntities(value: string): string {
  return value.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : Number(body.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return ENTITIES[body.toLowerCase()] ?? entity;
  });
}

/**
 * sanitize-html (with postcss and htmlparser2): loaded at the first markup made safe, which composition,
 * renditions and delivery reports make, never a plain document or list read.
 */
export const loadSanitizeHtml = lazyModule<typeof sanitizeHtml>('sanitize-html');

/** The tags rich text keeps. */
const RICH_TEXT_TAGS = [
  'b',
  'strong',
  'i',
  'em',
  'u',
  's',
  'sub',
  'sup',
  'br',
  'a',
  'span',
  'code',
  'mark',
  'small',
];

/** sanitize-html's options for rich text; exported for the tests that compare simpleMarkup with it. */
export const RICH_TEXT_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: RICH_TEXT_TAGS,
  allowedAttributes: { a: ['href', 'target', 'rel'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  disallowedTagsMode: 'escape',
  transformTags: { a: noOpener },
};

/** The rich-text tags simpleMarkup may answer for: all but `a`, whose href and target need checking. */
export const RICH_TEXT_SIMPLE_TAGS: ReadonlySet<string> = new Set(
  RICH_TEXT_TAGS.filter((tag) => tag !== 'a'),
);

/** Rich text of an editable directive: inline formatting and safe links stay, any other markup is escaped. */
export function sanitizeRichText(value: string): string {
  return simpleMarkup(value, RICH_TEXT_SIMPLE_TAGS) ?? loadSanitizeHtml()(value, RICH_TEXT_OPTIONS);
}

/**
 * sanitize-html's transform of an iframe: its src stays only when an absolute https URL. sanitize-html's scheme
 * check lets relative ones pass: `//host/x` follows an http page to http, `/x` frames the rendering site.
 */
const httpsFrame: sanitizeHtml.Transformer = (tagName, attribs) => {
  const { src, ...rest } = attribs;
  return { tagName, attribs: src !== undefined && /^\s*https:/i.test(src) ? attribs : rest };
};

let embedOptions: sanitizeHtml.IOptions | undefined;

/** sanitize-html's options for an embed (they extend its default tags, so they wait for it to load). */
export function embedSanitizeOptions(): sanitizeHtml.IOptions {
  embedOptions ??= {
    allowedTags: [...loadSanitizeHtml().defaults.allowedTags, 'img', 'iframe', 'figure', 'figcaption'],
    allowedAttributes: {
      a: ['href', 'target', 'rel', 'title'],
      img: ['src', 'alt', 'width', 'height', 'title'],
      iframe: ['src', 'width', 'height', 'title', 'allow', 'allowfullscreen', 'frameborder'],
      blockquote: ['class', 'cite'],
    },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { iframe: ['https'] },
    disallowedTagsMode: 'discard',
    transformTags: { a: noOpener, iframe: httpsFrame },
  };
  return embedOptions;
}

/**
 * The embed tags simpleMarkup may answer for: the rich-text ones and `p`, all among sanitize-html's default
 * tags (a unit test checks).
 */
export const EMBED_SIMPLE_TAGS: ReadonlySet<string> = new Set([...RICH_TEXT_SIMPLE_TAGS, 'p']);

/** An html directive (an embed): ordinary markup and https iframes stay; scripts, styles, handlers go. */
export function sanitizeEmbed(value: string): string {
  return simpleMarkup(value, EMBED_SIMPLE_TAGS) ?? loadSanitizeHtml()(value, embedSanitizeOptions());
}

const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);

/** The URL if it is relative or of a safe scheme; javascript:, data: and the like give undefined. */
export function safeUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // The check reads the URL as written: trim() also drops Unicode spaces (NBSP, BOM…) browsers keep, so a
  // "\u00a0javascript:" checked untrimmed would look relative and be written as "javascript:".
  const url = value.trim();
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:"): so does this check.
  // eslint-disable-next-line no-control-regex
  const compact = url.replace(/[\u0000-\u0020\u007f]/g, '');
  if (compact === '') return undefined;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(compact)?.[1];
  if (scheme !== undefined && !SAFE_SCHEMES.has(scheme.toLowerCase())) return undefined;
  return url;
}

const LINK_TARGETS = new Set(['_blank', '_self', '_parent', '_top']);

type Attributes = TemplateElement['attributes'];

function serializeAttributes(attributes: Attributes): string {
  return attributes
    .map(([name, value]) =>
      value === undefined ? ` ${name}` : ` ${name}="${value.replace(/"/g, '&quot;')}"`,
    )
    .join('');
}

function setAttribute(attributes: Attributes, name: string, rawValue: string): void {
  const encoded = escapeHtml(rawValue);
  const existing = attributes.find(([key]) => key === name);
  if (existing) existing[1] = encoded;
  else attributes.push([name, encoded]);
}

/** The design components by name, their parsed templates made once per render. */
class TemplateBook {
  private readonly parsed = new Map<string, TemplateNode[]>();
  private readonly byName: Map<string, DesignComponent>;

  constructor(design: Design | undefined) {
    this.byName = new Map((design?.components ?? []).map((component) => [component.name, component]));
  }

  templateFor(component: Component): TemplateNode[] {
    const name = componentName(component);
    const known = this.byName.get(name);
    // A fallback depends on the component's own content, so only design templates are kept.
    if (!known?.html) return fallbackTemplate(component, known);
    let nodes = this.parsed.get(name);
    if (!nodes) {
      nodes = parseTemplate(known.html);
      this.parsed.set(name, nodes);
    }
    return nodes;
  }
}

/** A guess from the value when the design does not say what a directive is. */
function guessKind(value: unknown): DirectiveKind {
  if (isRecord(value)) {
    if (typeof value.service === 'string') return 'include';
    if (typeof value.url === 'string') return 'image';
    if (typeof value.href === 'string' || value.$ref === 'document') return 'link';
    return 'style';
  }
  return 'editable';
}

/**
 * For a component the design has no template for: a div named after it with one element per directive
 * (the design's directives when it knows the component, else the content's keys) and per container. Content
 * or containers stored as something other than an object (imported as sent up to 2025-11) name none: the
 * keys of a string are its characters. Built as the nodes parseTemplate makes of
 * `<div class="name"><div doc-editable="title"></div><img doc-image="photo">...</div>` (attribute values
 * escaped), not as that text parsed: for a component of 90,000 directives the text and its parse took a
 * second and more before the render could first let the event loop run.
 */
function fallbackTemplate(component: Component, known: DesignComponent | undefined): TemplateNode[] {
  const directives: [string, string][] = known
    ? known.directives.map((d) => [d.name, d.type])
    : Object.entries(isRecord(component.content) ? component.content : {}).map(([name, value]) => [
        name,
        guessKind(value),
      ]);
  const containers =
    known?.containers ?? Object.keys(isRecord(component.containers) ? component.containers : {});
  const element = (tag: string, attribute: string, name: string): TemplateElement => ({
    kind: 'element',
    tag,
    attributes: [[attribute, escapeHtml(name)]],
    children: [],
    isVoid: tag === 'img',
  });
  const children: TemplateNode[] = [];
  for (const [name, type] of directives) {
    if (type === 'style') continue;
    if (type === 'image') children.push(element('img', 'doc-image', name));
    else if (type === 'link') children.push(element('a', 'doc-link', name));
    else {
      const kind = (DIRECTIVE_KINDS as readonly string[]).includes(type) ? type : 'editable';
      children.push(element('div', `doc-${kind}`, name));
    }
  }
  for (const name of containers) children.push(element('div', 'doc-container', name));
  const root = element('div', 'class', componentName(component));
  root.children = children;
  return [root];
}

class Renderer {
  constructor(
    private readonly book: TemplateBook,
    private readonly options: HtmlRenderOptions,
    private readonly pause: Pause,
  ) {}

  *content(components: readonly Component[], path: readonly (string | number)[]): Steps {
    if (!Array.isArray(components)) return '';
    let html = '';
    for (let index = 0; index < components.length; index += 1) {
      const component: unknown = components[index];
      if (isRecord(component)) html += yield* this.component(component as Component, [...path, index]);
    }
    return html;
  }

  private *component(component: Component, path: readonly (string | number)[]): Steps {
    const nodes = this.book.templateFor(component);
    let marked = !this.options.renderDirectiveInfo;
    let html = '';
    for (const node of nodes) {
      if (node.kind !== 'element' || marked) {
        html += yield* this.node(node, component, path, undefined);
        continue;
      }
      marked = true;
      const info: Attributes = [['data-component-name', escapeHtml(componentName(component))]];
      info.push(['data-component-id', escapeHtml(componentKey(component, path))]);
      html += yield* this.node(node, component, path, info);
    }
    return html;
  }

  private *node(
    node: TemplateNode,
    component: Component,
    path: readonly (string | number)[],
    extra: Attributes | undefined,
  ): Steps {
    if (node.kind === 'text') return node.text;
    if (this.pause()) yield;
    const attributes: Attributes = [];
    let directive: { kind: DirectiveKind; name: string } | undefined;
    for (const [name, value] of node.attributes) {
      if (!name.startsWith('doc-')) {
        attributes.push([name, value]);
        continue;
      }
      const kind = name.slice('doc-'.length) as DirectiveKind;
      if (directive === undefined && DIRECTIVE_KINDS.includes(kind) && value !== undefined) {
        directive = { kind, name: decodeEntities(value) };
      }
    }
    if (extra) attributes.push(...extra);
    let inner: string | undefined;
    if (directive) {
      inner = yield* this.fill(node, attributes, directive, component, path);
      if (this.options.renderDirectiveInfo) {
        attributes.push(['data-directive-name', escapeHtml(directive.name)]);
        attributes.push(['data-directive-type', directive.kind]);
        const value = component.content?.[directive.name];
        if (directive.kind === 'include' && isRecord(value) && typeof value.service === 'string') {
          attributes.push(['data-include-service', escapeHtml(value.service)]);
        }
      }
    }
    const open = `<${node.tag}${serializeAttributes(attributes)}>`;
    if (node.isVoid) return open;
    let children = inner;
    if (children === undefined) {
      children = '';
      for (const child of node.children) children += yield* this.node(child, component, path, undefined);
    }
    return `${open}${children}</${node.tag}>`;
  }

  /** Sets the directive's attributes and answers the element's inner HTML (undefined: the template's). */
  private *fill(
    node: TemplateElement,
    attributes: Attributes,
    directive: { kind: DirectiveKind; name: string },
    component: Component,
    path: readonly (string | number)[],
  ): Generator<void, string | undefined, void> {
    const value = component.content?.[directive.name];
    switch (directive.kind) {
      case 'container': {
        const children = component.containers?.[directive.name];
        return Array.isArray(children) ? yield* this.content(children, [...path, directive.name]) : '';
      }
      case 'editable':
        return typeof value === 'string' ? sanitizeRichText(value) : '';
      case 'html':
        return typeof value === 'string' ? sanitizeEmbed(value) : '';
      case 'image':
        return this.image(node, attributes, value);
      case 'link': {
        const href = safeUrl(typeof value === 'string' ? value : isRecord(value) ? value.href : undefined);
        if (href !== undefined) setAttribute(attributes, 'href', href);
        if (isRecord(value) && typeof value.target === 'string' && LINK_TARGETS.has(value.target)) {
          setAttribute(attributes, 'target', value.target);
        }
        // The target may be the template's own or the content's.
        const attribute = (name: string) => {
          const found = attributes.find(([key]) => key === name)?.[1];
          return found === undefined ? undefined : decodeEntities(found);
        };
        const rel = newTabRel(attribute('target'), attribute('rel'));
        if (rel !== undefined) setAttribute(attributes, 'rel', rel);
        return undefined;
      }
      case 'include':
        // Filled by the client from `includes` (matched by component id and directive name).
        return '';
      case 'style':
        return undefined;
    }
  }

  private image(node: TemplateElement, attributes: Attributes, value: unknown): string | undefined {
    const src = safeUrl(isRecord(value) ? value.url : value);
    if (src === undefined) return node.isVoid ? undefined : '';
    const alt = isRecord(value) && typeof value.alt === 'string' ? value.alt : undefined;
    if (node.tag === 'img') {
      setAttribute(attributes, 'src', src);
      if (alt !== undefined) setAttribute(attributes, 'alt', alt);
      return undefined;
    }
    return `<img src="${escapeHtml(src)}"${alt === undefined ? '' : ` alt="${escapeHtml(alt)}"`}>`;
  }
}

/** The content as HTML through the design's templates (a fallback template for components it lacks). */
export function renderHtml(content: Content, design: Design | undefined, options: HtmlRenderOptions): string {
  return finishSteps(renderHtmlSteps(content, design, options, () => false));
}

/**
 * renderHtml as steps: the render stops (yields) before an element whenever `pause` answers true, so a
 * caller can let the event loop run in between (runInSlices). A 2 MB content takes seconds to render; the
 * answer is the same either way.
 */
export function renderHtmlSteps(
  content: Content,
  design: Design | undefined,
  options: HtmlRenderOptions,
  pause: Pause,
): Steps {
  return new Renderer(new TemplateBook(design), options, pause).content(content, []);
}
