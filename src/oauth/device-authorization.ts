import { CliError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { assertSafeUrl } from '../http/transport.js';
import { registerSecret } from '../util/redact.js';
import { type ClientIdentity, clientAuth, oauthClient } from './client.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth4webapi.js';
import { oauthStep } from './oauth-errors.js';

/** The device authorization grant's type (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8628 §3.5: without an interval, clients poll every 5 seconds. */
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;

/** Whether a client registered here should ask for the device grant: the server offers it. */
export function offersDeviceGrant(as: AuthorizationServer): boolean {
  return typeof as.device_authorization_endpoint === 'string' && (!as.grant_types_supported || as.grant_types_supported.includes(DEVICE_CODE_GRANT));
}

export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete?: string;
  /** Seconds the codes stay valid. */
  expiresIn: number;
  /** Seconds to wait between polls, as the server asked (at least 1). */
  interval: number;
}

/**
 * RFC 8628 §3.1-3.2: asks for a device code and a user code. oauth4webapi checks the answer's
 * shape (a positive interval among it); the verification URIs must be ones a browser may open.
 */
export async function requestDeviceAuthorization(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { scopes: string[]; resource?: string; signal?: AbortSignal },
): Promise<DeviceAuthorization> {
  if (!as.device_authorization_endpoint) {
    throw new CliError(`The authorization server ${as.issuer} has no device_authorization_endpoint.`, { code: 'unsupported' });
  }
  const oauth = await loadOAuth();
  const params = new URLSearchParams();
  if (p.scopes.length) params.set('scope', p.scopes.join(' '));
  if (p.resource) params.set('resource', p.resource);
  const answer = await oauthStep('device authorization endpoint', async () => {
    const res = await oauth.deviceAuthorizationRequest(as, oauthClient(client), clientAuth(oauth, client), params, requestOptions(oauth, http, p.signal));
    return oauth.processDeviceAuthorizationResponse(as, oauthClient(client), res);
  });
  registerSecret(answer.device_code);
  assertSafeUrl(answer.verification_uri, 'verification_uri', 'server');
  if (answer.verification_uri_complete !== undefined) assertSafeUrl(answer.verification_uri_complete, 'verification_uri_complete', 'server');
  return {
    deviceCode: answer.device_code,
    userCode: answer.user_code,
    verificationUri: answer.verification_uri,
    verificationUriComplete: answer.verification_uri_complete,
    expiresIn: answer.expires_in,
    interval: Math.max(1, answer.interval ?? DEFAULT_POLL_INTERVAL_SECONDS),
  };
}
