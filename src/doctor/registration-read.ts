import type { Deps } from '../deps.js';
import { errorReason } from '../errors.js';
import type { AuthorizationServer } from '../oauth/oauth4webapi.js';
import { readRegistration } from '../oauth/registration-management.js';
import type { ClientRegistration } from '../state/config-file.js';
import { savedManagement } from '../state/registration-token.js';

/** What reading a registration (RFC 7592 §2.1) says of it: undefined where the server gave no registration_client_uri. */
export async function registrationReadVerdict(
  deps: Deps,
  issuer: string,
  registration: ClientRegistration,
  as: AuthorizationServer,
): Promise<{ known: boolean | undefined; detail: string } | undefined> {
  if (!registration.registrationClientUri) return undefined;
  try {
    const management = await savedManagement(deps.state, issuer, registration);
    if (!management) return { known: undefined, detail: 'its registration access token could not be read' };
    const answer = await readRegistration(deps.http, as, management, deps.signal);
    if (answer.outcome === 'ok') return { known: true, detail: 'read at its registration_client_uri' };
    if (answer.outcome === 'unknown') return { known: false, detail: `its registration_client_uri answered HTTP ${answer.status}` };
    return { known: undefined, detail: answer.reason };
  } catch (err) {
    return { known: undefined, detail: errorReason(err) };
  }
}
