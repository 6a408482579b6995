import type { Queryable } from '../pool';

/** One `PATCH documents/{id}/commands` request as it was applied: who, which versions, what. */
export interface CommandTransaction {
  projectId: number;
  documentId: number;
  clientId: string | null;
  versionBefore: number;
  commands: unknown[];
  preconditions: unknown[];
  preserveUpdatedAt: boolean;
  createdAt: Date;
}

/** The one writer of `document_command_transactions`. */
export function documentCommandTransactionQueries(db: Queryable) {
  return {
    async insert(transaction: CommandTransaction): Promise<void> {
      await db.query({
        name: 'document-command-transactions-insert',
        text: `INSERT INTO document_command_transactions (project_id, document_id, client_id, version_before,
           version_after, commands, preconditions, preserve_updated_at, created_at)
         VALUES ($1, $2, $3, $4, $4 + 1, $5, $6, $7, $8)`,
        values: [
          transaction.projectId,
          transaction.documentId,
          transaction.clientId,
          transaction.versionBefore,
          JSON.stringify(transaction.commands),
          JSON.stringify(transaction.preconditions),
          transaction.preserveUpdatedAt,
          transaction.createdAt,
        ],
      });
    },
  };
}
