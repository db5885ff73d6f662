import { type Deps, nowSeconds } from '../deps.js';
import type { ErrorCode } from '../error-codes.js';
import { describeError } from '../errors.js';
import { proxyFor } from '../http/proxy.js';
import { requestedScopes } from '../login/scopes.js';
import { authorizationPreflight } from '../oauth/authorization-preflight.js';
import { authorizationRequest } from '../oauth/authorize.js';
import { registrationReadVerdict } from './registration-read.js';
import { type ServerInfo, discover } from '../oauth/discover.js';
import { requestUserInfo } from '../oauth/userinfo.js';
import { offersDpop, usesDpop } from '../oauth/dpop.js';
import { type TargetInputs, explicitBaseUrl, targetProfile } from '../session/target.js';
import type { Env } from '../types/env.js';
import { loginCommandFor, loginHint } from '../util/login-command.js';
import { checkProfileName } from '../util/profiles.js';
import type { Profile } from '../state/config-file.js';
import { fileProtection } from '../platform/file-protection.js';
import { type PathVerdict, inspectPrivatePath, reportRepairsTo } from '../state/permissions.js';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import { type BuildMachine, type KeychainExplanation, explainKeychain } from '../state/keychain-cause.js';
import type { ProbeResult } from '../state/credential-store.js';
import { registerSecret } from '../util/redact.js';
import { isDpopBound } from '../types/tokens.js';

/**
 * - ok: checked and fine
 * - info: a fact worth knowing (which proxy is used), nothing to fix
 * - warning: works, but not as it should (secrets in a plain file)
 * - problem: something will fail; `school doctor` exits 1
 */
export type FindingStatus = 'ok' | 'info' | 'warning' | 'problem';

type FindingArea = 'environment' | 'files' | 'keychain' | 'server' | 'profile';

/** One thing `school doctor` checked: never a secret in any field. */
/** A finding's values under --json: the compiler refuses a key with a capital letter in an object literal. */
type FindingData = { [key: Lowercase<string>]: string | number | boolean | string[] | null };

export interface Finding {
  area: FindingArea;
  /** The base URL (server) or profile name (profile) the finding is about. */
  subject?: string;
  /** A stable name for the check, e.g. `metadata`, `clock`, `registration`. */
  check: string;
  status: FindingStatus;
  message: string;
  /** What to do about it, for warnings and problems. */
  fix?: string;
  /** Measured values (milliseconds, seconds of skew, scopes) for --json; keys in snake_case, like every --json output. */
  data?: FindingData;
}

/** How far the local clock may be off the server's before token lifetimes are misjudged. */
const CLOCK_TOLERANCE_SECONDS = 30;

const KEYCHAIN_PROBE_LIMIT_MS = 5_000;
const SERVER_TIMEOUT_MS = 10_000;

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

/** A proxy URL as it may be shown: its credentials, if any, left out. */
function shownProxy(value: string): { shown: string; http: boolean } {
  try {
    const url = new URL(value.includes('://') ? value : `http://${value}`);
    return { shown: `${url.protocol}//${url.host}`, http: url.protocol === 'http:' };
  } catch {
    return { shown: '(not a URL)', http: false };
  }
}

