import { isRecord, walkComponents, type Component, type ComponentConditions, type Content } from './content';
import { quoted } from './shown-input';
import { invalid, valid, type Checked } from './validation';

/** What conditions are checked against (supplement §6). */
export interface ConditionContext {
  dateTime: Date;
  brand?: string;
}

/** Used for whatever the request leaves out: the current time and the project's default brand. */
export interface ConditionDefaults {
  now: Date;
  defaultBrand?: string;
}

/** What a request asks for; the defaults fill the rest (conditionContext). */
export interface ConditionRequest {
  dateTime?: Date;
  brand?: string;
}

/** The query-string pair every read endpoint that supports component conditions accepts. */
export interface ConditionQuery {
  ignoreComponentConditions?: boolean | undefined;
  componentConditions?: string | undefined;
}

const REQUEST_KEYS = ['dateTime', 'brand'] as const;

// Calendar date, optional time, optional offset. Stricter than Date.parse, which rolls 2025-02-30 over to
// March and reads an offset-less time in the server's zone. Any number of fraction digits, as RFC 3339 and
// the commands' date-times allow: a bound a command stored must be readable here, or it fails closed for good.
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * Parses an ISO 8601 date or date-time; a time without an offset is read as UTC so the answer never depends
 * on the server's time zone. Undefined for anything else, including impossible dates such as 2025-02-30.
 * A Date holds milliseconds: digits past them are dropped, or with `roundUp` make the next millisecond when
 * any of them is not 0 (the lower bound `gte` or upper bound `lt` of a range over millisecond instants).
 */
