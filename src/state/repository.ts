// fs.promises, not node:fs/promises: the promise API loads a dozen modules, so only where it is used.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { ServerInfo } from '../types/server.js';
import { loginHint } from '../util/profiles.js';
import { redactText, registerSecret } from '../util/redact.js';
import type { OpenApiDoc } from '../types/api-description.js';
import { readFileIfExists, writeFileAtomic } from './atomic.js';
import { openapiCacheFile, serverCacheFile } from './cache-files.js';
import { type ClientRegistration, type ConfigFile, type Profile, loadConfig, updateConfig } from './config-file.js';
import {
  type CredentialArea,
  type CredentialBackends,
  type CredentialStore,
  PLAIN_STORAGE,
  PREFERRED_STORAGE,
  type ProbeResult,
  type StorageKind,
  clientAccount,
  isStorageKind,
  jobAccount,
  pendingLoginAccount,
  profileAccount,
} from './credential-store.js';
import { withLock } from './lock.js';
import { checkPrivatePaths } from './permissions.js';
import type { Paths } from './paths.js';
import { type LoginOutcome, type PendingLogin, type PendingLoginRecord, isLoginOutcome, isPendingLoginRecord } from './pending-login.js';
import { StateProblem } from './problems.js';
import { type TokenSet, parseTokenSet, serializeTokenSet } from './token-set.js';

/** What a profile's credentials look like now: usable tokens, or the problem that stops them. */
export type TokenInspection = { ok: true; set: TokenSet; store: CredentialStore } | { ok: false; problem: StateProblem };

/** Tokens of one headless CI job, kept between its invocations. */
export interface JobState {
  /** Where the tokens are kept, for messages. */
  location: string;
  read(): Promise<TokenSet | undefined>;
  write(set: TokenSet): Promise<void>;
  /** Whether the job was already told that its seed was spent by a rotation. */
  rotationNoticeShown: boolean;
  markRotationNoticeShown(): Promise<void>;
}

/**
 * The one owner of everything `school` saves: profiles and client registrations (config file),
 * their secrets and token sets (a credential backend), headless CI job state, the server-metadata
 * cache and pending logins. Callers never touch a file or a store themselves.
 */
export interface StateRepository {
  readonly paths: Paths;
  /** Runs `fn` while holding a lock shared by every `school` process of this config dir. */
  locked<T>(name: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T>;

  profiles(): Promise<Record<string, Profile>>;
  profile(name: string): Promise<Profile | undefined>;
  /** Saves a profile; its secrets left behind in another store by an earlier login are removed. */
  saveProfile(name: string, profile: Profile): Promise<void>;
  /** Removes the profile; its base URL stays known (see rememberedBaseUrl). */
  removeProfile(name: string): Promise<void>;
  /** The profile's base URL, or the one it had before it was removed; never a secret. */
  rememberedBaseUrl(name: string): Promise<string | undefined>;
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

  clientRegistration(issuer: string, match: (c: ClientRegistration) => boolean): Promise<ClientRegistration | undefined>;
  clientSecret(issuer: string, registration: ClientRegistration): Promise<string | undefined>;
  /** Saves a registration in place of the earlier one of the same kind: public (`none`) or confidential (any secret-based method). */
  saveClient(issuer: string, registration: ClientRegistration, secret: string | undefined): Promise<void>;
  forgetClient(issuer: string, clientId: string): Promise<void>;

  /** Job state keyed to a seed; the keychain when usable on first use, else the job file. */
  jobState(key: string): Promise<JobState>;

  cachedServer(baseUrl: string, expectedIssuer?: string): Promise<ServerInfo | undefined>;
  saveServer(info: ServerInfo, fetchedAt: number): Promise<void>;
  /** Every scope a cached server advertises (of one base URL, or of all). */
  cachedScopes(baseUrl?: string): Promise<string[]>;
  cachedApiDescription(baseUrl: string): Promise<OpenApiDoc | undefined>;
  saveApiDescription(baseUrl: string, doc: OpenApiDoc): Promise<void>;

  savePendingLogin(pending: PendingLogin): Promise<void>;
  pendingLogin(profile: string): Promise<PendingLogin | undefined>;
  /** What is known of a pending login without reading its secret: for `status`, `--wait` and superseding it. */
  pendingLoginRecord(profile: string): Promise<PendingLoginRecord | undefined>;
  pendingLoginRecords(): Promise<PendingLoginRecord[]>;
  removePendingLogin(profile: string, storage: StorageKind): Promise<void>;
  saveLoginOutcome(outcome: LoginOutcome): Promise<void>;
  loginOutcome(profile: string): Promise<LoginOutcome | undefined>;
  removeLoginOutcome(profile: string): Promise<void>;

  /** Removes a confidential client's secret and its registration, which cannot be used without it. */
  forgetClientSecret(issuer: string, registration: ClientRegistration): Promise<void>;
  /** Removes the state of every headless CI job (tokens and markers); throws when a store refuses. */
  forgetJobStates(): Promise<number>;

  openStore(kind: StorageKind, area?: CredentialArea): Promise<CredentialStore>;
  probeStore(kind: StorageKind, area?: CredentialArea): Promise<ProbeResult>;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // a damaged cache or state file is just a miss
  }
}

