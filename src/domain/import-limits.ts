/** An import's sizes, which the CLI shows and checks as it parses its options, before it connects. */

/** The most documents one import request (and one batch of the CLI's) carries. */
export const MAX_IMPORT_DOCUMENTS = 1000;

/** How many documents one transaction of an import writes, unless told otherwise. */
export const DEFAULT_IMPORT_BATCH_SIZE = 500;
/**
 * How many batches of one import are written at once, unless told otherwise: while one batch's statements
 * run in Postgres the next is checked and sent, and Postgres works on two at a time.
 */
export const DEFAULT_IMPORT_CONCURRENCY = 2;
