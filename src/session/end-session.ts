import type { Deps } from '../deps.js';
import { errorReason } from '../errors.js';
import { ServerRefusal } from '../oauth/oauth-errors.js';
import { revokeToken } from '../oauth/revoke.js';
import type { Profile } from '../types/profile.js';
import { KEYCHAIN_SERVICE, type StorageKind, clientAccount, profileAccount } from '../state/credential-store.js';
import type { TokenSet } from '../types/tokens.js';
import { type RegistrationEnd, endUnusedRegistration } from './end-registration.js';
import { serverFor } from './server.js';

/**
 * What the server did with a profile's tokens at logout:
 * - revoked: the refresh token (if any) was revoked, the access token revoked or not revocable
 *   there (`unsupported_token_type`, RFC 7009 §2.2.1)
 * - unsupported: the server has no revocation endpoint; the tokens live until they expire
 * - nothing_stored: no tokens were stored
 * - failed: the server refused, could not be reached, or the tokens could not be read
 */
type Revocation = { kind: 'revoked' | 'unsupported' | 'nothing_stored' } | { kind: 'failed'; reason: string };

/** A secret that stays stored because its store refused to remove it, and how to remove it by hand. */
export interface KeptSecret {
  kind: StorageKind;
  reason: string;
  location: string;
  account: string;
}

export interface LogoutResult {
  profile: string;
  baseUrl: string;
  revocation: Revocation;
  /** Set when the profile's tokens could not be removed: the profile is kept, so a later logout can finish. */
  kept?: KeptSecret;
  clientSecretForgotten: boolean;
  /** RFC 7592: the client registration, when this was its last profile and the server said how to delete it. */
  registration?: RegistrationEnd;
}

async function revokeAtServer(deps: Deps, p: Profile, set: TokenSet): Promise<Revocation> {
  try {
    const server = await serverFor(deps, p.baseUrl, p.issuer);
    if (!server.as.revocation_endpoint) return { kind: 'unsupported' };
    const client = { clientId: set.clientId, authMethod: p.authMethod, clientSecret: set.clientSecret };
    // The refresh token first: it is the long-lived one.
    if (set.refreshToken) await revokeToken(deps.http, server.as, client, { token: set.refreshToken, hint: 'refresh_token', signal: deps.signal, dpopKey: set.dpopKey });
    try {
      await revokeToken(deps.http, server.as, client, { token: set.accessToken, hint: 'access_token', signal: deps.signal, dpopKey: set.dpopKey });
    } catch (err) {
      // A server may not revoke access tokens at all (self-contained ones); that is no failure.
      if (!(err instanceof ServerRefusal && err.error === 'unsupported_token_type')) throw err;
    }
    return { kind: 'revoked' };
  } catch (err) {
    return { kind: 'failed', reason: errorReason(err) };
  }
}

async function revokeProfile(deps: Deps, name: string, p: Profile): Promise<Revocation> {
  try {
    // A refused renewal says nothing of the access token (nor, from a faulty server, of the refresh
    // token): both are still revoked.
    const found = await deps.state.inspectTokens(name, p, { evenIfRefused: true });
    if (found.ok) return await revokeAtServer(deps, p, found.set);
    switch (found.problem.problem) {
      case 'missing':
        return { kind: 'nothing_stored' };
      default:
        return { kind: 'failed', reason: `the stored tokens could not be read (${errorReason(found.problem)})` };
    }
  } catch (err) {
    return { kind: 'failed', reason: `the stored tokens could not be read (${errorReason(err)})` };
  }
}

/** The registration secret of a confidential client no remaining profile uses: forgotten with the last one. */
async function forgetClientSecret(deps: Deps, p: Profile): Promise<KeptSecret | undefined | 'forgotten'> {
  if (p.authMethod === 'none') return undefined;
  const stillUsed = Object.values(await deps.state.profiles()).some((other) => other.issuer === p.issuer && other.clientId === p.clientId);
  if (stillUsed) return undefined;
  const registration = await deps.state.clientRegistration(p.issuer, (c) => c.clientId === p.clientId);
  if (!registration?.secretStorage) return undefined;
  const kind = registration.secretStorage;
  try {
    await deps.state.forgetClientSecret(p.issuer, registration);
    return 'forgotten';
  } catch (err) {
    const location = (await deps.state.openStore(kind).catch(() => undefined))?.location ?? kind;
    return { kind, reason: errorReason(err), location, account: clientAccount(p.issuer, p.clientId) };
  }
}

/**
 * Logs one profile out: revokes at the server what it can, then forgets every local secret of it
 * (tokens, the client secret of a confidential client no other profile uses),
 * whatever the server said. Only a store that refuses to remove a secret keeps anything.
 */
export async function endSession(deps: Deps, name: string, p: Profile): Promise<LogoutResult> {
  const revocation = await revokeProfile(deps, name, p);
  const result: LogoutResult = { profile: name, baseUrl: p.baseUrl, revocation, clientSecretForgotten: false };
  try {
    await deps.state.forgetTokens(name, p.storage);
  } catch (err) {
    const location = (await deps.state.openStore(p.storage).catch(() => undefined))?.location ?? p.storage;
    // Kept so that `school logout` can finish the job once the store can be reached again.
    result.kept = { kind: p.storage, reason: errorReason(err), location, account: profileAccount(deps.state.paths.configDir, name) };
    return result;
  }
  await deps.state.removeProfile(name);
  const registration = await endUnusedRegistration(deps, p);
  if (registration) result.registration = registration;
  if (registration?.kind === 'deleted' && p.authMethod !== 'none') result.clientSecretForgotten = true;
  const secret = await forgetClientSecret(deps, p);
  if (secret === 'forgotten') result.clientSecretForgotten = true;
  else if (secret) result.kept = secret;
  return result;
}

/** How to remove a kept secret by hand, as a sentence. */
export function manualRemoval(kept: KeptSecret): string {
  if (kept.kind === 'keychain') return `To remove it by hand, delete the keychain entry with service "${KEYCHAIN_SERVICE}" and account "${kept.account}".`;
  return `To remove it by hand, delete the entry "${kept.account}" from ${kept.location}.`;
}
