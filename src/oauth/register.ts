import { CliError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { BufferedResponse } from '../http/web-types.js';
import { type AuthMethod, isAuthMethod } from '../types/tokens.js';
import { registerSecret } from '../util/redact.js';
import { type AuthorizationServer, asStandardResponse, loadOAuth, requestOptions } from './oauth4webapi.js';
import { DEVICE_CODE_GRANT, offersDeviceGrant } from './device-authorization.js';
import { ServerRefusal, oauthStep } from './oauth-errors.js';
import { type RegistrationManagement, managementOf } from './registration-management.js';

export interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** The method the server registered, which may differ from the one asked (RFC 7591 §3.2.1). */
  authMethod: AuthMethod;
  /** RFC 7592: where and how the registration can be read and deleted, when the server says. */
  management?: RegistrationManagement;
  /** A registration_client_uri that was not taken (another origin): why, to tell the user. */
  managementRefused?: CliError;
}

/**
 * The registration answer as oauth4webapi is to check it, read as liberally as safety allows.
 * RFC 7591 §3.2.1 answers a registration with 201; some servers answer 200 with the same body,
 * which is read as the 201 it stands for. A `client_secret` without `client_secret_expires_at`
 * (the RFC requires it, servers in the field omit it) is read as a secret that does not expire
 * (the field's own 0): the secret is no less the server's, and refusing the whole login over a
 * missing expiry protects nothing. Everything else is left to oauth4webapi's checks.
 */
async function liberalAnswer(res: Response): Promise<Response> {
  if ((res.status !== 200 && res.status !== 201) || res.bodyUsed) return res;
  const bytes = new Uint8Array(await res.arrayBuffer());
  const rebuilt = (body: Uint8Array) => asStandardResponse(new BufferedResponse(body, { status: 201, statusText: 'Created', headers: res.headers }));
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return rebuilt(bytes);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return rebuilt(bytes);
  const fields = body as Record<string, unknown>;
  if (typeof fields.client_secret !== 'string' || !fields.client_secret || fields.client_secret_expires_at !== undefined) return rebuilt(bytes);
  return rebuilt(new TextEncoder().encode(JSON.stringify({ ...fields, client_secret_expires_at: 0 })));
}

/**
 * How to present a secret the server issued: the method its answer names; else the one asked;
 * else (asked for none, given a secret anyway) client_secret_basic, RFC 7591 §2's default.
 */
function secretMethod(named: unknown, asked: AuthMethod): AuthMethod {
  if (isAuthMethod(named) && named !== 'none') return named;
  return asked === 'none' ? 'client_secret_basic' : asked;
}

/** RFC 7591 registration as a native app with a loopback redirect. */
export async function registerClient(http: HttpClient, as: AuthorizationServer, params: { redirectUri: string; authMethod: AuthMethod; signal?: AbortSignal }): Promise<RegisteredClient> {
  if (!as.registration_endpoint) {
    throw new CliError(`The authorization server ${as.issuer} does not offer dynamic client registration.`, { code: 'registration_unsupported' });
  }
  const oauth = await loadOAuth();
  let client: Awaited<ReturnType<typeof oauth.processDynamicClientRegistrationResponse>>;
  try {
    client = await oauthStep('registration endpoint', async () => {
      const res = await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'school command-line client',
          application_type: 'native',
          redirect_uris: [params.redirectUri],
          token_endpoint_auth_method: params.authMethod,
          // The device grant too where the server offers it, so that `login --device` can use this client.
          grant_types: ['authorization_code', 'refresh_token', ...(offersDeviceGrant(as) ? [DEVICE_CODE_GRANT] : [])],
          response_types: ['code'],
        },
        requestOptions(oauth, http, params.signal),
      );
      return oauth.processDynamicClientRegistrationResponse(await liberalAnswer(res));
    });
  } catch (err) {
    const status = err instanceof ServerRefusal && err.status ? `HTTP ${err.status}, ` : '';
    if (err instanceof ServerRefusal && err.error === 'invalid_redirect_uri') {
      throw new CliError(`The server refused to register the loopback address ${params.redirectUri} (${status}${err.detail}).`, {
        code: 'invalid_redirect_uri',
        hint: 'This server may not accept command-line clients; ask its operator for a registered integration.',
      });
    }
    if (err instanceof ServerRefusal) {
      throw new CliError(`Client registration was refused (${status}${err.detail}).`, { code: 'registration_failed' });
    }
    if (err instanceof CliError && err.code === 'server_error') {
      throw new CliError(`Client registration failed: ${err.message.charAt(0).toLowerCase()}${err.message.slice(1)}`, { code: 'registration_failed', cause: err });
    }
    throw err;
  }
  const clientSecret = typeof client.client_secret === 'string' && client.client_secret ? client.client_secret : undefined;
  registerSecret(clientSecret);
  const authMethod: AuthMethod = clientSecret ? secretMethod(client.token_endpoint_auth_method, params.authMethod) : 'none';
  if (params.authMethod !== 'none' && !clientSecret) {
    throw new CliError('The server registered a confidential client but returned no client secret.', { code: 'registration_failed' });
  }
  const { management, refused } = managementOf(as, client);
  return { clientId: client.client_id, clientSecret, authMethod, ...(management ? { management } : {}), ...(refused ? { managementRefused: refused } : {}) };
}