function proxyFindings(env: Env, baseUrls: string[]): Finding[] {
  const findings: Finding[] = [];
  const set = PROXY_VARIABLES.filter((name) => env[name]);
  if (!set.length) findings.push({ area: 'environment', check: 'proxy', status: 'ok', message: 'No proxy variables are set: requests go out directly.' });
  for (const name of set) {
    const value = env[name] ?? '';
    const { shown, http } = name.toLowerCase() === 'no_proxy' ? { shown: value, http: true } : shownProxy(value);
    if (http) {
      findings.push({ area: 'environment', check: 'proxy', status: 'info', message: `${name} is set: ${shown}.`, data: { variable: name, value: shown } });
    } else {
      findings.push({
        area: 'environment',
        check: 'proxy',
        status: 'problem',
        message: `${name} is ${shown}, which is not an http:// proxy.`,
        fix: `Set ${name} to the http:// address of the proxy (https traffic is tunnelled through it), or unset it.`,
        data: { variable: name, value: shown },
      });
    }
  }
  if (env.ALL_PROXY || env.all_proxy) {
    findings.push({ area: 'environment', check: 'proxy', status: 'warning', message: 'ALL_PROXY is set, but school does not use it.', fix: 'Set HTTPS_PROXY (and HTTP_PROXY) to the proxy instead.' });
  }
  for (const baseUrl of baseUrls) {
    const proxy = proxyFor(new URL(baseUrl), env);
    if (set.length)
      findings.push({
        area: 'environment',
        check: 'proxy_route',
        status: 'info',
        message: `Requests to ${baseUrl} go ${proxy ? `through the proxy ${proxy.protocol}//${proxy.host}` : 'out directly'}.`,
        data: { base_url: baseUrl, proxy: proxy ? `${proxy.protocol}//${proxy.host}` : null },
      });
  }
  const envSession = env.SCHOOL_TOKEN ? 'SCHOOL_TOKEN' : env.SCHOOL_REFRESH_TOKEN ? 'SCHOOL_REFRESH_TOKEN' : undefined;
  if (envSession) {
    findings.push({ area: 'environment', check: 'credentials', status: 'info', message: `${envSession} is set: commands use it rather than a saved profile.`, data: { variable: envSession } });
  }
  return findings;
}

/**
 * A file or folder holding credentials must be the user's alone: judged by the same checks every
 * command makes before it reads them (`state/permissions.ts`), reported here rather than repaired.
 */
async function permissionFinding(path: string, what: string, kind: 'dir' | 'file'): Promise<Finding | undefined> {
  let verdict: PathVerdict;
  try {
    verdict = await inspectPrivatePath(path, kind === 'dir' ? 'directory' : 'file');
  } catch (err) {
    return { area: 'files', check: 'permissions', status: 'problem', message: `Cannot read ${what} ${path}: ${describeError(err).message}`, fix: `Check the permissions of ${path}.` };
  }
  switch (verdict.state) {
    case 'unchecked':
    case 'absent':
      return undefined;
    case 'wrong_kind':
      return {
        area: 'files',
        check: 'permissions',
        status: 'problem',
        message: `${what} ${path} is not a ${kind === 'dir' ? 'directory' : 'regular file'}.`,
        fix: `Move it aside: mv ${path} ${path}.bak`,
        data: { path },
      };
    case 'foreign':
      return {
        area: 'files',
        check: 'permissions',
        status: 'problem',
        message: `${what} ${path} belongs to another user (uid ${verdict.owner}).`,
        fix: `If it is yours, give it back to yourself: chown "$(id -u)" ${path}.`,
        data: { path },
      };
    case 'private':
    case 'open': {
      const shownMode = verdict.mode.toString(8).padStart(4, '0');
      const data = { path, mode: shownMode };
      if (verdict.state === 'private') return { area: 'files', check: 'permissions', status: 'ok', message: `${what} ${path} is yours alone (mode ${shownMode}).`, data };
      const others = kind === 'file' ? 'read or change it' : verdict.mode & 0o022 ? 'change what is in it' : 'see what is in it';
      return {
        area: 'files',
        check: 'permissions',
        status: 'problem',
        message: `${what} ${path} has mode ${shownMode}: other users can ${others}.`,
        fix: verdict.mine ? `chmod ${kind === 'file' ? '600' : '700'} ${path}` : `sudo chmod ${kind === 'file' ? '600' : '700'} ${path}`,
        data,
      };
    }
  }
}

/**
 * Windows has no file modes to check: the files are listed, with what protects them there (the
 * access rules of the user's profile folder, which the CLI does not change).
 */
