/** A design: the components a content tree may use and their directives (supplement §8). */
export interface DesignDirective {
  name: string;
  type: 'editable' | 'image' | 'link' | 'include' | 'style' | 'html' | 'video' | string;
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
