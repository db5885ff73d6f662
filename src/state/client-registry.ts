import type { CiClient, ClientRegistration } from '../types/profile.js';
import { registerSecret } from '../util/redact.js';
import { loadConfig, updateConfig } from './config-file.js';
import { clientAccount } from './credential-store.js';
import type { StoreContext } from './store-context.js';

/** Dynamic client registrations of each issuer (config.json), and a confidential client's secret (a credential store). */
export interface ClientRegistry {
  clientRegistration(issuer: string, match: (c: ClientRegistration) => boolean): Promise<ClientRegistration | undefined>;
  clientSecret(issuer: string, registration: ClientRegistration): Promise<string | undefined>;
  /**
   * Saves a registration in place of the earlier one of the same client id and, for a dynamic
   * registration, of the same kind: public (`none`) or confidential (any secret-based method).
   * A pre-registered client never displaces a dynamic registration, nor the reverse.
   */
  saveClient(issuer: string, registration: ClientRegistration, secret: string | undefined): Promise<void>;
  forgetClient(issuer: string, clientId: string): Promise<void>;
  /** Removes a confidential client's secret and its registration, which cannot be used without it. */
  forgetClientSecret(issuer: string, registration: ClientRegistration): Promise<void>;
  /** Records a client handed to CI (one entry per profile name: a new hand-over of the name replaces it). */
  markHandedToCi(client: CiClient): Promise<void>;
  /** The clients handed to CI from here. */
  ciClients(): Promise<CiClient[]>;
}

export function openClientRegistry(ctx: StoreContext): ClientRegistry {
  const { paths, openStore } = ctx;
  return {
    clientRegistration: async (issuer, match) => (await loadConfig(paths)).clients[issuer]?.find(match),
    async clientSecret(issuer, registration) {
      if (!registration.secretStorage) return undefined;
      const store = await openStore(registration.secretStorage).catch(() => undefined);
      const secret = (await store?.get(clientAccount(issuer, registration.clientId)).catch(() => null)) ?? undefined;
      registerSecret(secret);
      return secret;
    },
    async saveClient(issuer, registration, secret) {
      if (secret && registration.secretStorage) await (await openStore(registration.secretStorage)).set(clientAccount(issuer, registration.clientId), secret);
      await updateConfig(paths, (config) => {
        const sameKind = (c: ClientRegistration) =>
          Boolean(c.preRegistered) === Boolean(registration.preRegistered) && (registration.preRegistered || (c.authMethod === 'none') === (registration.authMethod === 'none'));
        const others = (config.clients[issuer] ?? []).filter((c) => c.clientId !== registration.clientId && !sameKind(c));
        config.clients[issuer] = [...others, registration];
      });
    },
    async forgetClient(issuer, clientId) {
      await updateConfig(paths, (c) => {
        c.clients[issuer] = (c.clients[issuer] ?? []).filter((r) => r.clientId !== clientId);
      });
    },
    async markHandedToCi(client) {
      await updateConfig(paths, (c) => {
        c.ciClients = [...c.ciClients.filter((o) => o.profile !== client.profile), client];
      });
    },
    ciClients: async () => (await loadConfig(paths)).ciClients,
    async forgetClientSecret(issuer, registration) {
      if (registration.secretStorage) await (await openStore(registration.secretStorage)).delete(clientAccount(issuer, registration.clientId));
      await updateConfig(paths, (c) => {
        c.clients[issuer] = (c.clients[issuer] ?? []).filter((r) => r.clientId !== registration.clientId);
      });
    },
  };
}
