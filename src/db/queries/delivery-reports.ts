import type { Queryable } from '../pool';

export type DeliveryStatus = 'success' | 'failed' | 'in-progress' | 'aborted';

export interface UserChoice {
  label: string;
  value: string;
}

export interface DeliveryReportRow {
  reportId: string;
  projectId: number;
  documentId: number;
  publicationId: number;
  deliveryHandle: string;
  status: DeliveryStatus;
  message: string | null;
  userChoices: UserChoice[] | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryReportFields {
  publicationId: number;
  deliveryHandle: string;
  status: DeliveryStatus;
  message: string | null;
  userChoices: UserChoice[] | null;
}

const COLUMNS = `id AS "reportId", project_id AS "projectId", document_id AS "documentId",
  publication_id AS "publicationId", delivery_handle AS "deliveryHandle", status, message,
  user_choices AS "userChoices", created_at AS "createdAt", updated_at AS "updatedAt"`;

type ReportWrite = DeliveryReportFields & {
  reportId: string;
  projectId: number;
  documentId: number;
  now: Date;
};

/** $1..$9 of both the insert and the update, in one order. */
function reportParams(report: ReportWrite): unknown[] {
  return [
    report.reportId,
    report.projectId,
    report.documentId,
    report.publicationId,
    report.deliveryHandle,
    report.status,
    report.message,
    report.userChoices === null ? null : JSON.stringify(report.userChoices),
    report.now,
  ];
}

export function deliveryReportQueries(db: Queryable) {
  return {
    async insert(report: ReportWrite): Promise<DeliveryReportRow> {
      const result = await db.query<DeliveryReportRow>(
        `INSERT INTO delivery_reports (id, project_id, document_id, publication_id, delivery_handle, status, message,
           user_choices, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
         RETURNING ${COLUMNS}`,
        reportParams(report),
      );
      return result.rows[0]!;
    },

    /** Updates the report of that document; undefined when the document has no such report. */
    async update(report: ReportWrite): Promise<DeliveryReportRow | undefined> {
      const result = await db.query<DeliveryReportRow>(
        `UPDATE delivery_reports SET publication_id = $4, delivery_handle = $5, status = $6, message = $7,
           user_choices = $8, updated_at = $9
         WHERE id = $1 AND project_id = $2 AND document_id = $3
         RETURNING ${COLUMNS}`,
        reportParams(report),
      );
      return result.rows[0];
    },
  };
}
