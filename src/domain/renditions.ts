import { componentName, isRecord, type Component, type Content } from './content';
import { escapeHtml, safeUrl, sanitizeEmbed } from './html-render';
import { finishSteps, type Pause, type Steps } from './steps';

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

function* componentSteps(component: Component, pause: Pause): Steps {
  const name = componentName(component);
  let directives = '';
  for (const [directive, value] of Object.entries(isRecord(component.content) ? component.content : {})) {
    if (pause()) yield;
    directives += renderDirective(directive, value);
  }
  let containers = '';
  for (const [container, children] of Object.entries(
    isRecord(component.containers) ? component.containers : {},
  )) {
    containers += `<div data-container="${escapeHtml(container)}">${yield* contentSteps(children, pause)}</div>`;
  }
  return `<div class="${escapeHtml(name)}">${directives}${containers}</div>`;
}

function* contentSteps(content: Content, pause: Pause): Steps {
  if (!Array.isArray(content)) return '';
  let html = '';
  for (const item of content as unknown[]) {
    if (pause()) yield;
    if (isRecord(item)) html += yield* componentSteps(item as Component, pause);
  }
  return html;
}

/**
 * A simple HTML of the content tree: one element per component, its directives and containers inside. Stored
 * content is not checked deeply (imports up to 2025-11 keep it as sent): what is not a component is skipped.
 */
export function renderContent(content: Content): string {
  return finishSteps(contentSteps(content, () => false));
}

/** The requested renditions this service knows, in request order, each handle once. */
export function renderRenditions(content: Content, handles: readonly string[]): Rendition[] {
  return finishSteps(renditionSteps(content, handles, () => false));
}

/**
 * renderRenditions as steps, stopping (yielding) before a component or directive whenever `pause` answers
 * true (see runInSlices); the answer is the same.
 */
export function* renditionSteps(
  content: Content,
  handles: readonly string[],
  pause: Pause,
): Steps<Rendition[]> {
  const wanted = [...new Set(handles)].filter((handle) => HTML_HANDLES.has(handle));
  // web and html are the same HTML: rendered once (a 2 MB content costs its render each time).
  const html = wanted.length === 0 ? '' : yield* contentSteps(content, pause);
  return wanted.map((handle) => ({ handle, content: html }));
}
