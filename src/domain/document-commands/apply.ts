import type { Component, Content, Metadata } from '../content';
import { componentName, findComponent, isRecord } from '../content';
import type { Design } from '../design';
import { AppError } from '../errors';
import { quoted } from '../shown-input';
import { findDocumentProblem, formatJsonPath, type DocumentPartProblem } from '../json-limits';
import {
  extractReferences,
  includeReferences,
  metadataReferences,
  type ReferenceTargetType,
} from '../references';
import type { Command, CommandOf, CommandRequest } from './schema';

export interface Embargo {
  reason: string;
  /** null: embargoed until someone removes it. */
  until: string | null;
}

/** A document's stored embargo columns as the Embargo the commands, imports and planner states see (null: none). */
export function embargoOf(row: {
  embargoSet: boolean;
  embargoReason: string | null;
  embargoUntil: Date | null;
}): Embargo | null {
  if (!row.embargoSet) return null;
  return {
    reason: row.embargoReason ?? '',
    until: row.embargoUntil === null ? null : row.embargoUntil.toISOString(),
  };
}

/** What the commands may read and change of a document, loaded by the caller inside its transaction. */
export interface DraftState {
  version: number;
  metadata: Metadata;
  content: Content;
  isPublished: boolean;
  hasUnpublishedChanges: boolean;
  embargo: Embargo | null;
  publishSchedule: string | null;
  unpublishSchedule: string | null;
  /**
   * The design the document names, when the project has it: a directive command may only write a directive
   * its component declares, of the command's kind. Without it (no design, or one the project lacks) nothing
   * is checked.
   */
  design?: Design | undefined;
  /**
   * Which of the documents the request references (referencedDocumentIds) are the project's: a link, an
   * include's param or a metadata value naming any other (another project's, or no document) is refused,
   * unless the stored draft (metadata, content) references that id already (storedReferenceIds): only what
   * the request adds is judged. Without it references are not checked.
   */
  documentTargets?: ReadonlySet<string> | undefined;
  /**
   * Which of the media library entries the request references (referencedMediaIds) are the project's: a
   * metadata value or an include's param naming any other is refused, unless the stored draft references
   * that id already. Without it they are not checked.
   */
  mediaTargets?: ReadonlySet<string> | undefined;
  /**
   * The handles of the project config's brands and the ids of its categories: a brands condition or a
   * `category` metadata value the request sets must name one of them, or a value the document carries already
   * (stored when the config still had it). Without them they are not checked.
   */
  projectValues?: ProjectValues | undefined;
}

/** What of the project config a command's brands condition and `category` metadata value must name. */
export interface ProjectValues {
  brands: readonly string[];
  categories: ReadonlySet<string>;
}

/** The metadata property whose value is a category of the project (api-spec §2: `category ({id})`). */
const CATEGORY_PROPERTY = 'category';

/** The category id a `category` metadata value names, `{id}` or the id alone (as the search reads it). */
function categoryIdOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return isRecord(value) && typeof value.id === 'string' ? value.id : undefined;
}

/**
 * Whether a command sets a brands condition or a `category` metadata value, which the project config's brands
 * and categories are needed to check (DraftState.projectValues).
 */
export const setsProjectValues = (request: Pick<CommandRequest, 'commands'>): boolean =>
  request.commands.some(
    (command) =>
      (command.operation === 'setComponentCondition' &&
        command.conditionName === 'brands' &&
        command.value !== null) ||
      (command.operation === 'setMetadataProperty' &&
        command.propertyName === CATEGORY_PROPERTY &&
        categoryIdOf(command.value) !== undefined),
  );

/**
 * Why a brands condition cannot be set (undefined: it can): a handle that is neither a brand of the project
 * nor one the component carries already is refused, so a typo does not hide the component from every brand.
 */
export function brandsProblem(
  value: readonly string[],
  current: unknown,
  projectValues: ProjectValues,
): string | undefined {
  const carried = Array.isArray(current) ? current : [];
  const unknown = value.find((handle) => !projectValues.brands.includes(handle) && !carried.includes(handle));
  if (unknown === undefined) return undefined;
  const known = projectValues.brands.join(', ');
  return `the brand ${quoted(unknown)} is not a brand of this project (it has: ${known || 'none'})`;
}

