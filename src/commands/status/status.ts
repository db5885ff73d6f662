import { access } from 'node:fs/promises';
import { shownTokenType } from '../../types/tokens.js';
import type { Deps } from '../../deps.js';
import { nowSeconds } from '../../deps.js';
import { CliError } from '../../errors.js';
import { type GlobalOptions, loginCommandFor, targetInputs } from '../../options.js';
import { EXAMPLE_BASE_URL, loginCommandText } from '../../util/login-command.js';
import { type Target, resolveTarget, targetProfile } from '../../session/target.js';
import type { CiClient, Profile } from '../../state/config-file.js';
import type { PendingLoginRecord } from '../../state/pending-login.js';
import type { SecretSource } from '../../session/usable-session.js';
import { resolvePaths } from '../../state/paths.js';
import { describeUser } from '../../ui/user.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { defineCommand } from '../command.js';

export type StatusOptions = GlobalOptions;

interface ProfileStatus {
  profile: string;
  active: boolean;
  baseUrl: string | null;
  issuer: string | null;
  clientId: string | null;
  /** The client was registered out of band (`login --client-id`). */
  preRegistered: boolean;
  user: { sub?: string; name?: string; email?: string } | null;
  scopes: string[];
  expiresAt: number | null;
  refreshable: boolean;
  /** "DPoP" for tokens bound to a key (RFC 9449), "bearer" otherwise; null where no tokens are known. */
  tokenType: string | null;
  storage: SecretSource;
  /** A `login --no-wait` waiting for its browser, until when. */
  /** A login waiting for the browser (`login --no-wait`, or a sign-in `school mcp` handed out): the URL to open. */
  pendingLogin: { expiresAt: number; url: string } | null;
  problem?: string;
}

/** A row under --json: snake_case keys, like every --json output of the CLI. */
interface ProfileStatusJson {
  profile: string;
  active: boolean;
  base_url: string | null;
  issuer: string | null;
  client_id: string | null;
  pre_registered: boolean;
  user: { sub?: string; name?: string; email?: string } | null;
  scopes: string[];
  expires_at: number | null;
  refreshable: boolean;
  token_type: string | null;
  storage: SecretSource;
  pending_login: { expires_at: number; url: string } | null;
  problem?: string;
}

function jsonRow(r: ProfileStatus): ProfileStatusJson {
  return {
    profile: r.profile,
    active: r.active,
    base_url: r.baseUrl,
    issuer: r.issuer,
    client_id: r.clientId,
    pre_registered: r.preRegistered,
    user: r.user,
    scopes: r.scopes,
    expires_at: r.expiresAt,
    refreshable: r.refreshable,
    token_type: r.tokenType,
    storage: r.storage,
    pending_login: r.pendingLogin && { expires_at: r.pendingLogin.expiresAt, url: r.pendingLogin.url },
    ...(r.problem === undefined ? {} : { problem: r.problem }),
  };
}

function describeExpiry(expiresAt: number | null, now: number, refreshable: boolean): string {
  const date = expiresAt === null ? undefined : new Date(expiresAt * 1000);
  if (expiresAt === null || !date || Number.isNaN(date.getTime())) return 'unknown';
  const delta = expiresAt - now;
  const when = date.toISOString().replace('.000Z', 'Z');
  const span = (s: number) => (s >= 3600 ? `${Math.round(s / 3600)} h` : s >= 60 ? `${Math.round(s / 60)} min` : `${s} s`);
  if (delta > 0) return `${when} (in ${span(delta)})`;
  return `${when} (expired ${span(-delta)} ago${refreshable ? '; renewed on next use' : ''})`;
}

