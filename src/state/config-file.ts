import { CliError } from '../errors.js';
import { readFileIfExists, writeFileAtomic } from './atomic.js';
import type { StorageKind } from './credential-store.js';
import { withLock } from './lock.js';
import type { Paths } from './paths.js';
import { checkPrivatePaths } from './permissions.js';

/** How the CLI authenticates as a client (RFC 7591 §2 names): public, or with a secret in the body or a Basic header. */
export type AuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

export const AUTH_METHODS: readonly AuthMethod[] = ['none', 'client_secret_post', 'client_secret_basic'];

export function isAuthMethod(value: unknown): value is AuthMethod {
  return AUTH_METHODS.some((m) => m === value);
}

export type IdentitySource = 'userinfo' | 'id_token' | 'introspection';

/** What the CLI remembers about one account on one school. Never holds a secret. */
export interface Profile {
  baseUrl: string;
  issuer: string;
  /** RFC 8707 resource the tokens are bound to (from the protected-resource metadata). */
  resource?: string;
  clientId: string;
  authMethod: AuthMethod;
  /** Where this profile's secrets live. */
  storage: StorageKind;
  user?: { sub?: string; name?: string; email?: string };
  /** Where `user` came from: the userinfo endpoint, the ID token, or token introspection. */
  userSource?: IdentitySource;
  /** The validated ID token's identity claims from login (no protocol claims, nothing secret), for `whoami` without userinfo. */
  idClaims?: Record<string, unknown>;
  loggedInAt?: number;
  /** Set when the server refused to renew the session: it counts as logged out until the next login. */
  sessionRefused?: { at: number; detail: string };
}

/** A cached dynamic registration, reused by later logins to the same issuer. */
export interface ClientRegistration {
  clientId: string;
  authMethod: AuthMethod;
  redirectUri: string;
  registeredAt: number;
  /** Where its client secret lives, for a confidential client. */
  secretStorage?: StorageKind;
  /** RFC 7592: where the server keeps the registration, to read or delete it (not a secret). */
  registrationClientUri?: string;
  /** Where its registration access token lives (RFC 7592), when the server gave one. */
  registrationTokenStorage?: StorageKind;
  /** Registered for the device authorization grant (RFC 8628) as well. */
  deviceGrant?: boolean;
}

export interface ConfigFile {
  version: 1;
  profiles: Record<string, Profile>;
  clients: Record<string, ClientRegistration[]>;
  /**
   * The base URL each profile name last used, kept after logout (it is not a secret) so that hints
   * and the next login of that profile know the school.
   */
  lastBaseUrls: Record<string, string>;
}

function emptyConfig(): ConfigFile {
  return { version: 1, profiles: {}, clients: {}, lastBaseUrls: {} };
}

function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export function parseConfig(text: string | undefined, path: string): ConfigFile {
  if (text === undefined || text.trim() === '') return emptyConfig();
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    const profiles: Record<string, Profile> = {};
    for (const [name, p] of Object.entries(parsed.profiles && typeof parsed.profiles === 'object' ? parsed.profiles : {})) {
      // A hand-edited entry without the essentials is not a profile.
      if (p && typeof p === 'object' && typeof p.baseUrl === 'string' && typeof p.issuer === 'string') profiles[name] = p;
    }
    return {
      version: 1,
      profiles,
      clients: parsed.clients && typeof parsed.clients === 'object' ? parsed.clients : {},
      lastBaseUrls: stringRecord(parsed.lastBaseUrls),
    };
  } catch {
    throw new CliError(`The configuration file ${path} is not valid JSON.`, {
      code: 'corrupt_config',
      hint: `Fix or remove ${path}, then run \`school login\`.`,
    });
  }
}

export async function loadConfig(paths: Paths): Promise<ConfigFile> {
  // Another user able to write here could point a profile at another origin: checked before reading.
  await checkPrivatePaths(paths);
  return parseConfig(await readFileIfExists(paths.configFile), paths.configFile);
}

/** Read-modify-write under a lock, written atomically, so parallel logins to different profiles both stick. */
export async function updateConfig<T>(paths: Paths, fn: (config: ConfigFile) => T | Promise<T>): Promise<T> {
  return withLock(paths.lockDir, 'config', undefined, async () => {
    const config = await loadConfig(paths);
    const result = await fn(config);
    await writeFileAtomic(paths.configFile, `${JSON.stringify(config, null, 2)}\n`, 0o600);
    return result;
  });
}