/**
 * Why a `category` metadata value cannot be set (undefined: it can): an id that is neither a category of the
 * project nor the one the document carries already is refused.
 */
export function categoryProblem(
  value: unknown,
  current: unknown,
  projectValues: ProjectValues,
): string | undefined {
  const id = categoryIdOf(value);
  if (id === undefined || projectValues.categories.has(id) || id === categoryIdOf(current)) return undefined;
  return `the category ${quoted(id)} (metadata property '${CATEGORY_PROPERTY}') is not a category of this project`;
}

/** A reference a command writes, with how a refusal names it: `what` it is, and `at` where in the command. */
interface CommandReference {
  targetType: ReferenceTargetType;
  id: string;
  what: string;
  at?: string;
}

const INCLUDE_TARGET = { document: "the include's document", media: "the include's media entry" } as const;
const METADATA_TARGET = { document: 'the document', media: 'the media entry' } as const;

/** The documents and media entries one command writes a reference to (its link, include's params, metadata value). */
function commandReferences(command: Command): CommandReference[] {
  switch (command.operation) {
    case 'setLinkDirective':
      return command.value?.reference === undefined
        ? []
        : [{ targetType: 'document', id: command.value.reference.id, what: "the link's document" }];
    case 'setIncludeDirective':
      return includeReferences(command.value.params ?? {}).map(({ param, targetType, id }) => ({
        targetType,
        id,
        what: INCLUDE_TARGET[targetType],
        at: `params.${param}`,
      }));
    case 'setMetadataProperty':
      return metadataReferences(command.propertyName, command.value).map(({ targetType, id }) => ({
        targetType,
        id,
        what: METADATA_TARGET[targetType],
        at: `metadata property ${quoted(command.propertyName)}`,
      }));
    default:
      return [];
  }
}

/** The ids of one kind the request's commands reference (links, includes' params, metadata), in order, once each. */
function referencedIds(request: Pick<CommandRequest, 'commands'>, targetType: ReferenceTargetType): string[] {
  const ids = request.commands.flatMap((command) =>
    commandReferences(command).flatMap((reference) =>
      reference.targetType === targetType ? [reference.id] : [],
    ),
  );
  return [...new Set(ids)];
}

/** The document ids the request's commands reference (links, includes' params, metadata), in order, once each. */
export const referencedDocumentIds = (request: Pick<CommandRequest, 'commands'>): string[] =>
  referencedIds(request, 'document');

/** The media library entry ids the request's commands reference (includes' params, metadata), in order, once each. */
export const referencedMediaIds = (request: Pick<CommandRequest, 'commands'>): string[] =>
  referencedIds(request, 'media');

/** The ids of the documents and of the media library entries a draft references, each kind apart. */
export type ReferenceIds = Readonly<Record<ReferenceTargetType, ReadonlySet<string>>>;

/**
 * The documents and media library entries a stored draft references anywhere (metadata, links, includes'
 * params, images), as extractReferences finds them. A command may send any of these ids again, in the same
 * place or another, even when its target is gone since (deleted, removed from the library): an editor that
 * saves the whole draft sends back what it loaded, and a dangling reference stored before must not block
 * an unrelated edit. Only an id not in here is one the request adds, and is checked.
 */
export function storedReferenceIds(metadata: Metadata, content: Content): ReferenceIds {
  const ids = { document: new Set<string>(), media: new Set<string>() };
  for (const row of extractReferences(metadata, content).rows) ids[row.targetType].add(row.targetId);
  return ids;
}

export type CommandEffect = { type: 'publish' } | { type: 'unpublish' };

/** The document after every command ran; the caller persists it and runs the effects in order. */
export interface CommandOutcome {
  metadata: Metadata;
  content: Content;
  embargo: Embargo | null;
  publishSchedule: string | null;
  unpublishSchedule: string | null;
  /** Metadata or content differ from the state that came in (a command that sets the current value changes nothing). */
  draftChanged: boolean;
  effects: CommandEffect[];
}

/** True while an embargo is in force at `now`; the caller refuses to publish then. */
export function embargoBlocksPublish(embargo: Embargo | null, now: Date): boolean {
  return embargo !== null && (embargo.until === null || Date.parse(embargo.until) > now.getTime());
}

