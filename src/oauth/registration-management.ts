import type * as OAuthModule from 'oauth4webapi';
import { CliError, messageOf } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { assertSafeUrl } from '../http/transport.js';
import { PlainHeaders } from '../http/web-types.js';
import { registerSecret } from '../util/redact.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth4webapi.js';

/** What RFC 7592 needs to read or delete a registration: where it lives, and the token for it. */
export interface RegistrationManagement {
  clientUri: string;
  accessToken: string;
}

/**
 * The origins a registration may be managed at: the registration endpoint's, else the issuer's.
 * A registration_client_uri elsewhere would receive the registration access token from us.
 */
function managementOrigins(as: AuthorizationServer): string[] {
  const origins = [new URL(as.issuer).origin];
  if (as.registration_endpoint) origins.push(new URL(String(as.registration_endpoint)).origin);
  return origins;
}

/** Refuses a registration_client_uri that is not https (loopback aside) or not of the server's own origins. */
function checkRegistrationClientUri(as: AuthorizationServer, uri: string): URL {
  const url = assertSafeUrl(uri, 'registration_client_uri', 'server');
  const origins = managementOrigins(as);
  if (!origins.includes(url.origin)) {
    throw new CliError(`The server gave a registration_client_uri on another origin (${url.origin}) than its own (${origins.join(', ')}); it is not used, and nothing is sent there.`, {
      code: 'foreign_endpoint',
    });
  }
  return url;
}

/**
 * The management fields of a registration answer (RFC 7592 §3), when it has both. A URI the
 * server may not have (another origin) is given back as a refusal to report, never as one to use.
 */
export function managementOf(as: AuthorizationServer, answer: Record<string, unknown>): { management?: RegistrationManagement; refused?: CliError } {
  const uri = answer.registration_client_uri;
  const token = answer.registration_access_token;
  if (typeof token === 'string' && token) registerSecret(token);
  if (typeof uri !== 'string' || !uri || typeof token !== 'string' || !token) return {};
  try {
    checkRegistrationClientUri(as, uri);
  } catch (err) {
    if (err instanceof CliError) return { refused: err };
    throw err;
  }
  return { management: { clientUri: uri, accessToken: token } };
}

/** What a read or a delete of the registration came to. */
export type ManagementAnswer =
  | { outcome: 'ok'; status: number }
  /** 401, 403 or 404: the server no longer knows the client, or this token for it (RFC 7592 §2.1). */
  | { outcome: 'unknown'; status: number }
  | { outcome: 'failed'; status?: number; reason: string };

async function manage(http: HttpClient, as: AuthorizationServer, m: RegistrationManagement, method: 'GET' | 'DELETE', signal?: AbortSignal): Promise<ManagementAnswer> {
  const url = checkRegistrationClientUri(as, m.clientUri);
  registerSecret(m.accessToken);
  const oauth = await loadOAuth();
  let status: number;
  try {
    const headers = new PlainHeaders({ accept: 'application/json' }) as unknown as Headers;
    const options = requestOptions(oauth, http, signal) as unknown as OAuthModule.ProtectedResourceRequestOptions;
    const res = await oauth.protectedResourceRequest(m.accessToken, method, url, headers, null, options);
    status = res.status;
    await res.arrayBuffer().catch(() => undefined);
  } catch (err) {
    // A challenge (WWW-Authenticate) comes with the status it was sent with.
    const challenged = err instanceof oauth.WWWAuthenticateChallengeError ? err.status : undefined;
    if (challenged === undefined) return { outcome: 'failed', reason: messageOf(err) };
    status = challenged;
  }
  const expected = method === 'GET' ? status === 200 : status === 204 || status === 200;
  if (expected) return { outcome: 'ok', status };
  if (status === 401 || status === 403 || status === 404) return { outcome: 'unknown', status };
  return { outcome: 'failed', status, reason: `the registration endpoint answered HTTP ${status}` };
}

/** RFC 7592 §2.1: reads the client's registration to confirm the server still has it. */
export function readRegistration(http: HttpClient, as: AuthorizationServer, m: RegistrationManagement, signal?: AbortSignal): Promise<ManagementAnswer> {
  return manage(http, as, m, 'GET', signal);
}

/** RFC 7592 §2.3: deletes the client's registration at the server. */
export function deleteRegistration(http: HttpClient, as: AuthorizationServer, m: RegistrationManagement, signal?: AbortSignal): Promise<ManagementAnswer> {
  return manage(http, as, m, 'DELETE', signal);
}
