import { CliError, UsageError } from '../errors.js';
import type { AuthMethod } from '../types/tokens.js';
import type { TokenSet } from '../types/tokens.js';
import { clientSecretBasic } from './basic-credentials.js';
import type { AuthorizationServer, OAuth } from './oauth4webapi.js';

/** The client the CLI is to the authorization server: its id and how it authenticates. */
export interface ClientIdentity {
  clientId: string;
  authMethod: AuthMethod;
  clientSecret?: string;
}

// Of the secret-based methods, the form body is preferred: client_secret_basic needs the id and
// secret form-encoded inside the header (RFC 6749 §2.3.1), which some servers fail to decode.
const CONFIDENTIAL_PREFERENCE: readonly AuthMethod[] = ['client_secret_post', 'client_secret_basic'];

export interface AuthMethodChoice {
  method: AuthMethod;
  /** True when the server's metadata, not the user, made the client confidential. */
  becameConfidential: boolean;
}

/**
 * How to register at a token endpoint from its `token_endpoint_auth_methods_supported`: a public
 * client (`none`) when offered, else a confidential one with a secret in the body or a Basic
 * header; `--confidential` skips `none`. A missing list is not a refusal of `none`: the registration
 * answer then says which method the server assigned (RFC 7591 §3.2.1).
 */
export function chooseAuthMethod(offered: readonly string[] | undefined, confidential: boolean): AuthMethodChoice {
  // An omitted list means client_secret_basic (RFC 8414 §2), which is then the only safe secret method.
  if (!offered) return { method: confidential ? 'client_secret_basic' : 'none', becameConfidential: false };
  if (!confidential && offered.includes('none')) return { method: 'none', becameConfidential: false };
  const method = CONFIDENTIAL_PREFERENCE.find((m) => offered.includes(m));
  if (!method && offered.includes('none')) {
    throw new UsageError('--confidential: the authorization server accepts only public clients (token_endpoint_auth_methods_supported is "none").', {
      hint: 'Log in without --confidential.',
    });
  }
  if (!method) {
    throw new CliError(
      `The authorization server offers no client authentication this CLI supports (it offers ${offered.join(', ') || 'none at all'}; supported: none, client_secret_post, client_secret_basic).`,
      { code: 'unsupported_auth_method' },
    );
  }
  return { method, becameConfidential: !confidential };
}

/**
 * How a client registered out of band presents its secret: the form body where the token
 * endpoint's metadata lists it, else a Basic header (also what an omitted list means, RFC 8414 §2).
 */
export function preRegisteredAuthMethod(offered: readonly string[] | undefined): AuthMethod {
  if (!offered) return 'client_secret_basic';
  const method = CONFIDENTIAL_PREFERENCE.find((m) => offered.includes(m));
  if (!method) {
    throw new CliError(
      `The authorization server accepts no client secret this CLI can present (it offers ${offered.join(', ') || 'none at all'}; supported: client_secret_post, client_secret_basic).`,
      { code: 'unsupported_auth_method' },
    );
  }
  return method;
}

/**
 * The method the revocation or introspection endpoint's metadata names (tried after the client's
 * own, see endpoint-auth.ts): its own `*_auth_methods_supported`,
 * else the token endpoint's list (RFC 8414 §2 leaves an omitted list to "other means"; the token
 * endpoint's is the one the server did publish), else the client's own method. A public client
 * has nothing but its id to present.
 */
export function endpointAuthMethod(client: ClientIdentity, endpointMethods: readonly string[] | undefined, tokenMethods: readonly string[] | undefined): AuthMethod {
  if (!client.clientSecret || client.authMethod === 'none') return 'none';
  const offered = endpointMethods ?? tokenMethods;
  if (!offered || offered.includes(client.authMethod)) return client.authMethod;
  return CONFIDENTIAL_PREFERENCE.find((m) => offered.includes(m)) ?? client.authMethod;
}

/**
 * The client a token set was issued to: confidential when it carries a client secret, with the
 * method saved at login, else (a secret from the environment) the one the metadata prefers.
 */
export function clientOf(set: Pick<TokenSet, 'clientId' | 'clientSecret' | 'authMethod'>, fallbackSecret?: string, as?: AuthorizationServer): ClientIdentity {
  const clientSecret = set.clientSecret ?? fallbackSecret;
  if (!clientSecret) return { clientId: set.clientId, authMethod: 'none' };
  const saved = set.authMethod && set.authMethod !== 'none' ? set.authMethod : undefined;
  const offered = as?.token_endpoint_auth_methods_supported;
  const authMethod = saved ?? (offered ? CONFIDENTIAL_PREFERENCE.find((m) => offered.includes(m)) : 'client_secret_basic') ?? 'client_secret_post';
  return { clientId: set.clientId, authMethod, clientSecret };
}

export function oauthClient(c: ClientIdentity) {
  return { client_id: c.clientId, token_endpoint_auth_method: c.authMethod };
}

/**
 * oauth4webapi's client authentication for `method` (the client's own unless an endpoint asks another);
 * Basic credentials encoded as basic-credentials.ts explains.
 */
export function clientAuth(oauth: OAuth, c: ClientIdentity, method: AuthMethod = c.authMethod) {
  if (!c.clientSecret) return oauth.None();
  if (method === 'client_secret_post') return oauth.ClientSecretPost(c.clientSecret);
  if (method === 'client_secret_basic') return clientSecretBasic(c.clientSecret);
  return oauth.None();
}

export function resourceParams(resource: string | undefined) {
  return resource ? { additionalParameters: { resource } } : {};
}