/**
 * Runs a validated command request against a document, all or nothing: the first command that cannot run
 * throws and nothing of the request applies. Never mutates `state` or `request`.
 */
export function applyCommands(state: DraftState, request: CommandRequest, now: Date): CommandOutcome {
  if (request.version !== undefined && request.version !== state.version) {
    throw AppError.conflict('The document you tried to update is outdated', {
      expectedVersion: request.version,
      currentVersion: state.version,
    });
  }
  for (const precondition of request.preconditions ?? []) {
    const actual =
      precondition.type === 'isPublished'
        ? state.isPublished
        : state.isPublished && !state.hasUnpublishedChanges;
    if (precondition.value !== actual) throw AppError.conflict(`Precondition failed: '${precondition.type}'`);
  }

  const draft: Draft = {
    metadata: structuredClone(state.metadata),
    content: structuredClone(state.content),
    embargo: state.embargo === null ? null : { ...state.embargo },
    publishSchedule: state.publishSchedule,
    unpublishSchedule: state.unpublishSchedule,
    isPublished: state.isPublished,
    publishedAt: null,
    effects: [],
    design: state.design,
    documentTargets: state.documentTargets,
    mediaTargets: state.mediaTargets,
    storedReferences: once(() => storedReferenceIds(state.metadata, state.content)),
    projectValues: state.projectValues,
  };
  request.commands.forEach((command, index) => {
    applyCommand(draft, command, index, now);
    // A publication is of the draft as the request leaves it: an edit ordered after the publish would be
    // published with it, which is not what the order of the commands says.
    if (draft.publishedAt !== null && DRAFT_EDITS.has(command.operation)) {
      throw commandFailed(
        index,
        `it changes the draft after the publish at index ${draft.publishedAt}, which would publish the change ` +
          'too: send it before the publish or in a later request',
      );
    }
  });

  const metadataChanged = !jsonEqual(draft.metadata, state.metadata);
  const contentChanged = !jsonEqual(draft.content, state.content);
  // Bounded when written, so that everything stored can be published and indexed (Elasticsearch refuses a
  // document nested 1,000 levels deep); measured once, on the parts that changed, and blamed on a command.
  const problem = findDocumentProblem(draft, [
    ...(metadataChanged ? (['metadata'] as const) : []),
    ...(contentChanged ? (['content'] as const) : []),
  ]);
  if (problem) {
    const path = formatJsonPath(problem.path);
    const index = blameCommand(request.commands, draft.content, problem);
    throw commandFailed(index, `${path} ${problem.message}`, { path });
  }
  return {
    metadata: draft.metadata,
    content: draft.content,
    embargo: draft.embargo,
    publishSchedule: draft.publishSchedule,
    unpublishSchedule: draft.unpublishSchedule,
    draftChanged: metadataChanged || contentChanged,
    effects: draft.effects,
  };
}

/**
 * The command that wrote what broke a document limit: the last one that set the metadata property on the
 * problem's path, or changed a component on it; for a size limit, the last one that wrote that part at all.
 */
function blameCommand(commands: readonly Command[], content: Content, problem: DocumentPartProblem): number {
  const [, first] = problem.path;
  const componentIds = new Set<string>();
  if (problem.part === 'content') {
    // content.<i>.containers.<name>.<j>...: the components the path passes through.
    let components: readonly Component[] | undefined = content;
    for (let at = 1; components !== undefined && typeof problem.path[at] === 'number'; at += 3) {
      // Content imported as sent (up to 2025-11) may hold items that are no components on the way.
      const component: unknown = components[problem.path[at] as number];
      if (!isRecord(component)) break;
      if (typeof component.id === 'string') componentIds.add(component.id);
      const name = problem.path[at + 2];
      const containers = component.containers;
      components =
        problem.path[at + 1] === 'containers' && typeof name === 'string' && isRecord(containers)
          ? (containers[name] as readonly Component[] | undefined)
          : undefined;
    }
  }
  const wrotePart = (command: Command): boolean =>
    problem.part === 'metadata' ? command.operation === 'setMetadataProperty' : 'componentId' in command;
  const wrotePath = (command: Command): boolean => {
    if (!wrotePart(command)) return false;
    if (command.operation === 'setMetadataProperty')
      return first === undefined || command.propertyName === first;
    return 'componentId' in command && (componentIds.size === 0 || componentIds.has(command.componentId));
  };
  const index = commands.findLastIndex(wrotePath);
  // Nothing wrote on the path: the part was beyond the limit before; the last command that changed it keeps it so.
  return index >= 0 ? index : Math.max(0, commands.findLastIndex(wrotePart));
}

