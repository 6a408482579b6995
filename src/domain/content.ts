/** The content tree of a document (api-spec §2.2): components nested through named containers. */
export interface ComponentConditions {
  dateTime?: { gte?: string; gt?: string; lte?: string; lt?: string };
  brands?: string[];
}

export interface Component {
  id: string;
  /** Component name; when absent it is the part of `identifier` after the dot. */
  component?: string;
  /** `<design_name>.<component_name>` */
  identifier?: string;
  content?: Record<string, unknown>;
  styles?: Record<string, unknown>;
  containers?: Record<string, Component[]>;
  position?: string;
  conditions?: ComponentConditions;
  [extra: string]: unknown;
}

export type Content = Component[];

export type Metadata = Record<string, unknown>;

export function componentName(component: Component): string {
  // Stored content is not checked deeply (imports up to 2025-11 keep it as sent): a name that is not text is none.
  if (typeof component.component === 'string' && component.component !== '') return component.component;
  const identifier: unknown = component.identifier;
  if (typeof identifier !== 'string') return '';
  const dot = identifier.indexOf('.');
  return dot >= 0 ? identifier.slice(dot + 1) : identifier;
}

/**
 * The component's id, or for one without (as page components often are) its position: indexes and
 * container names from the top, joined by '.' (`0.footer.1`). The composition's includes and html markers
 * name components this way.
 */
export function componentKey(component: Component, path: readonly (string | number)[]): string {
  return typeof component.id === 'string' && component.id !== '' ? component.id : path.join('.');
}

/**
 * Whether a value is a JSON object (not null, not an array): the check every walker of stored content makes
 * before it reads a component, its containers or a record, since content imported as sent is not checked deeply.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Visits every component depth-first, parents before children. Stored content is not checked deeply (imports
 * up to 2025-11 keep it as sent): an item that is not an object, or containers or children that are not
 * objects and arrays, are stepped over.
 */
export function* walkComponents(content: readonly Component[]): Generator<Component> {
  if (!Array.isArray(content)) return;
  for (const component of content as unknown[]) {
    if (!isRecord(component)) continue;
    yield component as Component;
    for (const children of Object.values(isRecord(component.containers) ? component.containers : {})) {
      yield* walkComponents(children as Component[]);
    }
  }
}

export function findComponent(content: readonly Component[], componentId: string): Component | undefined {
  for (const component of walkComponents(content)) {
    if (component.id === componentId) return component;
  }
  return undefined;
}
