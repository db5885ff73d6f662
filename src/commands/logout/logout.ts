import { serverInfoFor } from '../../auth/discover.js';
import { revokeToken } from '../../auth/tokens.js';
import { type Profile, loadConfig, updateConfig } from '../../config/config.js';
import { profileAccount } from '../../credentials/store.js';
import { type TokenSet, parseTokenSet } from '../../credentials/token-set.js';
import { type Deps, openStore } from '../../deps.js';
import { CliError, describeError, errorReason } from '../../errors.js';
import { type GlobalOptions, profileName } from '../context.js';
import { printable } from '../../util/printable.js';
import { redactText } from '../../util/redact.js';

export interface LogoutOptions extends GlobalOptions {
  all?: boolean;
}

/** Revokes at the server (refresh token first: it is the long-lived one), returning what failed. */
async function revokeAll(deps: Deps, p: Profile, set: TokenSet): Promise<string | undefined> {
  try {
    const server = await serverInfoFor(deps.http, deps.paths.cacheDir, p.baseUrl, p.issuer, deps.signal);
    if (!server.as.revocation_endpoint) return 'the server has no revocation endpoint';
    const client = { clientId: set.clientId, authMethod: p.authMethod, clientSecret: set.clientSecret };
    if (set.refreshToken) await revokeToken(deps.http, server.as, client, { token: set.refreshToken, hint: 'refresh_token', signal: deps.signal });
    await revokeToken(deps.http, server.as, client, { token: set.accessToken, hint: 'access_token', signal: deps.signal });
    return undefined;
  } catch (err) {
    return errorReason(err);
  }
}

export async function logoutRun(deps: Deps, opts: LogoutOptions): Promise<void> {
  const config = await loadConfig(deps.paths);
  const names = opts.all ? Object.keys(config.profiles) : [profileName(opts, deps.env)];
  if (deps.env.SCHOOL_TOKEN || deps.env.SCHOOL_REFRESH_TOKEN) {
    deps.io.err.write('Note: credentials in the environment (SCHOOL_TOKEN / SCHOOL_REFRESH_TOKEN) are not affected by logout.\n');
  }
  const failures: string[] = [];
  const kept: string[] = [];
  let any = false;
  for (const name of names) {
    const p = config.profiles[name];
    if (!p) {
      if (!opts.all) deps.io.err.write(`Not logged in${name === 'default' ? '' : ` (profile ${name})`}; nothing to do.\n`);
      continue;
    }
    any = true;
    let problem: string | undefined;
    const account = profileAccount(deps.paths.configDir, name);
    const store = await openStore(deps, p.storage).catch((err) => {
      problem = errorReason(err);
      return undefined;
    });
    try {
      const text = await store?.get(account);
      if (text) problem = await revokeAll(deps, p, parseTokenSet(text, store!.location));
      else problem ??= 'no stored tokens to revoke';
    } catch (err) {
      problem = errorReason(err);
    } finally {
      // Forget locally whatever happened above: a damaged entry must not outlive the logout.
      try {
        await store?.delete(account);
      } catch (err) {
        deps.io.err.write(`Could not remove the stored secrets of "${name}": ${printable(redactText(describeError(err).message))}\n`);
        kept.push(name);
      }
    }
    await updateConfig(deps.paths, (c) => {
      delete c.profiles[name];
    });
    const label = `${p.baseUrl}${name === 'default' ? '' : ` (profile ${name})`}`;
    if (problem) {
      failures.push(name);
      // The reason may quote the server (an error_description echoing the token): redacted, one line.
      deps.io.err.write(`Logged out of ${printable(label)} locally, but the server-side revocation was not confirmed: ${printable(redactText(problem))}.\n`);
    } else {
      deps.io.err.write(`Logged out of ${printable(label)}; the server revoked the tokens.\n`);
    }
  }
  if (opts.all && !any) deps.io.err.write('No profiles to log out of.\n');
  if (kept.length) {
    throw new CliError(`The stored secrets of ${kept.map((f) => `"${f}"`).join(', ')} could not be removed; remove them from ${kept.length > 1 ? 'their stores' : 'the store'} by hand.`, {
      code: 'secrets_kept',
    });
  }
  if (failures.length) {
    throw new CliError(`Server-side revocation was not confirmed for ${failures.map((f) => `"${f}"`).join(', ')}; the local credentials are gone.`, {
      code: 'revocation_unconfirmed',
    });
  }
}
