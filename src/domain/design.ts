import { z } from 'zod';

/** A design: the components a content tree may use and their directives (supplement §8). */
/** Directive types a design declares; values of the known ones are shape-checked, others are accepted. */
export type DirectiveType = 'editable' | 'image' | 'link' | 'include' | 'style' | 'html' | (string & {});

export interface DesignDirective {
  name: string;
  type: DirectiveType;
}

export interface DesignComponent {
  name: string;
  label?: string;
  html?: string;
  directives: DesignDirective[];
  containers?: string[];
}

export interface Design {
  name: string;
  version: string;
  components: DesignComponent[];
  defaultComponents?: Record<string, unknown>;
  groups?: unknown[];
  metadata?: unknown[];
  assets?: Record<string, unknown>;
}

const name = z.string().trim().min(1).max(200);

/**
 * What a stored design must be for the API to serve it and check content against it (the interfaces above):
 * keys it does not read are kept as given. Designs come in through `project create --design`; one that broke
 * this shape was stored, and GET design answered 500 for the project from then on.
 */
export const DesignSchema = z.looseObject({
  name,
  version: name,
  components: z.array(
    z.looseObject({
      name,
      label: z.string().optional(),
      html: z.string().optional(),
      directives: z.array(z.looseObject({ name, type: name })),
      containers: z.array(name).optional(),
    }),
  ),
  defaultComponents: z.record(z.string(), z.unknown()).optional(),
  groups: z.array(z.unknown()).optional(),
  metadata: z.array(z.unknown()).optional(),
  assets: z.record(z.string(), z.unknown()).optional(),
}) satisfies z.ZodType<Design>;

/**
 * The most a design may take as JSON (UTF-8), as `project create` stores it: 5 MiB, the size of the largest JSON
 * body the API takes by default (BODY_LIMIT). A design is read for every publish of its project and answered
 * whole by GET design and by each composition that asks for `design`: one of any size was stored.
 */
export const MAX_DESIGN_BYTES = 5 * 1024 * 1024;

/** Why `design` is too large to store, or undefined when it is not. */
export function designSizeProblem(design: unknown): string | undefined {
  const bytes = Buffer.byteLength(JSON.stringify(design) ?? '', 'utf8');
  return bytes > MAX_DESIGN_BYTES
    ? `is ${bytes} bytes as JSON: a design may be at most ${MAX_DESIGN_BYTES / 1024 / 1024} MiB (${MAX_DESIGN_BYTES} bytes)`
    : undefined;
}

/**
 * What `project create` stores: DesignSchema, and a version GET design/{designVersion} can be asked for. `.` and
 * `..` could be stored, yet no URL names them (URLs resolve such path segments away: the request went to GET
 * design or to a 404). Stored designs are not read with this, so one stored before the rule still loads.
 */
export const NewDesignSchema = DesignSchema.superRefine((design, ctx) => {
  if (design.version === '.' || design.version === '..') {
    ctx.addIssue({
      code: 'custom',
      path: ['version'],
      message: "cannot be '.' or '..': no URL can name it in GET design/{designVersion}",
    });
  }
});
