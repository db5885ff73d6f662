import type { AuthMethod } from '../state/config-file.js';
import type { TokenSet } from '../state/token-set.js';
import type { OAuth } from './library.js';

/** The client the CLI is to the authorization server: its id and how it authenticates. */
export interface ClientIdentity {
  clientId: string;
  authMethod: AuthMethod;
  clientSecret?: string;
}

/** The client a token set was issued to: confidential when it carries a client secret. */
export function clientOf(set: Pick<TokenSet, 'clientId' | 'clientSecret'>, fallbackSecret?: string): ClientIdentity {
  const clientSecret = set.clientSecret ?? fallbackSecret;
  return { clientId: set.clientId, authMethod: clientSecret ? 'client_secret_post' : 'none', clientSecret };
}

export function oauthClient(c: ClientIdentity) {
  return { client_id: c.clientId, token_endpoint_auth_method: c.authMethod };
}

export function clientAuth(oauth: OAuth, c: ClientIdentity) {
  return c.authMethod === 'client_secret_post' && c.clientSecret ? oauth.ClientSecretPost(c.clientSecret) : oauth.None();
}

export function resourceParams(resource: string | undefined) {
  return resource ? { additionalParameters: { resource } } : {};
}