/**
 * Whether a cache entry was saved for this base URL. Cache file names are short hashes of the URL
 * (cache-files.ts), so an entry of another URL may share one: it is then a miss.
 */
function isEntryOf(entry: unknown, baseUrl: string): entry is { baseUrl: string } {
  return typeof entry === 'object' && entry !== null && 'baseUrl' in entry && entry.baseUrl === baseUrl;
}

function isServerInfo(value: unknown): value is ServerInfo {
  if (!value || typeof value !== 'object') return false;
  const v: { baseUrl?: unknown; as?: { issuer?: unknown; token_endpoint?: unknown } } = value;
  return typeof v.baseUrl === 'string' && typeof v.as?.issuer === 'string' && typeof v.as.token_endpoint === 'string';
}

/** The scopes a cached server entry advertises; completion reads them however little else the entry has. */
function scopesOf(entry: unknown): string[] {
  if (!entry || typeof entry !== 'object' || !('as' in entry) || !entry.as || typeof entry.as !== 'object') return [];
  const supported = 'scopes_supported' in entry.as ? entry.as.scopes_supported : undefined;
  return Array.isArray(supported) ? supported.filter((s): s is string => typeof s === 'string') : [];
}

function isOpenApiDoc(value: unknown): value is OpenApiDoc {
  return Boolean(value && typeof value === 'object' && !Array.isArray(value));
}

function isJobMarker(value: unknown): value is { storage: StorageKind; rotationNoticeShown?: boolean } {
  return Boolean(value && typeof value === 'object' && 'storage' in value && isStorageKind(value.storage));
}

/** How much of a server's refusal is kept to explain, later, why the session counts as logged out. */
const MAX_REFUSAL_DETAIL = 300;

