import type { AuthorizationServer } from 'oauth4webapi';

export type { AuthorizationServer };

/** What discovery learned of a school: its base URL, the resource it names, its authorization server's metadata. */
export interface ServerInfo {
  /** The API origin (and path, if any) the user gave, without a trailing slash. */
  baseUrl: string;
  /** RFC 8707 resource identifier, from the protected-resource metadata. */
  resource?: string;
  /**
   * Where the protected-resource metadata was found (RFC 9728): at the base URL's path-scoped
   * address, at the origin's, or through a challenge's `resource_metadata`; absent where none was.
   */
  resourceFound?: 'path' | 'origin' | 'challenge';
  /** The resource's own `scopes_supported`. */
  resourceScopes?: string[];
  /** The scopes named by the challenge that led to the metadata. */
  challengeScopes?: string[];
  /** DPoP as the resource accepts it (RFC 9728 `dpop_signing_alg_values_supported`, `dpop_bound_access_tokens_required`). */
  resourceDpop?: { algs?: string[]; required: boolean };
  as: AuthorizationServer;
}
