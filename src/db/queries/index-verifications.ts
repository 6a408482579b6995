import type { Queryable } from '../pool';

/** The counts one `index verify` found (README, "Metrics": broadsheet_index_drift_documents). */
export interface IndexVerificationCounts {
  checked: number;
  missing: number;
  stale: number;
  extra: number;
  rejected: number;
  repaired: number;
}

export interface IndexVerificationRow extends IndexVerificationCounts {
  verifiedAt: Date;
}

export function indexVerificationQueries(db: Queryable) {
  return {
    async insert(counts: IndexVerificationCounts): Promise<void> {
      await db.query(
        `INSERT INTO index_verifications (checked, missing, stale, extra, rejected, repaired)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [counts.checked, counts.missing, counts.stale, counts.extra, counts.rejected, counts.repaired],
      );
    },

    async latest(): Promise<IndexVerificationRow | undefined> {
      const result = await db.query<IndexVerificationRow>(
        `SELECT verified_at AS "verifiedAt", checked, missing, stale, extra, rejected, repaired
         FROM index_verifications ORDER BY id DESC LIMIT 1`,
      );
      return result.rows[0];
    },
  };
}
