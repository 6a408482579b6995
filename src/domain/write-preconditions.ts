import { AppError } from './errors';

/**
 * The preconditions (RFC 9110 §13.1) of a write to something that has no strong entity tag: a document (PATCH
 * documents/{id}/commands), a media library entry (PATCH mediaLibrary/{id}), a publication a planning tool
 * follows (PUT and DELETE planner-integration/publication/{documentId}) or a planning tool's element (POST
 * and PUT planner/element[/{documentId}], DELETE planner/element/{documentId}). Their reads carry a weak ETag
 * of the answer (it varies with the API version and the origin), which If-Match's strong comparison never
 * matches; the optimistic check of a document or an entry is the body's `version`, of a followed publication
 * or an element the time it was last written (If-Unmodified-Since). The edge reads the headers into this
 * (src/http/conditional-get.ts, writePreconditionsOf); the write judges it on the locked row, so an
 * unknown id stays a 404 (§13.2.1: preconditions are judged on a target that exists).
 */
export interface WritePreconditions {
  /**
   * The request's If-Match names entity tags (not `*`): none can hold, so a 412 rather than ignored, since a
   * client that sends them expects a stale write to be refused.
   */
  ifMatchTagged?: boolean;
  /**
   * The request's If-Match is `*` (or lists it): it holds only while the target exists (§13.1.1), so a write
   * that would create it (a PUT, assertPutPreconditions) is a 412.
   */
  ifMatchAny?: boolean;
  /**
   * The request's If-None-Match is `*` (§13.1.2: only if the target does not exist): a 412 on one that does.
   * Any tag list holds, there being no entity tag to match.
   */
  ifNoneMatchAny?: boolean;
  /**
   * The request's If-Unmodified-Since, as milliseconds since the epoch (absent when the header is, when it is
   * not an HTTP-date, or when an If-Match is sent: §13.1.4 ignores it then). A target changed after it (its
   * updatedAt, at the second an HTTP-date shows) is a 412: the client's copy is older.
   */
  ifUnmodifiedSince?: number;
}

/** How the 412s name the target of the write. */
export interface PreconditionTarget {
  /** What it is: 'document', 'media library entry'. */
  noun: string;
  /**
   * Where a client reads the version it sends in the body (`version`): "latestDraft's systemdata.version".
   * Absent for a target whose writes take no version (a followed publication).
   */
  versionShown?: string;
  /** How a client reads it again: 'latestDraft'. Absent for a target the API has no read of (an element). */
  readAgain?: string;
  /**
   * The write creates it when it does not exist (PUT of a followed publication, POST of a planner element):
   * If-None-Match: * is then a way to write only a new one, which the If-Match 412 suggests. A write that only
   * changes an existing target (PUT of an element) is never done with If-None-Match: *.
   */
  createdWhenAbsent?: boolean;
}

/**
 * Whether a target whose updatedAt is `updatedAt` changed after an If-Unmodified-Since date: compared at the
 * second, the precision of an HTTP-date (a client sends the updatedAt it read, which has milliseconds, cut to
 * the second).
 */
export function modifiedAfter(updatedAt: Date, since: number): boolean {
  return Math.floor(updatedAt.getTime() / 1000) * 1000 > since;
}

/**
 * Throws the 412 PreconditionFailed of the first precondition that does not hold on the target as it is now
 * (If-Match, then If-None-Match, then If-Unmodified-Since), with its currentVersion when it has one (and
 * updatedAt for a date).
 */
export function assertWritePreconditions(
  preconditions: WritePreconditions,
  target: PreconditionTarget,
  current: { version?: number; updatedAt: Date },
): void {
  const failed = (message: string, extra: Record<string, unknown> = {}) =>
    new AppError(412, {
      name: 'PreconditionFailed',
      message,
      ...(current.version !== undefined && { currentVersion: current.version }),
      ...extra,
    });
  if (preconditions.ifMatchTagged === true) {
    throw failed(
      `If-Match cannot hold: a ${target.noun} has no entity tag to match. ` +
        (target.versionShown !== undefined
          ? `Send the version the change is based on (${target.versionShown}) in the body (\`version\`) instead`
          : target.createdWhenAbsent === true
            ? 'Send If-Unmodified-Since instead, or If-None-Match: * to write only one that does not exist yet'
            : 'Send If-Unmodified-Since instead'),
    );
  }
  if (preconditions.ifNoneMatchAny === true) {
    throw failed(
      `If-None-Match: * cannot hold: the ${target.noun} exists (it asks to change only what does not)`,
    );
  }
  const since = preconditions.ifUnmodifiedSince;
  if (since !== undefined && modifiedAfter(current.updatedAt, since)) {
    throw failed(
      `The ${target.noun} was changed after If-Unmodified-Since (${new Date(since).toUTCString()}): its ` +
        `updatedAt is ${current.updatedAt.toISOString()}` +
        (target.readAgain === undefined ? '' : `. Read it again (${target.readAgain})`) +
        (target.versionShown === undefined
          ? ''
          : ', or send the version the change is based on in the body (`version`)'),
      { updatedAt: current.updatedAt.toISOString() },
    );
  }
}

/**
 * The preconditions of a write that creates its target when it does not exist (a PUT, POST planner/element):
 * on a target that exists, those of any write (assertWritePreconditions); on one that does not, any If-Match is
 * a 412, `*` included (§13.1.1: it holds only for a current representation), and the rest hold
 * (If-None-Match: * asks for just that; there is no date to compare). `absent` says what is not there: "the
 * publication of document 5 is not followed".
 */
export function assertPutPreconditions(
  preconditions: WritePreconditions,
  target: PreconditionTarget,
  current: { version?: number; updatedAt: Date } | undefined,
  absent: string,
): void {
  if (current !== undefined) {
    assertWritePreconditions(preconditions, target, current);
    return;
  }
  if (preconditions.ifMatchTagged === true || preconditions.ifMatchAny === true) {
    throw new AppError(412, {
      name: 'PreconditionFailed',
      message: `If-Match cannot hold: ${absent} (it asks to change only what exists)`,
    });
  }
}
