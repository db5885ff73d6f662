import { registerSecret } from '../util/redact.js';
import type { ClientRegistration } from './config-file.js';
import type { StorageKind } from './credential-store.js';
import type { StateRepository } from './repository.js';

/** The account of a registration access token (RFC 7592), beside its client's secret (`client:…`). */
function registrationAccount(issuer: string, clientId: string): string {
  return `registration:${issuer}#${clientId}`;
}

/** Keeps a registration access token where the client's secrets are kept; the registration record names the store. */
export async function saveRegistrationToken(state: StateRepository, kind: StorageKind, issuer: string, clientId: string, token: string): Promise<void> {
  await (await state.openStore(kind)).set(registrationAccount(issuer, clientId), token);
}

/** Where and how to manage a saved registration, when its server gave both a URI and a token for it. */
export async function savedManagement(state: StateRepository, issuer: string, registration: ClientRegistration): Promise<{ clientUri: string; accessToken: string } | undefined> {
  if (!registration.registrationClientUri || !registration.registrationTokenStorage) return undefined;
  const store = await state.openStore(registration.registrationTokenStorage).catch(() => undefined);
  const token = (await store?.get(registrationAccount(issuer, registration.clientId)).catch(() => null)) ?? undefined;
  if (!token) return undefined;
  registerSecret(token);
  return { clientUri: registration.registrationClientUri, accessToken: token };
}

/** Forgets a registration the server no longer has: its record, its secret and its registration access token. */
export async function forgetManagedRegistration(state: StateRepository, issuer: string, registration: ClientRegistration): Promise<void> {
  if (registration.registrationTokenStorage) await (await state.openStore(registration.registrationTokenStorage)).delete(registrationAccount(issuer, registration.clientId));
  if (registration.secretStorage) await state.forgetClientSecret(issuer, registration);
  else await state.forgetClient(issuer, registration.clientId);
}
