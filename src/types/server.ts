import type { AuthorizationServer } from 'oauth4webapi';

export type { AuthorizationServer };

/** What discovery learned of a school: its base URL, the resource it names, its authorization server's metadata. */
export interface ServerInfo {
  /** The API origin (and path, if any) the user gave, without a trailing slash. */
  baseUrl: string;
  /** RFC 8707 resource identifier, from the protected-resource metadata. */
  resource?: string;
  as: AuthorizationServer;
}
