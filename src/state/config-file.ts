import { CliError } from '../errors.js';
import { readFileIfExists, writeFileAtomic } from './atomic.js';
import type { CiClient, ClientRegistration, Profile } from '../types/profile.js';
import { withLock } from './lock.js';
import type { Paths } from './paths.js';
import { checkPrivatePaths } from './permissions.js';
import { loginCommandText } from '../util/login-command.js';

export { type AuthMethod, isAuthMethod } from '../types/tokens.js';
export type { CiClient, ClientRegistration, IdentitySource, Profile } from '../types/profile.js';

export interface ConfigFile {
  version: 1;
  profiles: Record<string, Profile>;
  clients: Record<string, ClientRegistration[]>;
  /**
   * The base URL each profile name last used, kept after logout (it is not a secret) so that hints
   * and the next login of that profile know the school.
   */
  lastBaseUrls: Record<string, string>;
  /** Clients handed to CI with their refresh tokens: their registrations are never deleted by a logout here. */
  ciClients: CiClient[];
  /**
   * Where each profile's API description lies when it is not `<base URL>/openapi.json` (the last
   * `--description` given), for that base URL only; kept across logins and logouts.
   */
  apiDescriptions: Record<string, ApiDescriptionEntry>;
}

/** A description source a profile remembers: a URL or an absolute file path, for one base URL. */
interface ApiDescriptionEntry {
  baseUrl: string;
  location: string;
}

function emptyConfig(): ConfigFile {
  return { version: 1, profiles: {}, clients: {}, lastBaseUrls: {}, ciClients: [], apiDescriptions: {} };
}

function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function ciClientList(value: unknown): CiClient[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (c): c is CiClient => Boolean(c) && typeof c === 'object' && ['profile', 'baseUrl', 'issuer', 'clientId'].every((k) => typeof c[k] === 'string') && typeof c.handedOverAt === 'number',
  );
}

function descriptionEntries(value: unknown): Record<string, ApiDescriptionEntry> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  const entries: Record<string, ApiDescriptionEntry> = {};
  for (const [name, e] of Object.entries(value)) {
    if (e && typeof e === 'object' && typeof e.baseUrl === 'string' && typeof e.location === 'string') entries[name] = { baseUrl: e.baseUrl, location: e.location };
  }
  return entries;
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
      ciClients: ciClientList(parsed.ciClients),
      apiDescriptions: descriptionEntries(parsed.apiDescriptions),
    };
  } catch {
    throw new CliError(`The configuration file ${path} is not valid JSON.`, {
      code: 'corrupt_config',
      hint: `Fix or remove ${path}, then run \`${loginCommandText()}\`.`,
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