/** The commands that change metadata or content (the rest change the document's publication state). */
const DRAFT_EDITS: ReadonlySet<Command['operation']> = new Set([
  'setMetadataProperty',
  'setEditableDirective',
  'removeComponent',
  'setComponentCondition',
  'setComponentStyle',
  'setStyleDirective',
  'setLinkDirective',
  'setIncludeDirective',
]);

/** The working copy the commands change in place; it shares nothing with the caller's objects. */
interface Draft {
  metadata: Metadata;
  content: Content;
  embargo: Embargo | null;
  publishSchedule: string | null;
  unpublishSchedule: string | null;
  /** Published as of the commands run so far, so `publish` then `unpublish` in one request works. */
  isPublished: boolean;
  /** The index of the publish in force (none after an unpublish): no draft edit may follow it. */
  publishedAt: number | null;
  effects: CommandEffect[];
  /** What directive commands must fit (DraftState.design). */
  design: Design | undefined;
  /** The project's documents among those the request references (DraftState.documentTargets). */
  documentTargets: ReadonlySet<string> | undefined;
  /** The project's media entries among those the request references (DraftState.mediaTargets). */
  mediaTargets: ReadonlySet<string> | undefined;
  /**
   * What the stored draft references (storedReferenceIds of the state that came in, not of this working
   * copy), worked out only when a reference is not among the targets.
   */
  storedReferences: () => ReferenceIds;
  /** The project config's brands and categories (DraftState.projectValues). */
  projectValues: ProjectValues | undefined;
}

