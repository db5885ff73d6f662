import { CliError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { AuthMethod } from '../config/config.js';
import { registerSecret } from '../util/redact.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth.js';

export interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
}

/** RFC 7591 registration as a native app with a loopback redirect. */
export async function registerClient(
  http: HttpClient,
  as: AuthorizationServer,
  params: { redirectUri: string; authMethod: AuthMethod; signal?: AbortSignal },
): Promise<RegisteredClient> {
  if (!as.registration_endpoint) {
    throw new CliError(`The authorization server ${as.issuer} does not offer dynamic client registration.`, { code: 'registration_unsupported' });
  }
  const oauth = await loadOAuth();
  const res = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: 'school command-line client',
      application_type: 'native',
      redirect_uris: [params.redirectUri],
      token_endpoint_auth_method: params.authMethod,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
    requestOptions(oauth, http, params.signal),
  );
  try {
    const client = await oauth.processDynamicClientRegistrationResponse(res);
    registerSecret(client.client_secret as string | undefined);
    if (params.authMethod === 'client_secret_post' && typeof client.client_secret !== 'string') {
      throw new CliError('The server registered a confidential client but returned no client secret.', { code: 'registration_failed' });
    }
    return { clientId: client.client_id, clientSecret: client.client_secret as string | undefined };
  } catch (err) {
    const e = err as { name?: string; error?: string; error_description?: string };
    if (e.name === 'ResponseBodyError' && e.error === 'invalid_redirect_uri') {
      throw new CliError(`The server refused to register the loopback address ${params.redirectUri} (invalid_redirect_uri${e.error_description ? `: ${e.error_description}` : ''}).`, {
        code: 'invalid_redirect_uri',
        hint: 'This server may not accept command-line clients; ask its operator for a registered integration.',
      });
    }
    if (e.name === 'ResponseBodyError' && e.error) {
      throw new CliError(`Client registration was refused: ${e.error}${e.error_description ? ` (${e.error_description})` : ''}.`, { code: 'registration_failed' });
    }
    throw err;
  }
}