function windowsFileFinding(path: string, what: string, kind: 'dir' | 'file'): Finding | undefined {
  let exists: boolean;
  try {
    const st = statSync(path);
    exists = kind === 'dir' ? st.isDirectory() : st.isFile();
  } catch {
    exists = false;
  }
  if (!exists) return undefined;
  return {
    area: 'files',
    check: 'permissions',
    status: 'info',
    message: `${what} ${path} is protected by your Windows user folder's access rules (file modes mean nothing on Windows).`,
    data: { path, protection: 'windows_user_folder' },
  };
}

async function fileFindings(deps: Deps): Promise<Finding[]> {
  const { paths } = deps.state;
  const checks: Array<[string, string, 'dir' | 'file']> = [
    [paths.configDir, 'The config dir', 'dir'],
    [paths.configFile, 'The config file', 'file'],
    [paths.credentialsFile, 'The credential file', 'file'],
    [paths.stateDir, 'The state dir', 'dir'],
    [paths.jobCredentialsFile, 'The CI job credential file', 'file'],
  ];
  const findings: Finding[] = [];
  for (const [path, what, kind] of checks) {
    const finding = deps.platform === 'win32' ? windowsFileFinding(path, what, kind) : await permissionFinding(path, what, kind);
    if (finding) findings.push(finding);
  }
  if (!findings.length) findings.push({ area: 'files', check: 'permissions', status: 'ok', message: `Nothing saved yet in ${paths.configDir}.` });
  return findings;
}

