import type { Profile } from '../types/profile.js';
import type { StorageKind } from '../types/storage.js';
import { loginFix } from '../util/login-command.js';
import { redactText } from '../util/redact.js';
import { loadConfig, updateConfig } from './config-file.js';
import { type CredentialStore, type ProbeResult, profileAccount } from './credential-store.js';
import { StateProblem } from './problems.js';
import type { StoreContext } from './store-context.js';
import { type TokenSet, parseTokenSet, serializeTokenSet } from './token-set.js';

/** What a profile's credentials look like now: usable tokens, or the problem that stops them. */
type TokenInspection = { ok: true; set: TokenSet; store: CredentialStore } | { ok: false; problem: StateProblem };

/** Profiles (config.json, never a secret) and the token set of each (a credential store). */
export interface ProfileStore {
  profiles(): Promise<Record<string, Profile>>;
  profile(name: string): Promise<Profile | undefined>;
  /** Saves a profile; its secrets left behind in another store by an earlier login are removed. */
  saveProfile(name: string, profile: Profile): Promise<void>;
  /** Removes the profile; its base URL stays known (see rememberedBaseUrl). */
  removeProfile(name: string): Promise<void>;
  /** The profile's base URL, or the one it had before it was removed; never a secret. */
  rememberedBaseUrl(name: string): Promise<string | undefined>;
  /** The API description source the profile was last given for a base URL (`--description`). */
  rememberedDescription(name: string): Promise<{ baseUrl: string; location: string } | undefined>;
  /** Keeps (or, with no location, forgets) where the profile's API description lies for a base URL. */
  rememberDescription(name: string, baseUrl: string, location: string | undefined): Promise<void>;
  /** Records that the server refused to renew the profile's session: it counts as logged out until the next login. */
  markSessionRefused(name: string, detail: string, at: number): Promise<void>;

  /** The profile's tokens, or a StateProblem (exit 4) saying why there are none usable. */
  readTokens(name: string, profile: Profile): Promise<TokenSet>;
  /**
   * Like readTokens, but a problem is returned, not thrown. `evenIfRefused` reads the tokens of a
   * session the server refused to renew: they may still be valid there, and worth revoking.
   */
  inspectTokens(name: string, profile: Profile, options?: { evenIfRefused?: boolean }): Promise<TokenInspection>;
  saveTokens(name: string, storage: StorageKind, set: TokenSet): Promise<void>;
  /** Removes the profile's stored tokens; throws when the store refuses (the secret is still there). */
  forgetTokens(name: string, storage: StorageKind): Promise<void>;
}

/** How much of a server's refusal is kept to explain, later, why the session counts as logged out. */
const MAX_REFUSAL_DETAIL = 300;

export function openProfileStore(ctx: StoreContext): ProfileStore {
  const { paths, openStore, probeStore } = ctx;
  const configOf = () => loadConfig(paths);

  async function missingProblem(name: string, profile: Profile, store: CredentialStore): Promise<StateProblem> {
    // An absent entry may mean a locked keyring: ask the backend whether it can be used at all.
    const probe = await probeStore(profile.storage).catch((err: unknown): ProbeResult => ({ ok: false, reason: String(err) }));
    if (!probe.ok) {
      return new StateProblem('keyring_locked', `No credentials for profile "${name}" in ${store.location}: it is locked or cannot be reached (${probe.reason}).`, {
        ...loginFix(name, profile.baseUrl, 'Unlock it, or log in again'),
      });
    }
    return new StateProblem('missing', `No credentials for profile "${name}" in ${store.location}: the entry was removed.`, loginFix(name, profile.baseUrl));
  }

  async function inspectTokens(name: string, profile: Profile, options: { evenIfRefused?: boolean } = {}): Promise<TokenInspection> {
    if (profile.sessionRefused && !options.evenIfRefused) {
      return {
        ok: false,
        problem: new StateProblem('refused', `The server refused to renew the session of profile "${name}" (${profile.sessionRefused.detail}); it counts as logged out.`, {
          ...loginFix(name, profile.baseUrl),
        }),
      };
    }
    const store = await openStore(profile.storage);
    const text = await store.get(profileAccount(paths.configDir, name));
    if (text === null) return { ok: false, problem: await missingProblem(name, profile, store) };
    let set: TokenSet;
    try {
      set = parseTokenSet(text, store.location, { profile: name, baseUrl: profile.baseUrl });
    } catch (err) {
      if (err instanceof StateProblem) return { ok: false, problem: err };
      throw err;
    }
    if (set.issuer !== profile.issuer) {
      return {
        ok: false,
        problem: new StateProblem('wrong_issuer', `The stored credentials of profile "${name}" come from ${set.issuer}, not ${profile.issuer}.`, {
          ...loginFix(name, profile.baseUrl),
        }),
      };
    }
    return { ok: true, set, store };
  }

  return {
    profiles: async () => (await configOf()).profiles,
    profile: async (name) => (await configOf()).profiles[name],
    async saveProfile(name, profile) {
      const previous = await updateConfig(paths, (c) => {
        const before = c.profiles[name];
        c.profiles[name] = profile;
        return before;
      });
      // A profile that moved between stores must not leave its old secrets behind.
      if (previous && previous.storage !== profile.storage) {
        await openStore(previous.storage)
          .then((old) => old.delete(profileAccount(paths.configDir, name)))
          .catch(() => undefined);
      }
    },
    async removeProfile(name) {
      await updateConfig(paths, (c) => {
        const removed = c.profiles[name];
        if (removed) c.lastBaseUrls[name] = removed.baseUrl;
        delete c.profiles[name];
      });
    },
    async rememberedBaseUrl(name) {
      const config = await configOf();
      return config.profiles[name]?.baseUrl ?? config.lastBaseUrls[name];
    },
    async rememberedDescription(name) {
      return (await configOf()).apiDescriptions[name];
    },
    async rememberDescription(name, baseUrl, location) {
      const now = (await configOf()).apiDescriptions[name];
      // Written only when it changes: a script naming its description on every run costs no lock.
      if (location === undefined ? now === undefined : now?.baseUrl === baseUrl && now.location === location) return;
      await updateConfig(paths, (c) => {
        if (location === undefined) delete c.apiDescriptions[name];
        else c.apiDescriptions[name] = { baseUrl, location };
      });
    },
    async markSessionRefused(name, detail, at) {
      await updateConfig(paths, (c) => {
        const p = c.profiles[name];
        // The server's words may echo a token: only their redacted, bounded form is kept (config.json holds no secret).
        if (p) p.sessionRefused = { at, detail: redactText(detail).slice(0, MAX_REFUSAL_DETAIL) };
      });
    },

    async readTokens(name, profile) {
      const found = await inspectTokens(name, profile);
      if (!found.ok) throw found.problem;
      return found.set;
    },
    inspectTokens,
    async saveTokens(name, storage, set) {
      await (await openStore(storage)).set(profileAccount(paths.configDir, name), serializeTokenSet(set));
    },
    async forgetTokens(name, storage) {
      await (await openStore(storage)).delete(profileAccount(paths.configDir, name));
    },
  };
}
