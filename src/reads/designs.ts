import type { Queryable } from '../db/pool';
import { designQueries } from '../db/queries/designs';
import type { Design } from '../domain/design';
import { AppError } from '../domain/errors';
import { quoted } from '../domain/shown-input';

/** The design as the API shows it (supplement §8): every key present, empty where the design has none. */
export function designView(design: Design) {
  return {
    name: design.name,
    version: design.version,
    components: design.components.map((component) => ({
      name: component.name,
      label: component.label ?? component.name,
      html: component.html ?? '',
      directives: component.directives,
      ...(component.containers ? { containers: component.containers } : {}),
    })),
    defaultComponents: design.defaultComponents ?? {},
    groups: design.groups ?? [],
    metadata: design.metadata ?? [],
    assets: design.assets ?? {},
  };
}

/** The project's designs (api-spec §4.5, §4.6). */
export function designReads(db: Queryable) {
  return {
    async current(projectId: number) {
      const design = await designQueries(db).findCurrent(projectId);
      if (!design) throw AppError.notFound('The project has no current design');
      return designView(design);
    },

    async byVersion(projectId: number, version: string) {
      const design = await designQueries(db).findByVersion(projectId, version);
      if (!design) throw AppError.notFound(`Design version ${quoted(version)} does not exist`);
      return designView(design);
    },
  };
}

export type DesignReads = ReturnType<typeof designReads>;
