import { join } from 'node:path';
import type { Profile } from '../config/config.js';
import { loadConfig } from '../config/config.js';
import { openFileStore } from '../credentials/file.js';
import { type CredentialStore, profileAccount } from '../credentials/store.js';
import { type TokenSet, needsRefresh, parseTokenSet, serializeTokenSet } from '../credentials/token-set.js';
import { type Deps, keychainOr, nowSeconds, openStore } from '../deps.js';
import { AuthError, CliError, UsageError } from '../errors.js';
import { readFileIfExists, writeFileAtomic } from '../util/atomic.js';
import { withLock } from '../util/lock.js';
import { registerSecret } from '../util/redact.js';
import { type GlobalOptions, baseUrlFor, profileName } from '../commands/context.js';

export type SecretSource = 'keychain' | 'file' | 'env';

const REFRESH_TIMEOUT_MS = 120_000;

/** A usable access token and what it may be used for. */
export interface Session {
  profile: string;
  baseUrl: string;
  issuer?: string;
  accessToken: string;
  tokenType: string;
  expiresAt?: number;
  scope?: string;
  source: SecretSource;
  /** Set when the token can be renewed: refresh now, regardless of expiry (after a 401). */
  refresh?: () => Promise<Session>;
}

function sessionFrom(set: TokenSet, base: Pick<Session, 'profile' | 'baseUrl' | 'source'>, refresh?: () => Promise<Session>): Session {
  return {
    ...base,
    issuer: set.issuer,
    accessToken: set.accessToken,
    tokenType: set.tokenType,
    expiresAt: set.expiresAt,
    scope: set.scope,
    refresh,
  };
}

function loginHint(profile: string, baseUrl?: string): string {
  const parts = ['school login'];
  if (baseUrl) parts.push(`--base-url ${baseUrl}`);
  if (profile !== 'default') parts.push(`--profile ${profile}`);
  return `Run \`${parts.join(' ')}\`.`;
}

/**
 * Refreshes under a lock shared by every process: the holder re-reads the store, refreshes only if
 * still needed, and writes before releasing; the others then find the fresh token. A rotating
 * refresh token is therefore spent exactly once.
 */
async function refreshLocked(
  deps: Deps,
  lockName: string,
  read: () => Promise<TokenSet>,
  write: (set: TokenSet) => Promise<void>,
  ctx: { baseUrl: string; profile: string; force: boolean; seenAccessToken?: string; clientSecret?: string; refusedHint?: string },
): Promise<{ set: TokenSet; refreshed: boolean; previousRefresh?: string }> {
  return withLock(deps.paths.lockDir, lockName, deps.signal, async () => {
    const current = await read();
    const stillNeeded = ctx.force ? current.accessToken === ctx.seenAccessToken : needsRefresh(current, nowSeconds(deps));
    if (!stillNeeded) return { set: current, refreshed: false };
    if (!current.refreshToken) {
      throw new AuthError('The access token has expired and there is no refresh token.', { code: 'refresh_refused', hint: loginHint(ctx.profile, ctx.baseUrl) });
    }
    const { serverInfoFor } = await import('./discover.js');
    const { clientOf, refreshGrant, toTokenSet } = await import('./tokens.js');
    const server = await serverInfoFor(deps.http, deps.paths.cacheDir, ctx.baseUrl, current.issuer, deps.signal);
    const client = clientOf(current, ctx.clientSecret);
    try {
      // Once sent, a rotating refresh cannot be taken back: the server may already have spent the
      // old token. So neither Ctrl-C nor a short timeout may cut it off before the answer is stored.
      const res = await refreshGrant(deps.http, server.as, client, { refreshToken: current.refreshToken, resource: current.resource, timeoutMs: REFRESH_TIMEOUT_MS });
      const next = toTokenSet(res, { issuer: current.issuer, client, resource: current.resource, nowSeconds: nowSeconds(deps), previous: current });
      if (!current.clientSecret) delete next.clientSecret;
      await write(next);
      return { set: next, refreshed: true, previousRefresh: current.refreshToken };
    } catch (err) {
      const e = err as { error?: string; error_description?: string };
      if (e.error === 'invalid_grant' || e.error === 'invalid_client' || e.error === 'unauthorized_client') {
        throw new AuthError(`The server refused to renew the session (${e.error}${e.error_description ? `: ${e.error_description}` : ''}).`, {
          code: 'refresh_refused',
          hint: ctx.refusedHint ?? loginHint(ctx.profile, ctx.baseUrl),
        });
      }
      throw err;
    }
  });
}

