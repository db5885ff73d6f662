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

/**
 * What a protected resource's 401 challenge said (RFC 9728 §5.1), remembered for its base URL so
 * that the login a hint names finds the metadata and asks for the scope the API asked for.
 */
export interface SeenChallenge {
  /** The `resource_metadata` URL the challenge names, as sent (checked when a login fetches it). */
  resourceMetadata?: string;
  /** The plain scope names the challenge asks for. */
  scope?: string[];
}
