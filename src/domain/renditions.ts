import { componentName, isRecord, type Component, type Content } from './content';
import { escapeHtml, safeUrl, sanitizeEmbed } from './html-render';

/** A rendition (api-spec §2.5, only up to 2025-07): a handle and what the content looks like through it. */
export interface Rendition {
  handle: string;
  content: string;
}

/** The handles this service can render; any other requested handle is skipped, as an unconfigured one would be. */
const HTML_HANDLES = new Set(['web', 'html']);

function renderDirective(name: string, value: unknown): string {
  // A string is an editable text or an embed (the rendition does not know the design): made safe as composition's
  // html makes an embed (ordinary markup and https iframes stay; scripts, styles and handlers go), since sites put
  // a rendition into their pages as it is.
  if (typeof value === 'string')
    return `<div data-directive="${escapeHtml(name)}">${sanitizeEmbed(value)}</div>`;
  const url = isRecord(value) ? safeUrl(value.url) : undefined;
  if (isRecord(value) && url !== undefined) {
    const alt = typeof value.alt === 'string' ? value.alt : '';
    return `<img data-directive="${escapeHtml(name)}" src="${escapeHtml(url)}" alt="${escapeHtml(alt)}">`;
  }
  return '';
}

function renderComponent(component: Component): string {
  const name = componentName(component);
  const directives = Object.entries(isRecord(component.content) ? component.content : {})
    .map(([directive, value]) => renderDirective(directive, value))
    .join('');
  const containers = Object.entries(isRecord(component.containers) ? component.containers : {})
    .map(
      ([container, children]) =>
        `<div data-container="${escapeHtml(container)}">${renderContent(children)}</div>`,
    )
    .join('');
  return `<div class="${escapeHtml(name)}">${directives}${containers}</div>`;
}

/**
 * A simple HTML of the content tree: one element per component, its directives and containers inside. Stored
 * content is not checked deeply (imports up to 2025-11 keep it as sent): what is not a component is skipped.
 */
export function renderContent(content: Content): string {
  if (!Array.isArray(content)) return '';
  return content.map((item: unknown) => (isRecord(item) ? renderComponent(item as Component) : '')).join('');
}

/** The requested renditions this service knows, in request order, each handle once. */
export function renderRenditions(content: Content, handles: readonly string[]): Rendition[] {
  // web and html are the same HTML: rendered once (a 2 MB content costs its render each time).
  let html: string | undefined;
  return [...new Set(handles)]
    .filter((handle) => HTML_HANDLES.has(handle))
    .map((handle) => ({ handle, content: (html ??= renderContent(content)) }));
}