async function profileSession(deps: Deps, name: string, profile: Profile, opts: GlobalOptions): Promise<Session> {
  const store = await openStore(deps, profile.storage);
  const account = profileAccount(deps.paths.configDir, name);
  const read = async (): Promise<TokenSet> => {
    const text = await store.get(account);
    if (text === null) {
      if (store.kind === 'keychain') {
        throw new AuthError(`No credentials for profile "${name}" in the OS keychain: the keyring may be locked, or the entry was removed.`, {
          code: 'credentials_missing',
          hint: `Unlock the keyring, or ${loginHint(name, profile.baseUrl).toLowerCase()}`,
        });
      }
      throw new AuthError(`No credentials for profile "${name}" in ${store.location}.`, { code: 'credentials_missing', hint: loginHint(name, profile.baseUrl) });
    }
    const set = parseTokenSet(text, store.location);
    if (set.issuer !== profile.issuer) {
      throw new AuthError(`The stored credentials of profile "${name}" come from ${set.issuer}, not ${profile.issuer}.`, { code: 'issuer_mismatch', hint: loginHint(name, profile.baseUrl) });
    }
    return set;
  };
  const write = (set: TokenSet) => store.set(account, serializeTokenSet(set));
  const baseUrl = profile.baseUrl;
  // --base-url and SCHOOL_BASE_URL both name the server explicitly: never quietly use another one.
  const explicit = baseUrlFor(opts, deps.env);
  if (explicit && explicit !== baseUrl) {
    throw new UsageError(`Profile "${name}" is logged in to ${baseUrl}, not ${explicit}.`, {
      hint: `Use another --profile for a second school, or ${loginHint(name, explicit).toLowerCase()}`,
    });
  }
  const base = { profile: name, baseUrl, source: store.kind } as const;
  const make = (set: TokenSet): Session =>
    sessionFrom(set, base, set.refreshToken ? async () => make((await refreshLocked(deps, `refresh-${name}`, read, write, { baseUrl, profile: name, force: true, seenAccessToken: set.accessToken })).set) : undefined);
  let set = await read();
  if (needsRefresh(set, nowSeconds(deps))) {
    set = (await refreshLocked(deps, `refresh-${name}`, read, write, { baseUrl, profile: name, force: false })).set;
  }
  return make(set);
}

async function ciKey(seed: string, clientId: string, baseUrl: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(`${baseUrl}\n${clientId}\n${seed}`).digest('hex').slice(0, 20);
}

/**
 * Headless mode for CI: SCHOOL_REFRESH_TOKEN + SCHOOL_CLIENT_ID. Tokens obtained from the seed are
 * kept between invocations of one job, keyed to the seed, so a rotated refresh token is never
 * replayed; the keychain when one is usable, else a 0600 file in the state dir.
 */
