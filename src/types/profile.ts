import type { StorageKind } from './storage.js';
import type { AuthMethod } from './tokens.js';

export type IdentitySource = 'userinfo' | 'id_token' | 'introspection';

/** What the CLI remembers about one account on one school. Never holds a secret. */
export interface Profile {
  baseUrl: string;
  issuer: string;
  /** RFC 8707 resource the tokens are bound to (from the protected-resource metadata). */
  resource?: string;
  clientId: string;
  authMethod: AuthMethod;
  /** Where this profile's secrets live. */
  storage: StorageKind;
  user?: { sub?: string; name?: string; email?: string };
  /** Where `user` came from: the userinfo endpoint, the ID token, or token introspection. */
  userSource?: IdentitySource;
  /** The validated ID token's identity claims from login (no protocol claims, nothing secret), for `whoami` without userinfo. */
  idClaims?: Record<string, unknown>;
  loggedInAt?: number;
  /** The client was registered out of band (`login --client-id`): no registration was made, and none is ever deleted. */
  preRegistered?: boolean;
  /** Set when the server refused to renew the session: it counts as logged out until the next login. */
  sessionRefused?: { at: number; detail: string };
}

/** A cached dynamic registration, reused by later logins to the same issuer. */
/**
 * A client whose refresh token was handed to CI (`token --for-ci`): the CI job now depends on the
 * registration, so no desk logout may delete it at the server (RFC 7592). Never a secret.
 */
export interface CiClient {
  /** The profile that was handed over. */
  profile: string;
  baseUrl: string;
  issuer: string;
  clientId: string;
  /** Seconds since the epoch. */
  handedOverAt: number;
}

export interface ClientRegistration {
  clientId: string;
  authMethod: AuthMethod;
  redirectUri: string;
  registeredAt: number;
  /** Where its client secret lives, for a confidential client. */
  secretStorage?: StorageKind;
  /** RFC 7592: where the server keeps the registration, to read or delete it (not a secret). */
  registrationClientUri?: string;
  /** Where its registration access token lives (RFC 7592), when the server gave one. */
  registrationTokenStorage?: StorageKind;
  /** Registered for the device authorization grant (RFC 8628) as well. */
  deviceGrant?: boolean;
  /** Registered out of band (`login --client-id`), not by this CLI: never registered again, never deleted at the server. */
  preRegistered?: boolean;
}
