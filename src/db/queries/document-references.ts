import type { ReferenceRow } from '../../domain/references';
import type { Queryable } from '../pool';

/** The one writer of `document_references`: the outgoing references of drafts and latest publications. */
export function documentReferenceQueries(db: Queryable) {
  return {
    /** Replaces the stored outgoing references of the document's draft or latest publication. */
    async replace(
      projectId: number,
      documentId: number,
      sourceKind: 'draft' | 'publication',
      rows: ReferenceRow[],
    ): Promise<void> {
      await db.query('DELETE FROM document_references WHERE source_document_id = $1 AND source_kind = $2', [
        documentId,
        sourceKind,
      ]);
      if (rows.length === 0) return;
      await db.query(
        `INSERT INTO document_references (project_id, source_document_id, source_kind, target_type, target_id,
           location, property_name, component_id, component_name, directive_name, service_name)
         SELECT $1, $2, $3, r.target_type, r.target_id, r.location, r.property_name, r.component_id,
           r.component_name, r.directive_name, r.service_name
         FROM jsonb_to_recordset($4::jsonb) AS r(target_type text, target_id text, location text,
           property_name text, component_id text, component_name text, directive_name text, service_name text)`,
        [
          projectId,
          documentId,
          sourceKind,
          JSON.stringify(
            rows.map((row) => ({
              target_type: row.targetType,
              target_id: row.targetId,
              location: row.location,
              property_name: row.propertyName ?? null,
              component_id: row.componentId ?? null,
              component_name: row.componentName ?? null,
              directive_name: row.directiveName ?? null,
              service_name: row.serviceName ?? null,
            })),
          ),
        ],
      );
    },
  };
}
