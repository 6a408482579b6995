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
