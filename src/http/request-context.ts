import type { ApiVersion } from '../domain/api-versions';

/** Who is calling: set by the auth middleware from a verified token and its API client. */
export interface AuthContext {
  projectId: number;
  channelId: number | null;
  clientId: string;
  clientName: string;
  scopes: ReadonlySet<string>;
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
