import { CliError } from '../errors.js';
import type { HttpClient, HttpResponse } from '../http/client.js';
import type { TokenSet } from '../state/token-set.js';
import type { ClientIdentity } from './client.js';
import type { AuthorizationServer } from './library.js';
import { refusedRequest } from './oauth-errors.js';
import { type TokenResponse, toTokenSet } from './token-response.js';

/**
 * The refresh token grant (RFC 6749 §6). Deliberately not abortable: once sent, a rotating refresh
 * cannot be taken back, so neither Ctrl-C nor a short timeout may cut it off before the answer is kept.
 *
 * Unlike the other protocol steps it does not go through oauth4webapi: that library works on the
 * fetch API's Headers and Response, and loading those (Node's bundled undici) costs more than the
 * whole start-up budget of `school token` when it must refresh, the path scripts hit once an hour.
 * The grant is one form POST; its answer is checked as oauth4webapi checks a token response.
 */
export async function refreshGrant(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { current: TokenSet & { refreshToken: string }; nowSeconds: number; timeoutMs: number },
): Promise<TokenSet> {
  if (!as.token_endpoint) throw new CliError('The authorization server metadata has no token_endpoint.', { code: 'discovery_failed' });
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: p.current.refreshToken });
  if (p.current.resource) form.set('resource', p.current.resource);
  // The two ways this client authenticates (see clientOf): none, or client_secret_post.
  form.set('client_id', client.clientId);
  if (client.authMethod === 'client_secret_post' && client.clientSecret) form.set('client_secret', client.clientSecret);
  const res = await http.request({
    method: 'POST',
    url: as.token_endpoint,
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
    body: form.toString(),
    timeoutMs: p.timeoutMs,
  });
  const next = toTokenSet(checkedTokenResponse(res), { issuer: p.current.issuer, client, resource: p.current.resource, nowSeconds: p.nowSeconds, previous: p.current });
  // A secret that came from the environment is not copied into the stored set.
  if (!p.current.clientSecret) delete next.clientSecret;
  return next;
}

function protocolError(detail: string): CliError {
  return new CliError(`The server's response failed a protocol check: the token endpoint ${detail}.`, { code: 'protocol_error' });
}

function jsonObject(res: HttpResponse): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(res.body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : undefined;
  } catch {
    return undefined;
  }
}

const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * A token endpoint answer (RFC 6749 §5.1, §5.2), held to the checks oauth4webapi applies: HTTP 200
 * with a JSON object naming a bearer access token, or an OAuth error. An ID token in a refresh
 * answer is not kept (the session keeps the subject from login), so it is not read either.
 */
export function checkedTokenResponse(res: HttpResponse): TokenResponse {
  const body = jsonObject(res);
  if (res.status !== 200) {
    if (body && nonEmptyString(body.error)) {
      throw refusedRequest(body.error, typeof body.error_description === 'string' ? body.error_description : undefined);
    }
    throw protocolError(`answered HTTP ${res.status} without an OAuth error`);
  }
  if (!body) throw protocolError('did not answer with a JSON object');
  const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn, refresh_token: refreshToken, scope } = body;
  if (!nonEmptyString(accessToken)) throw protocolError('sent no access_token');
  if (!nonEmptyString(tokenType)) throw protocolError('sent no token_type');
  // Sent in the Authorization header as "Bearer": any other kind of token would be misused.
  if (tokenType.toLowerCase() !== 'bearer') throw protocolError(`sent a token of type "${tokenType}", not a bearer token`);
  const lifetime = typeof expiresIn === 'string' ? Number.parseFloat(expiresIn) : expiresIn;
  if (lifetime !== undefined && (typeof lifetime !== 'number' || !Number.isFinite(lifetime) || lifetime < 0)) throw protocolError('sent an invalid expires_in');
  if (refreshToken !== undefined && !nonEmptyString(refreshToken)) throw protocolError('sent an invalid refresh_token');
  if (scope !== undefined && typeof scope !== 'string') throw protocolError('sent an invalid scope');
  return { access_token: accessToken, token_type: 'bearer', expires_in: lifetime, refresh_token: refreshToken, scope };
}
