import { readProfileTokens } from '../../credentials/profile-tokens.js';
import { loadConfig } from '../../config/config.js';
import { type Deps, nowSeconds } from '../../deps.js';
import { describeUser } from '../../auth/userinfo.js';
import { type GlobalOptions, baseUrlFor, profileName } from '../context.js';
import { printable, terminalSafeJson } from '../../util/printable.js';

export type StatusOptions = GlobalOptions;

export interface ProfileStatus {
  profile: string;
  active: boolean;
  baseUrl: string | null;
  issuer: string | null;
  clientId: string | null;
  user: { sub?: string; name?: string; email?: string } | null;
  scopes: string[];
  expiresAt: number | null;
  refreshable: boolean;
  storage: 'keychain' | 'file' | 'env';
  problem?: string;
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

/** Every profile, never a secret; a broken profile is reported, not fatal. */
export async function statusRun(deps: Deps, opts: StatusOptions): Promise<void> {
  const config = await loadConfig(deps.paths);
  const active = profileName(opts, deps.env);
  const rows: ProfileStatus[] = [];
  for (const [name, p] of Object.entries(config.profiles).sort(([a], [b]) => a.localeCompare(b))) {
    const row: ProfileStatus = {
      profile: name,
      active: name === active,
      baseUrl: p.baseUrl ?? null,
      issuer: p.issuer ?? null,
      clientId: p.clientId ?? null,
      user: p.user ?? null,
      scopes: [],
      expiresAt: null,
      refreshable: false,
      storage: p.storage === 'keychain' ? 'keychain' : 'file',
    };
    try {
      const { set } = await readProfileTokens(deps, name, p);
      if (!set) {
        row.problem = p.storage === 'keychain' ? 'no credentials in the OS keychain (locked, or removed)' : 'no credentials in the credential file';
      } else {
        row.scopes = set.scope ? set.scope.split(' ').filter(Boolean) : [];
        row.expiresAt = set.expiresAt ?? null;
        row.refreshable = Boolean(set.refreshToken);
        if (set.issuer !== p.issuer) row.problem = `credentials come from another issuer (${set.issuer})`;
      }
    } catch (err) {
      row.problem = (err as Error).message.replace(/\.$/, '');
    }
    rows.push(row);
  }
  if (deps.env.SCHOOL_TOKEN || deps.env.SCHOOL_REFRESH_TOKEN) {
    let baseUrl: string | null = null;
    try {
      baseUrl = baseUrlFor(opts, deps.env, config.profiles[active]) ?? null;
    } catch {
      baseUrl = null;
    }
    rows.unshift({
      profile: deps.env.SCHOOL_TOKEN ? '(SCHOOL_TOKEN)' : '(SCHOOL_REFRESH_TOKEN)',
      active: true,
      baseUrl,
      issuer: null,
      clientId: deps.env.SCHOOL_TOKEN ? null : (deps.env.SCHOOL_CLIENT_ID ?? null),
      user: null,
      scopes: [],
      expiresAt: null,
      refreshable: !deps.env.SCHOOL_TOKEN,
      storage: 'env',
      problem: baseUrl ? undefined : 'no base URL: set SCHOOL_BASE_URL',
    });
    for (const r of rows) if (r.storage !== 'env') r.active = false;
  }
  if (opts.json) {
    deps.io.out.write(`${terminalSafeJson(rows, 2)}\n`);
    return;
  }
  if (!rows.length) {
    deps.io.err.write('No profiles. Run `school login --base-url https://your-school.example` to add one.\n');
    return;
  }
  const now = nowSeconds(deps);
  const out: string[] = [];
  for (const r of rows) {
    out.push(`${printable(r.profile)}${r.active ? ' (active)' : ''}`);
    // Every value may come from a server (or a hand-edited config): one line each, nothing a terminal acts on.
    const line = (k: string, v: string) => out.push(`  ${`${k}:`.padEnd(10)} ${printable(v)}`);
    line('Base URL', r.baseUrl ?? '-');
    if (r.storage !== 'env' || r.issuer) line('Issuer', r.issuer ?? '-');
    if (r.clientId) line('Client', r.clientId);
    if (r.user) line('User', describeUser(r.user));
    if (r.scopes.length) line('Scopes', r.scopes.join(' '));
    if (r.storage !== 'env' || r.expiresAt) line('Expires', describeExpiry(r.expiresAt, now, r.refreshable));
    line('Secrets', r.storage === 'file' ? `file (${deps.paths.credentialsFile})` : r.storage);
    if (r.problem) line('Problem', r.problem);
    out.push('');
  }
  deps.io.out.write(out.join('\n'));
}