export function parseIsoDateTime(value: string, { roundUp = false } = {}): Date | undefined {
  const match = ISO_DATE_TIME.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', offset = 'Z'] = match;
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate()) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const millis = fraction ? `.${fraction.padEnd(3, '0').slice(0, 3)}` : '';
  const parsed = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${millis}${offset}`);
  if (Number.isNaN(parsed.getTime())) return undefined;
  return roundUp && /[1-9]/.test(fraction.slice(3)) ? new Date(parsed.getTime() + 1) : parsed;
}

const problem = (message: string) => invalid([{ path: [], message }]);

/**
 * Checks a conditions object (the composition body carries one directly); absent asks for nothing. Problems
 * are reported at the root path, keyed by the parameter or body field the caller names.
 */
export function checkConditionRequest(value: unknown): Checked<ConditionRequest> {
  if (value === undefined) return valid({});
  if (!isRecord(value)) {
    return problem('must be an object such as {"dateTime":"2025-01-31T12:00:00Z","brand":"ch"}');
  }
  const unknownKeys = Object.keys(value).filter((key) => !(REQUEST_KEYS as readonly string[]).includes(key));
  if (unknownKeys.length > 0) {
    const listed = unknownKeys.map((key) => quoted(key)).join(', ');
    return problem(
      `unknown key${unknownKeys.length > 1 ? 's' : ''} ${listed}; allowed keys are dateTime and brand`,
    );
  }
  const request: ConditionRequest = {};
  if (value.dateTime !== undefined) {
    const dateTime = typeof value.dateTime === 'string' ? parseIsoDateTime(value.dateTime) : undefined;
    if (!dateTime)
      return problem('dateTime must be an ISO 8601 date-time string, e.g. "2025-01-31T12:00:00Z"');
    request.dateTime = dateTime;
  }
  if (value.brand !== undefined) {
    if (typeof value.brand !== 'string' || value.brand.trim() === '') {
      return problem('brand must be a non-empty string (a brand handle)');
    }
    request.brand = value.brand;
  }
  return valid(request);
}

/** Parses the JSON-stringified `componentConditions` query parameter; absent or blank asks for nothing. */
export function parseConditionRequest(raw: string | undefined): Checked<ConditionRequest> {
  if (raw === undefined || raw.trim() === '') return valid({});
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return problem('must be valid JSON, e.g. {"dateTime":"2025-01-31T12:00:00Z","brand":"ch"}');
  }
  return checkConditionRequest(parsed);
}

/**
 * The conditions a read endpoint's query asks for, or null when the client asked to ignore them. An invalid
 * `componentConditions` is a 400 even when ignored (supplement §6: an invalid value is a 400, and nothing
 * there excuses an ignored one); absent, it costs nothing.
 */
export function conditionRequestOf(query: ConditionQuery): Checked<ConditionRequest | null> {
  const request = parseConditionRequest(query.componentConditions);
  return request.ok && query.ignoreComponentConditions === true ? valid(null) : request;
}

/** What conditions are checked against: what the request asks for, the defaults for the rest. */
export function conditionContext(request: ConditionRequest, defaults: ConditionDefaults): ConditionContext {
  const brand = request.brand ?? defaults.defaultBrand;
  return { dateTime: request.dateTime ?? defaults.now, ...(brand !== undefined ? { brand } : {}) };
}

/** A stored condition that says nothing: absent, or null (what a cleared one may be written as). */
const isAbsent = (value: unknown): value is undefined | null => value === undefined || value === null;

/**
 * Whether one component's own conditions hold; its ancestors are the caller's business. Conditions that
 * cannot be read fail closed, as an unreadable bound does: commands write only `{dateTime: {gte?, gt?, lte?,
 * lt?}, brands: [...]}`, but POST import/documents stores content as sent, and a `dateTime` given as the date
 * itself or `brands` as one text used to be skipped, which showed a scheduled or single-brand component to
 * every reader at once.
 */
export function satisfiesConditions(
  conditions: ComponentConditions | undefined,
  ctx: ConditionContext,
): boolean {
  if (isAbsent(conditions)) return true;
  if (!isRecord(conditions)) return false;
  const bounds: unknown = conditions.dateTime;
  if (!isAbsent(bounds)) {
    if (!isRecord(bounds)) return false;
    const at = ctx.dateTime.getTime();
    const holds = (bound: unknown, test: (limit: number) => boolean): boolean => {
      if (bound === undefined) return true;
      // A bound that cannot be read fails closed: hiding a scheduled component is safer than leaking it.
      const limit = typeof bound === 'string' ? parseIsoDateTime(bound) : undefined;
      return limit !== undefined && test(limit.getTime());
    };
    if (
      !holds(bounds.gte, (limit) => at >= limit) ||
      !holds(bounds.gt, (limit) => at > limit) ||
      !holds(bounds.lte, (limit) => at <= limit) ||
      !holds(bounds.lt, (limit) => at < limit)
    ) {
      return false;
    }
  }
  // An empty brand list restricts nothing: it is what remains when an editor deselects every brand.
  const brands: unknown = conditions.brands;
  if (isAbsent(brands)) return true;
  if (!Array.isArray(brands)) return false;
  return brands.length === 0 || (ctx.brand !== undefined && brands.includes(ctx.brand));
}

/** Copying the tree is the costly part of applying conditions; most contents have none to apply. */
export function hasConditions(content: Content): boolean {
  for (const component of walkComponents(content)) if (!isAbsent(component.conditions)) return true;
  return false;
}

/**
 * The content without the components whose conditions fail (and everything inside them). The input is never
 * touched; kept components keep their stored `conditions`. Only what holds a dropped component is new (its
 * arrays, and the components and container maps on the way to it): everything else is the input's own, and
 * content where every condition holds comes back as it is. A copy of every kept component (structuredClone)
 * was ~50 MB and over half a second of the event loop for a 30 MB content with one condition to apply, and a
 * search then serialised the same document again.
 */
export function applyComponentConditions(content: Content, ctx: ConditionContext): Content {
  return filterComponents(content, ctx);
}

/** `components` without those whose conditions fail; the same array when none does (see above). */
function filterComponents(components: readonly Component[], ctx: ConditionContext): Component[] {
  let kept: Component[] | undefined;
  for (let i = 0; i < components.length; i++) {
    const component = components[i]!;
    const filtered = filterComponent(component, ctx);
    if (filtered === component && kept === undefined) continue;
    kept ??= components.slice(0, i);
    if (filtered !== undefined) kept.push(filtered);
  }
  return kept ?? (components as Component[]);
}

/** The component with its containers filtered, undefined when its own conditions fail. */
function filterComponent(component: Component, ctx: ConditionContext): Component | undefined {
  // Content imported as sent (up to 2025-11) may hold items that are no components: kept as they are.
  if (!isRecord(component)) return component;
  if (!satisfiesConditions(component.conditions, ctx)) return undefined;
  const { containers } = component;
  if (!isRecord(containers)) return component;
  let changed = false;
  const entries = Object.entries(containers).map(([name, children]): [string, unknown] => {
    if (!Array.isArray(children)) return [name, children];
    const filtered = filterComponents(children, ctx);
    if (filtered !== children) changed = true;
    return [name, filtered];
  });
  // fromEntries defines own properties: a container named `__proto__` stays a key.
  return changed
    ? { ...component, containers: Object.fromEntries(entries) as Component['containers'] }
    : component;
}

/**
 * The first instant (epoch ms) after `at` at which some component's dateTime conditions change their verdict:
 * content whose conditions were applied at `at` reads the same until then, so an answer that used the current
 * time may be kept that long. Undefined when none ever will. `gte`/`lt` flip at their limit, `gt`/`lte` one
 * millisecond after it; a bound that cannot be read never flips (it fails closed for good).
 */
export function nextConditionChange(content: readonly Component[], at: number): number | undefined {
  let next: number | undefined;
  const consider = (bound: string | undefined, offset: number) => {
    if (typeof bound !== 'string') return;
    const limit = parseIsoDateTime(bound);
    if (!limit) return;
    const flips = limit.getTime() + offset;
    if (flips > at && (next === undefined || flips < next)) next = flips;
  };
  for (const component of walkComponents(content)) {
    const bounds = component.conditions?.dateTime;
    if (!bounds) continue;
    consider(bounds.gte, 0);
    consider(bounds.lt, 0);
    consider(bounds.gt, 1);
    consider(bounds.lte, 1);
  }
  return next;
}