function applyCommand(draft: Draft, command: Command, index: number, now: Date): void {
  const fail = (why: string) => commandFailed(index, why);
  switch (command.operation) {
    case 'setMetadataProperty':
      checkReferences(draft, command, index);
      checkOldValue(command, ownValue(draft.metadata, command.propertyName), index);
      if (draft.projectValues !== undefined && command.propertyName === CATEGORY_PROPERTY) {
        const problem = categoryProblem(
          command.value,
          ownValue(draft.metadata, CATEGORY_PROPERTY),
          draft.projectValues,
        );
        if (problem !== undefined) throw fail(problem);
      }
      setOrDelete(draft.metadata, command.propertyName, command.value);
      return;
    case 'setEditableDirective': {
      const component = requireComponent(draft, command.componentId, fail);
      const current = ownValue(component.content, command.directiveName);
      if (current !== undefined && typeof current !== 'string') {
        throw fail(`directive ${quoted(command.directiveName)} is not an editable directive`);
      }
      checkDeclared(draft.design, component, command, index);
      editRecord(component, 'content', (content) =>
        setOrDelete(content, command.directiveName, command.value),
      );
      return;
    }
    case 'removeComponent':
      if (!removeComponent(draft.content, command.componentId)) {
        throw fail(missingComponent(command.componentId));
      }
      return;
    case 'setComponentCondition': {
      const component = requireComponent(draft, command.componentId, fail);
      checkOldValue(command, ownValue(component.conditions, command.conditionName), index);
      if (draft.projectValues !== undefined && command.conditionName === 'brands' && command.value !== null) {
        const problem = brandsProblem(
          command.value,
          ownValue(component.conditions, 'brands'),
          draft.projectValues,
        );
        if (problem !== undefined) throw fail(problem);
      }
      editRecord(component, 'conditions', (conditions) =>
        setOrDelete(conditions, command.conditionName, command.value),
      );
      return;
    }
    case 'setComponentStyle': {
      const component = requireComponent(draft, command.componentId, fail);
      checkOldValue(command, ownValue(component.styles, command.propertyName), index);
      editRecord(component, 'styles', (styles) => setOrDelete(styles, command.propertyName, command.value));
      return;
    }
    case 'setStyleDirective': {
      const component = requireComponent(draft, command.componentId, fail);
      const current = ownValue(component.content, command.directiveName);
      if (current !== undefined && !isStyleDirective(current)) {
        throw fail(`directive ${quoted(command.directiveName)} is not a style directive`);
      }
      if (command.value !== null) checkDeclared(draft.design, component, command, index);
      checkOldValue(command, ownValue(current, command.propertyName), index);
      const style = current ?? {};
      setOrDelete(style, command.propertyName, command.value);
      // Else a style directive could be made, property by property, into an image or an include whose
      // references (a media entry, a document) no check has seen.
      if (!isStyleDirective(style)) {
        throw fail(
          `property ${quoted(command.propertyName)} would make directive ${quoted(command.directiveName)} read as ` +
            `${directiveKindOf(style)}, not a style`,
        );
      }
      if (current === undefined && Object.keys(style).length === 0) return;
      editRecord(component, 'content', (content) => {
        content[command.directiveName] = style;
      });
      return;
    }
    case 'setLinkDirective': {
      const component = requireComponent(draft, command.componentId, fail);
      const current = ownValue(component.content, command.directiveName);
      if (current !== undefined && !isLinkDirective(current)) {
        throw fail(`directive ${quoted(command.directiveName)} is not a link directive`);
      }
      if (command.value !== null) checkDeclared(draft.design, component, command, index);
      checkReferences(draft, command, index);
      checkOldValue(command, current, index);
      editRecord(component, 'content', (content) =>
        setOrDelete(content, command.directiveName, command.value),
      );
      return;
    }
    case 'setIncludeDirective':
      return setIncludeDirective(draft, command, index);
    case 'setEmbargo':
      assertFuture(command.until ?? null, `commands.${index}.until`, now);
      draft.embargo = { reason: command.reason, until: command.until ?? null };
      return;
    case 'removeEmbargo':
      if (draft.embargo === null) throw fail('the document has no embargo');
      draft.embargo = null;
      return;
    case 'addPublishSchedule':
      assertFuture(command.date, `commands.${index}.date`, now);
      draft.publishSchedule = command.date;
      return;
    case 'cancelPublishSchedule':
      if (draft.publishSchedule === null) throw fail('the document has no publish schedule');
      draft.publishSchedule = null;
      return;
    case 'addUnpublishSchedule':
      assertFuture(command.date, `commands.${index}.date`, now);
      draft.unpublishSchedule = command.date;
      return;
    case 'cancelUnpublishSchedule':
      if (draft.unpublishSchedule === null) throw fail('the document has no unpublish schedule');
      draft.unpublishSchedule = null;
      return;
    case 'publish':
      // Published already by this request, and no edit may follow a publish: another would publish the same
      // draft again, one more identical publication and event for the same request.
      if (draft.publishedAt !== null) return;
      draft.isPublished = true;
      draft.publishedAt = index;
      draft.effects.push({ type: 'publish' });
      return;
    case 'unpublish':
      if (!draft.isPublished) throw fail('the document is not published');
      draft.isPublished = false;
      draft.publishedAt = null;
      draft.effects.push({ type: 'unpublish' });
      return;
    default:
      return assertNever(command);
  }
}

function setIncludeDirective(draft: Draft, command: CommandOf<'setIncludeDirective'>, index: number): void {
  const component = requireComponent(draft, command.componentId, (why) => commandFailed(index, why));
  const current = ownValue(component.content, command.directiveName);
  if (!isIncludeDirective(current)) {
    throw commandFailed(index, `directive ${quoted(command.directiveName)} is not an include directive`);
  }
  checkDeclared(draft.design, component, command, index);
  checkReferences(draft, command, index);
  // oldValue comes in the shape of value ({params, overrides}); a client echoing the stored directive, service
  // included, means the same thing.
  const { service, ...currentValue } = current;
  if (!jsonEqual(command.oldValue, current)) checkOldValue(command, currentValue, index);
  const { params, overrides } = structuredClone(command.value);
  editRecord(component, 'content', (content) => {
    content[command.directiveName] = {
      service,
      ...(params === undefined ? {} : { params }),
      ...(overrides === undefined ? {} : { overrides }),
    };
  });
}

