import type { ApiVersion } from '../domain/api-versions';
import type { RateLimit } from '../domain/rate-limits';

/** Who is calling: set by the auth middleware from a verified token and its API client. */
export interface AuthContext {
  projectId: number;
  channelId: number | null;
  clientId: string;
  clientName: string;
  scopes: ReadonlySet<string>;
  /** The client's own limit or the installation's default; undefined: none (README, "Rate limits"). */
  rateLimit: RateLimit | undefined;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the version middleware for every `/api/{version}/...` request. */
    apiVersion: ApiVersion;
    /** Set by `authenticate` on every route that needs a token. */
    auth: AuthContext;
    id: string;
  }
}
