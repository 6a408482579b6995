/** Every scope a token can carry (supplement §2). */
export const SCOPES = [
  'public-api:read',
  'public-api:write',
  'public-api:drafts:read',
  'public-api:config:read',
  'public-api:config:write',
  'enrichment',
  'planner',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