/** The directive types each directive command may write (an html directive holds text as an editable one does). */
const DIRECTIVE_KINDS = {
  setEditableDirective: { kind: 'editable', types: ['editable', 'html'] },
  setLinkDirective: { kind: 'link', types: ['link'] },
  setStyleDirective: { kind: 'style', types: ['style'] },
  setIncludeDirective: { kind: 'include', types: ['include'] },
} as const satisfies Record<string, { kind: string; types: readonly string[] }>;

type DirectiveCommand = CommandOf<keyof typeof DIRECTIVE_KINDS>;

/** Whether the command writes a directive, which must fit the document's design (DraftState.design). */
export const writesDirective = (command: Command): command is DirectiveCommand =>
  Object.hasOwn(DIRECTIVE_KINDS, command.operation);

/**
 * A directive command writes what the document's design declares for the component: a directive of that name
 * and of the command's kind, as an import from 2026-01 requires of the whole content. Otherwise a string could
 * land in an image directive, or a link in one no template renders, and be published so. A component the
 * design does not declare (content stored as sent before 2026-01) has nothing to hold it to.
 */
function checkDeclared(
  design: Design | undefined,
  component: Component,
  command: DirectiveCommand,
  index: number,
): void {
  if (design === undefined) return;
  const name = componentName(component);
  const declared = (design.components ?? []).find((candidate) => candidate.name === name);
  if (declared === undefined) return;
  const directives = declared.directives ?? [];
  const directive = directives.find((candidate) => candidate.name === command.directiveName);
  const { kind, types } = DIRECTIVE_KINDS[command.operation];
  if (directive !== undefined && (types as readonly string[]).includes(directive.type)) return;
  const why =
    directive !== undefined
      ? `it is ${/^([aeiou]|html$)/.test(directive.type) ? 'an' : 'a'} ${directive.type} directive`
      : `it declares ${directives.map((candidate) => candidate.name).join(', ') || 'none'}`;
  throw commandFailed(
    index,
    `component ${quoted(component.id)} (${name}) of design ${design.name}@${design.version} has no ${kind} ` +
      `directive ${quoted(command.directiveName)}: ${why}`,
  );
}

const TARGET_KIND = { document: 'a document', media: 'a media library entry' } as const;

/**
 * A command may only add references to the project's documents and media entries (DraftState.documentTargets,
 * mediaTargets): a reference to another project's, or to none, would point where no read of the project
 * resolves it. An id the stored draft references already passes, its target gone or not (storedReferenceIds).
 */
function checkReferences(draft: Draft, command: Command, index: number): void {
  for (const { targetType, id, what, at } of commandReferences(command)) {
    const targets = targetType === 'document' ? draft.documentTargets : draft.mediaTargets;
    if (targets === undefined || targets.has(id) || draft.storedReferences()[targetType].has(id)) continue;
    const where = at === undefined ? '' : ` (${at})`;
    throw commandFailed(
      index,
      `${what} ${quoted(id)}${where} is not ${TARGET_KIND[targetType]} of this project`,
    );
  }
}

type WithOldValue = { oldValue?: unknown };

function checkOldValue(command: WithOldValue, current: unknown, index: number): void {
  if (command.oldValue !== undefined && !jsonEqual(command.oldValue, current)) {
    throw AppError.conflict('Cannot update outdated value', { commandIndex: index });
  }
}

function assertFuture(date: string | null, path: string, now: Date): void {
  if (date !== null && Date.parse(date) <= now.getTime()) {
    throw AppError.validation({ [path]: 'must be in the future' });
  }
}

function commandFailed(index: number, why: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError(400, {
    name: 'ValidationError',
    message: `Command at index ${index} failed: ${why}`,
    commandIndex: index,
    ...extra,
  });
}

const missingComponent = (componentId: string) => `component ${quoted(componentId)} does not exist`;

function requireComponent(draft: Draft, componentId: string, fail: (why: string) => AppError): Component {
  const component = findComponent(draft.content, componentId);
  if (component === undefined) throw fail(missingComponent(componentId));
  return component;
}

