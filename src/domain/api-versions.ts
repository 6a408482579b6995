/**
 * The one ordered table of API versions (supplement §1). Handlers ask `version.atLeast('2026-01')`;
 * nobody compares version strings anywhere else.
 */
export const VERSION_LABELS = [
  '2025-03',
  '2025-05',
  '2025-07',
  '2025-09',
  '2025-11',
  '2026-01',
  '2026-03',
] as const;
export type VersionLabel = (typeof VERSION_LABELS)[number];

/**
 * `v1` and `beta` are the same as 2025-03 except where a route says otherwise (v1 has fewer default fields).
 * A Map, because the label comes from the URL: on a plain object `constructor` or `valueOf` would be found.
 */
const ALIASES: ReadonlyMap<string, VersionLabel> = new Map([
  ['v1', '2025-03'],
  ['beta', '2025-03'],
]);

export class ApiVersion {
  private constructor(
    /** The label as the client wrote it in the path: `v1`, `beta`, `2025-03`, ... */
    readonly label: string,
    /** The dated label it behaves as. */
    readonly effective: VersionLabel,
  ) {}

  static parse(label: string): ApiVersion | undefined {
    const effective = ALIASES.get(label) ?? VERSION_LABELS.find((v) => v === label);
    return effective ? new ApiVersion(label, effective) : undefined;
  }

  static latest(): ApiVersion {
    return new ApiVersion('2026-03', '2026-03');
  }

  private get rank(): number {
    return VERSION_LABELS.indexOf(this.effective);
  }

  atLeast(label: VersionLabel): boolean {
    return this.rank >= VERSION_LABELS.indexOf(label);
  }

  atMost(label: VersionLabel): boolean {
    return this.rank <= VERSION_LABELS.indexOf(label);
  }

  /** True only for the literal `v1` label, which keeps the older default `fields`. */
  get isV1(): boolean {
    return this.label === 'v1';
  }

  /** From 2026-01 list endpoints answer `{results, ...}` instead of a bare array. */
  get wrapsLists(): boolean {
    return this.atLeast('2026-01');
  }
}

export const ALL_VERSION_LABELS: readonly string[] = ['v1', 'beta', ...VERSION_LABELS];

/**
 * One value per API version label, built when the module that asks for it loads: for the schemas that differ
 * by version (a zod schema costs far more to build than to parse with). A constant table, not a cache.
 */
export function perVersion<T>(build: (version: ApiVersion) => T): (version: ApiVersion) => T {
  const table: ReadonlyMap<string, T> = new Map(
    ALL_VERSION_LABELS.map((label) => [label, build(ApiVersion.parse(label)!)]),
  );
  return (version) => {
    const value = table.get(version.label);
    if (value === undefined) throw new Error(`no value for API version ${version.label}`);
    return value;
  };
}
