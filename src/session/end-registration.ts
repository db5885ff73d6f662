import type { Deps } from '../deps.js';
import { errorReason } from '../errors.js';
import { deleteRegistration } from '../oauth/registration-management.js';
import type { Profile } from '../state/config-file.js';
import { forgetManagedRegistration, savedManagement } from '../state/registration-token.js';
import { serverFor } from './server.js';

/** What became of a client registration at logout: deleted at the server (and forgotten here), or not. */
export type RegistrationEnd = { kind: 'deleted' } | { kind: 'failed'; reason: string };

/**
 * RFC 7592 §2.3: once no profile uses a client, its registration is deleted at the server, where
 * the server said how (registration_client_uri and a registration access token), and forgotten
 * here. One the server refuses to delete stays saved, so that the next login can use it again.
 * Undefined when there is nothing to do: the client is still used (by a profile, or by a CI job
 * it was handed to), or the server gave no URI.
 */
export async function endUnusedRegistration(deps: Deps, p: Profile): Promise<RegistrationEnd | undefined> {
  const stillUsed = Object.values(await deps.state.profiles()).some((other) => other.issuer === p.issuer && other.clientId === p.clientId);
  if (stillUsed) return undefined;
  // A CI job holds a refresh token of this client: deleting the registration would end it.
  const handedToCi = (await deps.state.ciClients()).some((c) => c.issuer === p.issuer && c.clientId === p.clientId);
  if (handedToCi) return undefined;
  const registration = await deps.state.clientRegistration(p.issuer, (c) => c.clientId === p.clientId);
  if (!registration?.registrationClientUri) return undefined;
  try {
    const management = await savedManagement(deps.state, p.issuer, registration);
    if (!management) return { kind: 'failed', reason: 'its registration access token could not be read' };
    const server = await serverFor(deps, p.baseUrl, p.issuer);
    const answer = await deleteRegistration(deps.http, server.as, management, deps.signal);
    // 401, 403 or 404: the server no longer has the client; there is nothing left to delete.
    if (answer.outcome === 'failed') return { kind: 'failed', reason: answer.reason };
    await forgetManagedRegistration(deps.state, p.issuer, registration);
    return { kind: 'deleted' };
  } catch (err) {
    return { kind: 'failed', reason: errorReason(err) };
  }
}