/**
 * Edits one of a component's records in place, creating it on first write; an empty record that did not exist
 * before is not left behind, and empty conditions mean no conditions.
 */
function editRecord(
  component: Component,
  key: 'content' | 'styles' | 'conditions',
  edit: (record: Record<string, unknown>) => void,
): void {
  const existed = component[key] !== undefined;
  // A record stored as something else than an object (content imported as sent) is replaced.
  const current: unknown = component[key];
  const record: Record<string, unknown> = isRecord(current) ? { ...current } : {};
  edit(record);
  if (Object.keys(record).length === 0 && (key === 'conditions' || !existed)) delete component[key];
  else component[key] = record;
}

/** Steps over what is not a component or a list of them, as walkComponents does. */
function removeComponent(components: unknown, componentId: string): boolean {
  if (!Array.isArray(components)) return false;
  const at = components.findIndex((component) => isRecord(component) && component.id === componentId);
  if (at >= 0) {
    components.splice(at, 1);
    return true;
  }
  return components.some(
    (component) =>
      isRecord(component) &&
      isRecord(component.containers) &&
      Object.values(component.containers).some((children) => removeComponent(children, componentId)),
  );
}

/**
 * Reads only the object's own keys, so a name like `toString` never finds Object.prototype; a record that is
 * not an object (content imported as sent) has none.
 */
function ownValue(record: unknown, key: string): unknown {
  return isRecord(record) && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** null removes the key: that is how every set command clears a value. */
function setOrDelete(record: Record<string, unknown>, key: string, value: unknown): void {
  if (value === null) delete record[key];
  else record[key] = structuredClone(value);
}

function isIncludeDirective(value: unknown): value is Record<string, unknown> & { service: string } {
  return isRecord(value) && typeof value.service === 'string';
}

/** An image: a url of its own, a media library entry (`mediaId`, or a `$ref` to anything but a document). */
function isImageDirective(value: Record<string, unknown>): boolean {
  return (
    typeof value.url === 'string' ||
    Object.hasOwn(value, 'mediaId') ||
    (Object.hasOwn(value, '$ref') && value.$ref !== 'document')
  );
}

/** What a link holds (the keys of setLinkDirective's value); a record with none of them is no link. */
const LINK_KEYS = ['href', 'target', '$ref', 'reference'];

/**
 * A link, or an empty record: an image, an include or a style directive that has properties is something else,
 * so setLinkDirective with a wrong directive name cannot replace one.
 */
function isLinkDirective(value: unknown): value is Record<string, unknown> {
  return (
    isRecord(value) &&
    !isIncludeDirective(value) &&
    !isImageDirective(value) &&
    (Object.keys(value).length === 0 || LINK_KEYS.some((key) => Object.hasOwn(value, key)))
  );
}

/** What a directive value that is no style directive reads as, for a refusal. */
function directiveKindOf(value: Record<string, unknown>): string {
  if (isIncludeDirective(value)) return 'an include';
  return isImageDirective(value) ? 'an image' : 'a link';
}

/** A style directive holds style properties; one that looks like a link, an image or an include is something else. */
function isStyleDirective(value: unknown): value is Record<string, unknown> {
  return (
    isRecord(value) &&
    !isIncludeDirective(value) &&
    !isImageDirective(value) &&
    !Object.hasOwn(value, '$ref') &&
    !Object.hasOwn(value, 'href')
  );
}

/**
 * Equality of JSON values: key order does not matter, and a missing value equals null. What "changes nothing"
 * means for a command, so use cases that map outside data onto commands skip the ones that would not.
 */
export function jsonEqual(left: unknown, right: unknown): boolean {
  const a = left ?? null;
  const b = right ?? null;
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => jsonEqual(item, b[i]))
    );
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => {
    const inA = a[key] !== undefined;
    const inB = b[key] !== undefined;
    return inA === inB && (!inA || jsonEqual(a[key], b[key]));
  });
}

/** The value of `compute`, worked out on the first call only. */
function once<T>(compute: () => T): () => T {
  let value: { of: T } | undefined;
  return () => (value ??= { of: compute() }).of;
}

function assertNever(value: never): never {
  throw new Error(`unhandled command ${JSON.stringify(value)}`);
}