export function openStateRepository(deps: { paths: Paths; credentials: CredentialBackends }): StateRepository {
  const { paths, credentials } = deps;
  const openStore = (kind: StorageKind, area: CredentialArea = 'login') => credentials[kind].open(area);
  const probeStore = (kind: StorageKind, area: CredentialArea = 'login') => credentials[kind].probe(area);
  const serverFile = (baseUrl: string) => serverCacheFile(paths.cacheDir, baseUrl);
  const pendingFile = (profile: string) => join(paths.pendingDir, `${profile}.json`);
  const outcomeFile = (profile: string) => join(paths.pendingDir, 'outcomes', `${profile}.json`);
  // Every file of ours is read only once its dirs passed the ownership and mode checks: a refusal
  // is an error, not a cache miss.
  const readOwnFile = async (file: string) => {
    await checkPrivatePaths(paths);
    return readFileIfExists(file).catch(() => undefined);
  };
  const pendingRecord = async (profile: string): Promise<PendingLoginRecord | undefined> => {
    const record = parseJson(await readOwnFile(pendingFile(profile)));
    return isPendingLoginRecord(record) && record.profile === profile ? record : undefined;
  };
  const configOf = (): Promise<ConfigFile> => loadConfig(paths);

  async function missingProblem(name: string, profile: Profile, store: CredentialStore): Promise<StateProblem> {
    // An absent entry may mean a locked keyring: ask the backend whether it can be used at all.
    const probe = await probeStore(profile.storage).catch((err: unknown): ProbeResult => ({ ok: false, reason: String(err) }));
    if (!probe.ok) {
      return new StateProblem('keyring_locked', `No credentials for profile "${name}" in ${store.location}: it is locked or cannot be reached (${probe.reason}).`, {
        hint: `Unlock it, or ${loginHint(name, profile.baseUrl).toLowerCase()}`,
      });
    }
    return new StateProblem('missing', `No credentials for profile "${name}" in ${store.location}: the entry was removed.`, { hint: loginHint(name, profile.baseUrl) });
  }

  async function inspectTokens(name: string, profile: Profile, options: { evenIfRefused?: boolean } = {}): Promise<TokenInspection> {
    if (profile.sessionRefused && !options.evenIfRefused) {
      return {
        ok: false,
        problem: new StateProblem('refused', `The server refused to renew the session of profile "${name}" (${profile.sessionRefused.detail}); it counts as logged out.`, {
          hint: loginHint(name, profile.baseUrl),
        }),
      };
    }
    const store = await openStore(profile.storage);
    const text = await store.get(profileAccount(paths.configDir, name));
    if (text === null) return { ok: false, problem: await missingProblem(name, profile, store) };
    let set: TokenSet;
    try {
      set = parseTokenSet(text, store.location);
    } catch (err) {
      if (err instanceof StateProblem) return { ok: false, problem: err };
      throw err;
    }
    if (set.issuer !== profile.issuer) {
      return {
        ok: false,
        problem: new StateProblem('wrong_issuer', `The stored credentials of profile "${name}" come from ${set.issuer}, not ${profile.issuer}.`, {
          hint: loginHint(name, profile.baseUrl),
        }),
      };
    }
    return { ok: true, set, store };
  }

  return {
    paths,
    locked: (name, signal, fn) => withLock(paths.lockDir, name, signal, fn),

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

    clientRegistration: async (issuer, match) => (await configOf()).clients[issuer]?.find(match),
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
        const others = (config.clients[issuer] ?? []).filter((c) => (c.authMethod === 'none') !== (registration.authMethod === 'none'));
        config.clients[issuer] = [...others, registration];
      });
    },
    async forgetClient(issuer, clientId) {
      await updateConfig(paths, (c) => {
        c.clients[issuer] = (c.clients[issuer] ?? []).filter((r) => r.clientId !== clientId);
      });
    },

    async jobState(key) {
      const markerFile = join(paths.stateDir, `ci-${key}.json`);
      const account = jobAccount(key);
      const saved = parseJson(await readOwnFile(markerFile));
      let marker: { storage: StorageKind; rotationNoticeShown?: boolean };
      let store: CredentialStore;
      if (isJobMarker(saved)) {
        marker = saved;
        store = await openStore(marker.storage, 'job');
      } else {
        const preferred = await probeStore(PREFERRED_STORAGE, 'job');
        store = preferred.ok ? preferred.store : await openStore(PLAIN_STORAGE, 'job');
        marker = { storage: store.kind };
        await writeFileAtomic(markerFile, `${JSON.stringify(marker)}\n`, 0o600);
      }
      return {
        location: store.location,
        async read() {
          const text = await store.get(account).catch(() => null);
          if (!text) return undefined;
          try {
            return parseTokenSet(text, 'the job state');
          } catch {
            return undefined; // damaged state: the job starts again from its seed
          }
        },
        write: (set) => store.set(account, serializeTokenSet(set)),
        get rotationNoticeShown() {
          return Boolean(marker.rotationNoticeShown);
        },
        async markRotationNoticeShown() {
          marker.rotationNoticeShown = true;
          await writeFileAtomic(markerFile, `${JSON.stringify(marker)}\n`, 0o600).catch(() => undefined);
        },
      };
    },

    async cachedServer(baseUrl, expectedIssuer) {
      const cached = parseJson(await readOwnFile(serverFile(baseUrl)));
      if (!isServerInfo(cached) || !isEntryOf(cached, baseUrl)) return undefined;
      return !expectedIssuer || cached.as.issuer === expectedIssuer ? cached : undefined;
    },
    async saveServer(info, fetchedAt) {
      // Losing the cache costs nothing but a network call, so a failed write is not an error.
      const body = JSON.stringify({ fetchedAt, ...info }, null, 2);
      await writeFileAtomic(serverFile(info.baseUrl), `${body}\n`, 0o600).catch(() => undefined);
    },
    async cachedScopes(baseUrl) {
      const dir = join(paths.cacheDir, 'servers');
      const files = baseUrl ? [serverFile(baseUrl)] : (await fs.readdir(dir).catch((): string[] => [])).map((f) => join(dir, f));
      const scopes = new Set<string>();
      for (const f of files) {
        const info = parseJson(await readOwnFile(f));
        if (baseUrl && !isEntryOf(info, baseUrl)) continue;
        for (const s of scopesOf(info)) scopes.add(s);
      }
      return [...scopes];
    },

    async cachedApiDescription(baseUrl) {
      const entry = parseJson(await readOwnFile(openapiCacheFile(paths.cacheDir, baseUrl)));
      if (!isEntryOf(entry, baseUrl) || !('doc' in entry)) return undefined;
      return isOpenApiDoc(entry.doc) ? entry.doc : undefined;
    },
    async saveApiDescription(baseUrl, doc) {
      await writeFileAtomic(openapiCacheFile(paths.cacheDir, baseUrl), JSON.stringify({ baseUrl, doc }), 0o600).catch(() => undefined);
    },

    async savePendingLogin(pending) {
      const { codeVerifier, ...record } = pending;
      await (await openStore(pending.storage)).set(pendingLoginAccount(paths.configDir, pending.profile), codeVerifier);
      await writeFileAtomic(pendingFile(pending.profile), `${JSON.stringify(record, null, 2)}\n`, 0o600);
    },
    async pendingLogin(profile) {
      const record = await pendingRecord(profile);
      if (!record) return undefined;
      const codeVerifier = await (await openStore(record.storage)).get(pendingLoginAccount(paths.configDir, profile));
      if (!codeVerifier) return undefined;
      registerSecret(codeVerifier);
      return { ...record, codeVerifier };
    },
    pendingLoginRecord: pendingRecord,
    async pendingLoginRecords() {
      const names = await fs.readdir(paths.pendingDir).catch((): string[] => []);
      const records: PendingLoginRecord[] = [];
      for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
        const record = await pendingRecord(name.slice(0, -'.json'.length));
        if (record) records.push(record);
      }
      return records;
    },
    async removePendingLogin(profile, storage) {
      await fs.rm(pendingFile(profile), { force: true });
      await (await openStore(storage)).delete(pendingLoginAccount(paths.configDir, profile)).catch(() => undefined);
    },
    async saveLoginOutcome(outcome) {
      await writeFileAtomic(outcomeFile(outcome.profile), `${JSON.stringify(outcome, null, 2)}\n`, 0o600);
    },
    async loginOutcome(profile) {
      const outcome = parseJson(await readOwnFile(outcomeFile(profile)));
      return isLoginOutcome(outcome) && outcome.profile === profile ? outcome : undefined;
    },
    async removeLoginOutcome(profile) {
      await fs.rm(outcomeFile(profile), { force: true });
    },

    async forgetClientSecret(issuer, registration) {
      if (registration.secretStorage) await (await openStore(registration.secretStorage)).delete(clientAccount(issuer, registration.clientId));
      await updateConfig(paths, (c) => {
        c.clients[issuer] = (c.clients[issuer] ?? []).filter((r) => r.clientId !== registration.clientId);
      });
    },
    async forgetJobStates() {
      const markers = (await fs.readdir(paths.stateDir).catch((): string[] => [])).filter((n) => /^ci-[0-9a-f]+\.json$/.test(n));
      for (const name of markers) {
        const markerFile = join(paths.stateDir, name);
        const marker = parseJson(await readFileIfExists(markerFile).catch(() => undefined));
        const key = name.slice('ci-'.length, -'.json'.length);
        // A marker that cannot be read says nothing of where the tokens are: try both stores.
        const kinds: StorageKind[] = isJobMarker(marker) ? [marker.storage] : [PREFERRED_STORAGE, PLAIN_STORAGE];
        for (const kind of kinds) {
          const removal = openStore(kind, 'job').then((store) => store.delete(jobAccount(key)));
          await (isJobMarker(marker) ? removal : removal.catch(() => false));
        }
        await fs.rm(markerFile, { force: true });
      }
      // The job file holds nothing else: remove it whole, entries of lost markers included.
      await fs.rm(paths.jobCredentialsFile, { force: true });
      return markers.length;
    },

    openStore,
    probeStore,
  };
}
