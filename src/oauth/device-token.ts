import type { HttpClient } from '../http/client.js';
import { type ClientIdentity, clientAuth, oauthClient, resourceParams } from './client.js';
import type { ExchangeResult } from './exchange.js';
import { ID_TOKEN_CLOCK_TOLERANCE_SECONDS } from './exchange.js';
import type { DpopKey } from '../types/tokens.js';
import { dpopOption, dpopProver, withNonceRetry } from './dpop.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth4webapi.js';
import { ServerRefusal, oauthStep } from './oauth-errors.js';
import { toTokenSet } from './token-response.js';

/** One poll's answer: keep waiting, wait longer (RFC 8628 §3.5 slow_down), or the tokens. */
export type DevicePoll = { kind: 'pending' } | { kind: 'slow_down' } | { kind: 'done'; result: ExchangeResult };

/**
 * RFC 8628 §3.4-3.5: one token request with the device code. `authorization_pending` and
 * `slow_down` are answers to wait on; any other refusal (access_denied, expired_token) is thrown.
 */
export async function pollDeviceToken(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { deviceCode: string; resource?: string; nowSeconds: number; signal?: AbortSignal; dpopKey?: DpopKey },
): Promise<DevicePoll> {
  const oauth = await loadOAuth();
  const checkedClient = { ...oauthClient(client), [oauth.clockTolerance]: ID_TOKEN_CLOCK_TOLERANCE_SECONDS };
  let res: Awaited<ReturnType<typeof oauth.processDeviceCodeResponse>>;
  try {
    const prover = p.dpopKey ? await dpopProver(p.dpopKey) : undefined;
    res = await oauthStep('token endpoint', () =>
      withNonceRetry('token endpoint', prover, async () => {
        const answer = await oauth.deviceCodeGrantRequest(as, checkedClient, clientAuth(oauth, client), p.deviceCode, {
          ...requestOptions(oauth, http, p.signal),
          ...resourceParams(p.resource),
          ...dpopOption(prover),
        });
        return oauth.processDeviceCodeResponse(as, checkedClient, answer);
      }),
    );
  } catch (err) {
    if (err instanceof ServerRefusal && err.error === 'authorization_pending') return { kind: 'pending' };
    if (err instanceof ServerRefusal && err.error === 'slow_down') return { kind: 'slow_down' };
    throw err;
  }
  const idClaims: Record<string, unknown> | undefined = oauth.getValidatedIdTokenClaims(res);
  const subject = typeof idClaims?.sub === 'string' ? idClaims.sub : undefined;
  return {
    kind: 'done',
    result: {
      tokens: toTokenSet(res, { issuer: as.issuer, client, resource: p.resource, nowSeconds: p.nowSeconds, subject, dpopKey: p.dpopKey }),
      idClaims,
      refreshTokenIssued: typeof res.refresh_token === 'string',
      grantedScope: typeof res.scope === 'string' ? res.scope : undefined,
    },
  };
}