/** A profile's row: what the config says, and what its stored tokens say (or the problem the session would meet). */
async function profileRow(deps: Deps, name: string, p: Profile, active: boolean): Promise<ProfileStatus & { location?: string }> {
  const row: ProfileStatus & { location?: string } = {
    profile: name,
    active,
    baseUrl: p.baseUrl ?? null,
    issuer: p.issuer ?? null,
    clientId: p.clientId ?? null,
    preRegistered: p.preRegistered === true,
    user: p.user ?? null,
    scopes: [],
    expiresAt: null,
    refreshable: false,
    tokenType: null,
    storage: p.storage,
    pendingLogin: null,
  };
  try {
    const found = await deps.state.inspectTokens(name, p);
    if (found.ok) {
      row.location = found.store.location;
      row.scopes = found.set.scope ? found.set.scope.split(' ').filter(Boolean) : [];
      row.expiresAt = found.set.expiresAt ?? null;
      row.refreshable = Boolean(found.set.refreshToken);
      row.tokenType = shownTokenType(found.set);
    } else {
      row.problem = found.problem.message.replace(/\.$/, '');
    }
  } catch (err) {
    row.problem = (err instanceof Error ? err.message : String(err)).replace(/\.$/, '');
  }
  return row;
}

/** The row of credentials given in the environment, which stand in for the active profile. */
function environmentRow(deps: Deps, target: Target | undefined): ProfileStatus {
  const baseUrl = target?.baseUrl ?? null;
  return {
    profile: deps.env.SCHOOL_TOKEN ? '(SCHOOL_TOKEN)' : '(SCHOOL_REFRESH_TOKEN)',
    active: true,
    baseUrl,
    issuer: null,
    clientId: deps.env.SCHOOL_TOKEN ? null : (deps.env.SCHOOL_CLIENT_ID ?? null),
    preRegistered: false,
    user: null,
    scopes: [],
    expiresAt: null,
    refreshable: !deps.env.SCHOOL_TOKEN,
    tokenType: 'bearer',
    storage: 'env',
    pendingLogin: null,
    problem: baseUrl ? undefined : 'no base URL: set SCHOOL_BASE_URL',
  };
}

/** A profile that exists only as a pending login: not usable until its browser comes back. */
function pendingOnlyRow(pending: PendingLoginRecord, active: boolean): ProfileStatus {
  return {
    profile: pending.profile,
    active,
    baseUrl: pending.baseUrl,
    issuer: pending.issuer,
    clientId: pending.clientId,
    preRegistered: pending.preRegistered === true,
    user: null,
    scopes: [],
    expiresAt: null,
    refreshable: false,
    tokenType: null,
    storage: pending.storage,
    pendingLogin: { expiresAt: pending.expiresAt, url: pending.authorizationUrl },
    problem: 'not logged in yet: a login is waiting for the browser',
  };
}