/** The machine as the keychain module's build sees it, for telling why it is not there. */
function buildMachine(deps: Deps): BuildMachine {
  const home = deps.env.HOME ?? homedir();
  return {
    platform: deps.platform,
    // npm's own setting counts as much as the variable: a nodedir in ~/.npmrc reaches node-gyp too.
    env: { npm_config_nodedir: npmrcNodedir(home), ...deps.env },
    nodeVersion: process.versions.node,
    home,
    uid: process.getuid?.(),
    exists: (path) => {
      try {
        statSync(path);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** The nodedir of the user's npm configuration, if it names one. */
function npmrcNodedir(home: string): string | undefined {
  try {
    return /^\s*nodedir\s*=\s*(\S+)\s*$/m.exec(readFileSync(join(home, '.npmrc'), 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * The fix for an unusable keychain, by what is wrong (keychain-cause.ts): a module that was never
 * built is built, a library that is missing installed, a session without a bus given one, a
 * keyring that is there but locked unlocked.
 */
function keychainFix(explained: KeychainExplanation): string {
  const ci = 'in CI, use SCHOOL_TOKEN or SCHOOL_REFRESH_TOKEN';
  if (explained.fix) return `${explained.fix.replace(/\.$/, '')}; ${ci}.`;
  return `No keychain service answers in this session: start one (e.g. gnome-keyring), or keep the 0600 file (--insecure-storage chooses it without this check); ${ci}.`;
}

async function keychainFinding(deps: Deps, profiles: Record<string, Profile>): Promise<Finding> {
  const started = deps.clock.now();
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `no answer within ${KEYCHAIN_PROBE_LIMIT_MS / 1000} s` }), KEYCHAIN_PROBE_LIMIT_MS);
  });
  const probe = await Promise.race([deps.state.probeStore('keychain').catch((err: unknown): ProbeResult => ({ ok: false, reason: describeError(err).message })), limit]);
  clearTimeout(timer);
  const ms = Math.max(0, Math.round(deps.clock.now() - started));
  if (probe.ok) return { area: 'keychain', check: 'keychain', status: 'ok', message: `The OS keychain is usable (a write, read and delete took ${ms} ms).`, data: { usable: true, ms } };
  const reason = probe.reason.replace(/\.$/, '');
  const explained = explainKeychain(reason, buildMachine(deps));
  const dependent = Object.entries(profiles)
    .filter(([, p]) => p.storage === 'keychain')
    .map(([name]) => name);
  // Credentials in the environment (CI) need no keychain: their job state goes to a 0600 file by design.
  const credentialsInEnvironment = Boolean(deps.env.SCHOOL_TOKEN || deps.env.SCHOOL_REFRESH_TOKEN);
  return {
    area: 'keychain',
    check: 'keychain',
    status: dependent.length ? 'problem' : credentialsInEnvironment ? 'info' : 'warning',
    message: dependent.length
      ? `The OS keychain cannot be used (${explained.problem}), and profile ${dependent.map((n) => `"${n}"`).join(', ')} keeps its tokens there.`
      : `The OS keychain cannot be used (${explained.problem}): logins store their tokens in a plain ${deps.platform === 'win32' ? `file instead, ${fileProtection(deps.platform)}` : '0600 file instead'}.`,
    ...(credentialsInEnvironment && !dependent.length ? {} : { fix: keychainFix(explained) }),
    data: { usable: false, ms, reason, cause: explained.cause },
  };
}

/** Whole seconds the local clock is ahead (+) or behind (−) a server's `Date`, allowing for the round trip. */
export function clockSkewSeconds(dateHeader: string, sentAtMs: number, receivedAtMs: number): number | undefined {
  const serverMs = Date.parse(dateHeader);
  if (Number.isNaN(serverMs)) return undefined;
  // The Date header has whole seconds, stamped somewhere during the round trip: compare with its middle.
  const skew = Math.round(((sentAtMs + receivedAtMs) / 2 - (serverMs + 500)) / 1000);
  return skew === 0 ? 0 : skew; // never -0
}

function fixFor(code: ErrorCode, baseUrl: string): string {
  switch (code) {
    case 'network_error':
    case 'timeout':
      return `Check the base URL (${baseUrl}), the network, and the proxy variables (HTTPS_PROXY, NO_PROXY).`;
    case 'discovery_failed':
      return `Check the base URL: it must be the school's own origin, the one its /.well-known/oauth-protected-resource is served from.`;
    default:
      return 'Tell the school service operator: the CLI cannot work with this server until it is fixed.';
  }
}

/** Reachability, clock skew and metadata of one base URL. */
async function serverFindings(deps: Deps, baseUrl: string): Promise<{ findings: Finding[]; server?: ServerInfo }> {
  const findings: Finding[] = [];
  const sentAt = deps.clock.now();
  try {
    // Any answer will do: it proves the server is there, and its Date header tells the server's time.
    const res = await deps.http.request({ url: new URL('/.well-known/oauth-protected-resource', baseUrl), signal: deps.signal, timeoutMs: SERVER_TIMEOUT_MS });
    const receivedAt = deps.clock.now();
    const ms = Math.max(0, Math.round(receivedAt - sentAt));
    findings.push({ area: 'server', subject: baseUrl, check: 'reachable', status: 'ok', message: `Reachable (HTTP ${res.status} in ${ms} ms).`, data: { status: res.status, ms } });
    const skew = res.headers.date ? clockSkewSeconds(res.headers.date, sentAt, receivedAt) : undefined;
    if (skew === undefined) {
      findings.push({ area: 'server', subject: baseUrl, check: 'clock', status: 'info', message: 'The server sends no usable Date header, so the clock cannot be compared.' });
    } else if (Math.abs(skew) > CLOCK_TOLERANCE_SECONDS) {
      findings.push({
        area: 'server',
        subject: baseUrl,
        check: 'clock',
        status: 'problem',
        message: `This machine's clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the server's: token lifetimes will be misjudged.`,
        fix: 'Synchronise the system clock (e.g. `sudo timedatectl set-ntp true`, or your OS time settings).',
        data: { skew_seconds: skew },
      });
    } else {
      findings.push({
        area: 'server',
        subject: baseUrl,
        check: 'clock',
        status: 'ok',
        message: `The clock agrees with the server's (within ${Math.max(1, Math.abs(skew))} s).`,
        data: { skew_seconds: skew },
      });
    }
  } catch (err) {
    const report = describeError(err);
    findings.push({ area: 'server', subject: baseUrl, check: 'reachable', status: 'problem', message: report.message, fix: fixFor(report.error, baseUrl), data: { error: report.error } });
    return { findings };
  }

  let server: ServerInfo;
  try {
    server = await discover(deps.http, baseUrl, deps.signal, { challenge: await deps.state.seenChallenge(baseUrl, nowSeconds(deps)).catch(() => undefined) });
  } catch (err) {
    const report = describeError(err);
    findings.push({ area: 'server', subject: baseUrl, check: 'metadata', status: 'problem', message: report.message, fix: fixFor(report.error, baseUrl), data: { error: report.error } });
    return { findings };
  }
  const { as } = server;
  const endpoints = (['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'userinfo_endpoint', 'revocation_endpoint'] as const).filter((k) => as[k]);
  findings.push({
    area: 'server',
    subject: baseUrl,
    check: 'metadata',
    status: 'ok',
    message: `Metadata is consistent: issuer ${as.issuer}, PKCE S256, endpoints ${endpoints.map((k) => k.replace(/_endpoint$/, '')).join(', ')}.`,
    data: { issuer: as.issuer, endpoints: endpoints.map((k) => k.replace(/_endpoint$/, '')), scopes: as.scopes_supported ?? [] },
  });
  findings.push(await shapeFinding(deps, baseUrl, server));
  // What the server may ask of clients (RFC 9126, 9449, 8628): used without a flag, so said here.
  const offers = [
    as.pushed_authorization_request_endpoint && `pushed authorization requests${as.require_pushed_authorization_requests === true ? ' (required)' : ''}`,
    usesDpop(server)
      ? 'DPoP (ES256), which the API accepts too: tokens bound to a key kept with them'
      : offersDpop(as)
        ? 'DPoP (ES256), but the API does not say it accepts DPoP (its protected-resource metadata): bearer tokens'
        : Array.isArray(as.dpop_signing_alg_values_supported) && 'DPoP, but with no algorithm this CLI signs with (ES256): bearer tokens',
    as.device_authorization_endpoint && 'device authorization (`login --device`)',
  ].filter((offer): offer is string => typeof offer === 'string');
  if (offers.length) {
    findings.push({ area: 'server', subject: baseUrl, check: 'mechanisms', status: 'info', message: `The server offers ${offers.join('; ')}.`, data: { offers } });
  }
  if (!as.registration_endpoint) {
    findings.push({
      area: 'server',
      subject: baseUrl,
      check: 'registration_endpoint',
      status: 'warning',
      message: 'The server offers no dynamic client registration: a first login here cannot register the CLI.',
      fix: 'Log in with `--client-id <id>` (a client the operator registered for you), or --client-metadata-url where the server supports it.',
    });
  }
  if (!as.revocation_endpoint) {
    findings.push({
      area: 'server',
      subject: baseUrl,
      check: 'revocation_endpoint',
      status: 'warning',
      message: 'The server offers no revocation endpoint: `school logout` cannot end sessions at the server; tokens stay valid until they expire.',
      fix: 'Nothing to do locally; keep token lifetimes short on the server.',
    });
  }
  return { findings, server };
}

/** How the server is shaped, as the servers in the field differ: where its metadata was, DPoP at the API, a pre-registered client. */
async function shapeFinding(deps: Deps, baseUrl: string, server: ServerInfo): Promise<Finding> {
  const { as } = server;
  const resourceMetadata = server.resourceFound ?? 'none';
  const preRegistered = await deps.state.clientRegistration(as.issuer, (c) => c.preRegistered === true).catch(() => undefined);
  const where = {
    path: `at its path-scoped address (${new URL(baseUrl).origin}/.well-known/oauth-protected-resource${new URL(baseUrl).pathname})`,
    origin: "at the origin's address",
    challenge: 'through the challenge to a request without a token (RFC 9728 §5.1)',
    none: 'nowhere: the base URL is taken for the authorization server',
  }[resourceMetadata];
  const dpop = server.resourceDpop ? `accepts DPoP${server.resourceDpop.required ? ' (requires it)' : ''}` : 'does not say it accepts DPoP';
  const parts = [
    `protected-resource metadata found ${where}`,
    `the API ${dpop}`,
    ...(server.resourceScopes?.length && !as.scopes_supported?.length ? ['scopes listed by the API alone'] : []),
    ...(preRegistered ? [`a pre-registered client (${preRegistered.clientId}) is used`] : []),
  ];
  return {
    area: 'server',
    subject: baseUrl,
    check: 'shapes',
    status: 'info',
    message: `Server shape: ${parts.join('; ')}.`,
    data: {
      resource_metadata: resourceMetadata,
      resource: server.resource ?? null,
      dpop_accepted_by_resource: Boolean(server.resourceDpop),
      pre_registered_client: Boolean(preRegistered),
      ...(server.challengeScopes?.length ? { challenge_scopes: server.challengeScopes } : {}),
    },
  };
}

/** One profile: its server still the same, its client still registered, its tokens present and accepted. */
async function profileFindings(deps: Deps, name: string, profile: Profile, server: ServerInfo | undefined): Promise<Finding[]> {
  const findings: Finding[] = [];
  const at = (check: string, status: FindingStatus, message: string, extra: Partial<Finding> = {}): void => {
    findings.push({ area: 'profile', subject: name, check, status, message, ...extra });
  };
  const relogin = loginHint(name, profile.baseUrl);

  if (!server) {
    at('server', 'warning', `Not checked against ${profile.baseUrl}: its server could not be checked (see above).`);
  } else if (server.as.issuer !== profile.issuer) {
    at('server', 'problem', `${profile.baseUrl} is now served by the authorization server ${server.as.issuer}, not ${profile.issuer} where this profile's tokens came from.`, { fix: relogin });
  } else {
    const registration = await deps.state.clientRegistration(profile.issuer, (c) => c.clientId === profile.clientId);
    if (!registration) {
      at('registration', 'info', `The client ${profile.clientId} is not a saved registration (a metadata document URL, or the record was removed): not checked.`);
    } else {
      // The registration itself where the server lets it be read (RFC 7592); else the authorization request a login
      // would send, never a grant: a failed grant is logged (and counted) at the server.
      const read = await registrationReadVerdict(deps, profile.issuer, registration, server.as);
      const preflight = async () => {
        const request = await authorizationRequest(server.as, {
          clientId: registration.clientId,
          redirectUri: registration.redirectUri,
          scopes: requestedScopes(undefined, server.as.scopes_supported),
          resource: server.resource,
        });
        return (await authorizationPreflight(deps.http, request.url, registration.redirectUri, deps.signal)) !== 'refused';
      };
      const known = read?.known !== undefined ? read.known : await preflight();
      if (read && read.known === undefined) at('registration_read', 'warning', `The registration of ${registration.clientId} could not be read (${read.detail}).`);
      if (known)
        at('registration', 'ok', `The server still knows the client ${registration.clientId}${read?.known ? ' (its registration was read)' : ''}.`, { data: { client_id: registration.clientId } });
      else
        at('registration', 'problem', `The server no longer knows the client ${registration.clientId}.`, {
          fix: `${relogin} (it registers the CLI again)`,
          data: { client_id: registration.clientId },
        });
    }
  }

  const found = await deps.state.inspectTokens(name, profile).catch((err: unknown) => ({ ok: false as const, problem: { message: describeError(err).message, hint: undefined } }));
  if (!found.ok) {
    at('tokens', 'problem', found.problem.message, { fix: found.problem.hint ?? relogin });
    return findings;
  }
  const { set } = found;
  const scopes = set.scope ? set.scope.split(' ').filter(Boolean) : [];
  const now = nowSeconds(deps);
  const left = set.expiresAt === undefined ? undefined : set.expiresAt - now;
  const bound = isDpopBound(set);
  const data: FindingData = { scopes, expires_at: set.expiresAt ?? null, refreshable: Boolean(set.refreshToken), storage: profile.storage, token_type: bound ? 'DPoP' : 'bearer' };
  if (left !== undefined && left <= 0) {
    if (set.refreshToken) at('tokens', 'ok', `The access token expired ${-left} s ago and is renewed on next use; scopes: ${scopes.join(' ') || '(none)'}.`, { data });
    else at('tokens', 'problem', 'The access token has expired and there is no refresh token.', { fix: relogin, data });
    return findings;
  }
  at(
    'tokens',
    'ok',
    `${bound ? 'DPoP-bound tokens' : 'Tokens'} are in ${found.store.location}${left === undefined ? '' : `, the access token valid for ${Math.round(left / 60)} min`}; scopes: ${scopes.join(' ') || '(none)'}.`,
    { data },
  );
  if (profile.storage === 'file') {
    at('storage', 'warning', `Its secrets are in a plain-text file (${found.store.location}), protected by file permissions only.`, {
      fix: `Once a keychain is usable, ${relogin.charAt(0).toLowerCase()}${relogin.slice(1)}`,
    });
  }
  // The token's validity at the server, where the server says who it belongs to.
  if (server && server.as.issuer === profile.issuer && server.as.userinfo_endpoint) {
    try {
      const info = await requestUserInfo(deps.http, server.as, { clientId: set.clientId, accessToken: set.accessToken, signal: deps.signal, dpopKey: isDpopBound(set) ? set.dpopKey : undefined });
      if (info.ok) at('token_accepted', 'ok', 'The server accepts the access token.');
      else if (info.status === 401) at('token_accepted', 'problem', `The server rejected the access token (HTTP 401${info.error ? `, ${info.error}` : ''}).`, { fix: relogin });
      else at('token_accepted', 'warning', `The userinfo endpoint answered HTTP ${info.status}; the token could not be confirmed.`);
    } catch (err) {
      at('token_accepted', 'warning', `The token could not be confirmed: ${describeError(err).message}`);
    }
  }
  return findings;
}

/** SCHOOL_TOKEN as the server sees it, where the server has a userinfo endpoint to ask. */
async function environmentTokenFinding(deps: Deps, baseUrl: string, server: ServerInfo | undefined): Promise<Finding | undefined> {
  const token = deps.env.SCHOOL_TOKEN;
  if (!token || !server?.as.userinfo_endpoint) return undefined;
  registerSecret(token);
  const fix = 'Replace SCHOOL_TOKEN with a valid access token for this server (e.g. `school token` where you are logged in).';
  try {
    // The token's client is unknown; the endpoint does not need it.
    const info = await requestUserInfo(deps.http, server.as, { clientId: 'school-cli', accessToken: token, signal: deps.signal });
    if (info.ok) return { area: 'environment', subject: baseUrl, check: 'environment_token', status: 'ok', message: `The server accepts SCHOOL_TOKEN.` };
    if (info.status === 401)
      return {
        area: 'environment',
        subject: baseUrl,
        check: 'environment_token',
        status: 'problem',
        message: `The server rejected SCHOOL_TOKEN (HTTP 401${info.error ? `, ${info.error}` : ''}).`,
        fix,
      };
    return {
      area: 'environment',
      subject: baseUrl,
      check: 'environment_token',
      status: 'warning',
      message: `The userinfo endpoint answered HTTP ${info.status}; SCHOOL_TOKEN could not be confirmed.`,
    };
  } catch (err) {
    return { area: 'environment', subject: baseUrl, check: 'environment_token', status: 'warning', message: `SCHOOL_TOKEN could not be confirmed: ${describeError(err).message}` };
  }
}

/** The base URL asked for on the command line or in the environment, or the problem with it. */
function askedBaseUrl(inputs: TargetInputs): { url?: string; finding?: Finding } {
  const raw = inputs.baseUrl || inputs.env.SCHOOL_BASE_URL;
  if (!raw) return {};
  try {
    return { url: explicitBaseUrl(inputs) };
  } catch (err) {
    const report = describeError(err);
    return {
      finding: {
        area: 'server',
        subject: raw,
        check: 'base_url',
        status: 'problem',
        message: report.message,
        fix: 'Give --base-url (or SCHOOL_BASE_URL) the whole URL, scheme included.',
        data: { error: report.error },
      },
    };
  }
}

/**
 * Every check of `school doctor`: the environment, the saved files, the keychain, each server in
 * play and each profile (only the one named by --profile, when it is given). Reads state, probes
 * servers; changes nothing but a keychain probe entry it removes again.
 */
export async function diagnose(deps: Deps, inputs: TargetInputs): Promise<Finding[]> {
  // The files are judged before anything reads them: reading repairs modes, and the report says so.
  const repairs: string[] = [];
  const previous = reportRepairsTo((note) => repairs.push(note.replace(/^Note: /, '')));
  try {
    const files = await fileFindings(deps);
    const findings = await diagnoseFrom(deps, inputs, () => [...files, ...repairs.splice(0).map(repairFinding)]);
    return [...findings, ...repairs.splice(0).map(repairFinding)];
  } finally {
    reportRepairsTo(previous);
  }
}

function repairFinding(note: string): Finding {
  return { area: 'files', check: 'permissions', status: 'info', message: note };
}

async function diagnoseFrom(deps: Deps, inputs: TargetInputs, fileFindingsNow: () => Finding[]): Promise<Finding[]> {
  const findings: Finding[] = [];
  const allProfiles = await deps.state.profiles();
  const only = inputs.profile || inputs.env.SCHOOL_PROFILE;
  const profiles = only ? Object.fromEntries(Object.entries(allProfiles).filter(([name]) => name === checkProfileName(only))) : allProfiles;

  const explicit = askedBaseUrl(inputs);
  // A profile logged out of is remembered with its server: that server is still worth checking.
  const named = only || targetProfile(inputs);
  const remembered = !profiles[named] ? await deps.state.rememberedBaseUrl(named) : undefined;
  const baseUrls = [...new Set([explicit.url, ...Object.values(profiles).map((p) => p.baseUrl), remembered].filter((u): u is string => Boolean(u)))];

  findings.push(...proxyFindings(deps.env, baseUrls));
  findings.push(...fileFindingsNow());
  findings.push(await keychainFinding(deps, profiles));

  if (explicit.finding) findings.push(explicit.finding);
  else if (!baseUrls.length) {
    findings.push({ area: 'server', check: 'base_url', status: 'info', message: 'No server to check: no profile, no --base-url, no SCHOOL_BASE_URL (`school doctor --base-url <url>` checks one).' });
  }
  const servers = new Map<string, ServerInfo | undefined>();
  for (const baseUrl of baseUrls) {
    const result = await serverFindings(deps, baseUrl);
    findings.push(...result.findings);
    servers.set(baseUrl, result.server);
  }

  const envBaseUrl = explicit.url ?? allProfiles[targetProfile(inputs)]?.baseUrl;
  if (envBaseUrl) {
    const envToken = await environmentTokenFinding(deps, envBaseUrl, servers.get(envBaseUrl));
    if (envToken) findings.push(envToken);
  }

  if (only && !profiles[only]) {
    findings.push({ area: 'profile', subject: only, check: 'tokens', status: 'info', message: `No profile "${only}" is saved: \`${loginCommandFor(only, remembered ?? explicit.url)}\` makes it.` });
  }
  for (const [name, profile] of Object.entries(profiles).sort(([a], [b]) => a.localeCompare(b))) {
    findings.push(...(await profileFindings(deps, name, profile, servers.get(profile.baseUrl))));
  }
  return findings;
}