async function headlessSession(deps: Deps, opts: GlobalOptions, profile: string): Promise<Session> {
  const env = deps.env;
  const seed = env.SCHOOL_REFRESH_TOKEN!;
  const clientId = env.SCHOOL_CLIENT_ID;
  const clientSecret = env.SCHOOL_CLIENT_SECRET || undefined;
  registerSecret(seed);
  registerSecret(clientSecret);
  if (!clientId) throw new UsageError('SCHOOL_REFRESH_TOKEN needs SCHOOL_CLIENT_ID (the client the token was issued to).');
  // Never a profile's server: the seed belongs to the server the job names.
  const baseUrl = baseUrlFor(opts, env);
  if (!baseUrl) throw new UsageError('SCHOOL_REFRESH_TOKEN needs SCHOOL_BASE_URL (or --base-url).');

  const key = await ciKey(seed, clientId, baseUrl);
  const markerFile = join(deps.paths.stateDir, `ci-${key}.json`);
  const account = `ci:${key}`;
  type Marker = { storage: 'keychain' | 'file'; rotationNoticeShown?: boolean };
  let marker: Marker | undefined;
  try {
    const text = await readFileIfExists(markerFile);
    marker = text ? (JSON.parse(text) as Marker) : undefined;
  } catch {
    marker = undefined;
  }
  let store: CredentialStore;
  const fileStore = () => openFileStore(join(deps.paths.stateDir, 'credentials.json'), deps.paths.lockDir);
  if (marker?.storage === 'keychain') store = await deps.credentials.keychain();
  else if (marker?.storage === 'file') store = fileStore();
  else {
    store = (await keychainOr(deps, fileStore())).store;
    marker = { storage: store.kind };
    await writeFileAtomic(markerFile, `${JSON.stringify(marker)}\n`, 0o600);
  }

  const read = async (): Promise<TokenSet> => {
    const text = await store.get(account).catch(() => null);
    if (text) {
      try {
        return parseTokenSet(text, 'the job state');
      } catch {
        // damaged state: start again from the seed
      }
    }
    // Nothing kept yet: the seed, with an access token that counts as expired.
    return { issuer: '', clientId, accessToken: '', tokenType: 'bearer', expiresAt: 0, obtainedAt: 0, refreshToken: seed, clientSecret };
  };
  const write = (set: TokenSet) => store.set(account, serializeTokenSet(set));
  const readForRefresh = async () => {
    const set = await read();
    if (!set.issuer) {
      // The issuer is learned from the server on first use.
      const { serverInfoFor } = await import('./discover.js');
      set.issuer = (await serverInfoFor(deps.http, deps.paths.cacheDir, baseUrl, undefined, deps.signal)).as.issuer;
    }
    return set;
  };

  const afterRefresh = async (r: { set: TokenSet; refreshed: boolean; previousRefresh?: string }) => {
    if (r.refreshed && r.previousRefresh === seed && r.set.refreshToken && r.set.refreshToken !== seed && !marker!.rotationNoticeShown) {
      deps.io.err.write(
        `Note: the server rotated the refresh token, so the value in SCHOOL_REFRESH_TOKEN is now spent.\n` +
          `The current one is kept in ${store.kind === 'keychain' ? 'the OS keychain' : deps.paths.stateDir} for the rest of this job; ` +
          `to carry it to the next job, keep SCHOOL_CONFIG_DIR in the job's cache, or mint a new seed.\n`,
      );
      marker!.rotationNoticeShown = true;
      await writeFileAtomic(markerFile, `${JSON.stringify(marker)}\n`, 0o600).catch(() => undefined);
    }
    return r.set;
  };
  const base = { profile, baseUrl, source: 'env' } as const;
  const refusedHint =
    'The seed in SCHOOL_REFRESH_TOKEN is spent or revoked: restore the cached SCHOOL_CONFIG_DIR, or mint a new seed with `school login --profile <name>` and `school token --profile <name> --for-ci`.';
  const make = (set: TokenSet): Session =>
    sessionFrom(set, base, async () =>
      make(await afterRefresh(await refreshLocked(deps, `ci-${key}`, readForRefresh, write, { baseUrl, profile, force: true, seenAccessToken: set.accessToken, clientSecret, refusedHint }))),
    );
  let set = await read();
  if (!set.accessToken || needsRefresh(set, nowSeconds(deps))) {
    set = await afterRefresh(await refreshLocked(deps, `ci-${key}`, readForRefresh, write, { baseUrl, profile, force: false, clientSecret, refusedHint }));
  }
  return make(set);
}

/**
 * The session a command should use: SCHOOL_TOKEN as it is; else headless CI mode; else the
 * profile's stored login (refreshed when about to expire). Undefined when not logged in at all.
 */
export async function resolveSession(deps: Deps, opts: GlobalOptions): Promise<Session | undefined> {
  const profile = profileName(opts, deps.env);
  const env = deps.env;
  if (env.SCHOOL_TOKEN) {
    registerSecret(env.SCHOOL_TOKEN);
    const config = await loadConfig(deps.paths);
    const baseUrl = baseUrlFor(opts, env, config.profiles[profile]);
    if (!baseUrl) throw new UsageError('SCHOOL_TOKEN needs SCHOOL_BASE_URL (or --base-url): a token is only ever sent to the origin it is for.');
    return { profile, baseUrl, accessToken: env.SCHOOL_TOKEN, tokenType: 'bearer', source: 'env', issuer: config.profiles[profile]?.issuer };
  }
  if (env.SCHOOL_REFRESH_TOKEN) return headlessSession(deps, opts, profile);
  const config = await loadConfig(deps.paths);
  const p = config.profiles[profile];
  if (!p) return undefined;
  return profileSession(deps, profile, p, opts);
}

export function notLoggedIn(deps: Deps, opts: GlobalOptions): CliError {
  const profile = profileName(opts, deps.env);
  let baseUrl: string | undefined;
  try {
    baseUrl = baseUrlFor(opts, deps.env);
  } catch {
    baseUrl = undefined;
  }
  return new AuthError(`Not logged in${profile === 'default' ? '' : ` (profile ${profile})`}.`, {
    code: 'not_logged_in',
    hint: loginHint(profile, baseUrl ?? 'https://your-school.example'),
  });
}
