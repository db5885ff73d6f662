import { CliError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { AuthMethod } from '../state/config-file.js';
import { registerSecret } from '../util/redact.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './library.js';
import { ServerRefusal, oauthStep } from './oauth-errors.js';

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
  let client: Awaited<ReturnType<typeof oauth.processDynamicClientRegistrationResponse>>;
  try {
    client = await oauthStep(async () => {
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
      return oauth.processDynamicClientRegistrationResponse(res);
    });
  } catch (err) {
    if (err instanceof ServerRefusal && err.error === 'invalid_redirect_uri') {
      throw new CliError(`The server refused to register the loopback address ${params.redirectUri} (${err.detail}).`, {
        code: 'invalid_redirect_uri',
        hint: 'This server may not accept command-line clients; ask its operator for a registered integration.',
      });
    }
    if (err instanceof ServerRefusal) {
      throw new CliError(`Client registration was refused: ${err.error}${err.description ? ` (${err.description})` : ''}.`, { code: 'registration_failed' });
    }
    throw err;
  }
  const clientSecret = typeof client.client_secret === 'string' ? client.client_secret : undefined;
  registerSecret(clientSecret);
  if (params.authMethod === 'client_secret_post' && !clientSecret) {
    throw new CliError('The server registered a confidential client but returned no client secret.', { code: 'registration_failed' });
  }
  return { clientId: client.client_id, clientSecret };
}