/** Every profile, never a secret; a broken profile is reported, not fatal, but makes the exit status 1. */
async function run(deps: Deps, opts: StatusOptions): Promise<void> {
  const profiles = await deps.state.profiles();
  const inputs = targetInputs(opts, deps.env);
  const active = targetProfile(inputs);
  const rows: Array<ProfileStatus & { location?: string }> = [];
  for (const [name, p] of Object.entries(profiles).sort(([a], [b]) => a.localeCompare(b))) rows.push(await profileRow(deps, name, p, name === active));
  const now = nowSeconds(deps);
  for (const pending of await deps.state.pendingLoginRecords().catch((): PendingLoginRecord[] => [])) {
    if (pending.expiresAt <= now) continue; // abandoned: its listener has given up
    const row = rows.find((r) => r.profile === pending.profile);
    if (row) row.pendingLogin = { expiresAt: pending.expiresAt, url: pending.authorizationUrl };
    else rows.push(pendingOnlyRow(pending, pending.profile === active));
  }
  rows.sort((a, b) => a.profile.localeCompare(b.profile));
  if (deps.env.SCHOOL_TOKEN || deps.env.SCHOOL_REFRESH_TOKEN) {
    for (const r of rows) r.active = false;
    // A malformed base URL is this row's problem, not a reason to report nothing.
    rows.unshift(environmentRow(deps, await resolveTarget(deps.state, inputs).catch(() => undefined)));
  }
  if (opts.json) deps.io.out.write(`${terminalSafeJson(rows.map(jsonRow), 2)}\n`);
  else if (!rows.length) {
    // A profile logged out of still remembers its server: the login that brings it back names it.
    const baseUrl = (await resolveTarget(deps.state, inputs).catch(() => undefined))?.baseUrl ?? EXAMPLE_BASE_URL;
    deps.io.err.write(`No profiles. Add one with:\n${loginCommandFor(active, baseUrl)}\n`);
  } else deps.io.out.write(report(rows, now));
  if (!opts.json) {
    // Report lines only, so the JSON stays the array of profiles.
    const ciClients = await deps.state.ciClients().catch((): CiClient[] => []);
    if (ciClients.length) deps.io.out.write(ciReport(ciClients));
    // Where `school mcp` records what agents did, once it has recorded something.
    const auditFile = resolvePaths(deps.env).auditFile;
    if (
      await access(auditFile).then(
        () => true,
        () => false,
      )
    )
      deps.io.out.write(`MCP audit log: ${printable(auditFile)}\n`);
  }
  const unusable = rows.filter((r) => r.problem).map((r) => `"${printable(r.profile)}"`);
  if (unusable.length) {
    throw new CliError(`${unusable.length > 1 ? 'Profiles' : 'Profile'} ${unusable.join(', ')} cannot be used now: see the problem reported above.`, { code: 'profile_unusable' });
  }
}

/** The clients handed to CI from here: a logout here never deletes their registrations. */
function ciReport(clients: CiClient[]): string {
  const out = ['Handed to CI (a logout here never deletes these clients at the server):'];
  for (const c of [...clients].sort((a, b) => a.profile.localeCompare(b.profile))) {
    const day = new Date(c.handedOverAt * 1000).toISOString().slice(0, 10);
    out.push(`  ${printable(c.profile)}: client ${printable(c.clientId)} at ${printable(c.baseUrl)}, handed over ${day}`);
  }
  return `${out.join('\n')}\n\n`;
}

function report(rows: Array<ProfileStatus & { location?: string }>, now: number): string {
  const out: string[] = [];
  for (const r of rows) {
    out.push(`${printable(r.profile)}${r.active ? ' (active)' : ''}`);
    // Every value may come from a server (or a hand-edited config): one line each, nothing a terminal acts on.
    const line = (k: string, v: string) => out.push(`  ${`${k}:`.padEnd(10)} ${printable(v)}`);
    line('Base URL', r.baseUrl ?? '-');
    if (r.storage !== 'env' || r.issuer) line('Issuer', r.issuer ?? '-');
    if (r.clientId) line('Client', r.preRegistered ? `${r.clientId} (pre-registered)` : r.clientId);
    if (r.user) line('User', describeUser(r.user));
    if (r.scopes.length) line('Scopes', r.scopes.join(' '));
    // A profile that exists only as a pending login has no tokens yet to expire.
    if ((r.storage !== 'env' && !(r.pendingLogin && r.expiresAt === null)) || r.expiresAt) line('Expires', describeExpiry(r.expiresAt, now, r.refreshable));
    if (r.tokenType === 'DPoP') line('Tokens', 'DPoP-bound: usable only with the key stored beside them (RFC 9449)');
    line('Secrets', r.location ? `${r.storage} (${r.location})` : r.storage);
    if (r.pendingLogin)
      line(
        'Pending',
        `a login waits for the browser until ${describeExpiry(r.pendingLogin.expiresAt, now, false)}; finish it with \`${loginCommandText({ profile: r.profile, options: ['--wait'] })}\``,
      );
    if (r.pendingLogin) line('Sign in', r.pendingLogin.url);
    if (r.problem) line('Problem', r.problem);
    out.push('');
  }
  return out.join('\n');
}

export const statusCommand = defineCommand<StatusOptions>({ name: 'status', run });
