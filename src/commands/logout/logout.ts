import type { Command } from 'commander';
import type { Deps } from '../../deps.js';
import { CliError, describeError, errorReason } from '../../errors.js';
import { revokeToken } from '../../oauth/revoke.js';
import { type GlobalOptions, profileName, profileSuffix } from '../../options.js';
import { serverFor } from '../../session/server.js';
import type { Profile } from '../../state/config-file.js';
import type { TokenSet } from '../../state/token-set.js';
import { printable } from '../../util/printable.js';
import { redactText } from '../../util/redact.js';
import { booleanFlag, defineCommand, globalOptions } from '../command.js';

export interface LogoutOptions extends GlobalOptions {
  all: boolean;
}

/** Revokes at the server (refresh token first: it is the long-lived one), returning what failed. */
async function revokeAll(deps: Deps, p: Profile, set: TokenSet): Promise<string | undefined> {
  try {
    const server = await serverFor(deps, p.baseUrl, p.issuer);
    if (!server.as.revocation_endpoint) return 'the server has no revocation endpoint';
    const client = { clientId: set.clientId, authMethod: p.authMethod, clientSecret: set.clientSecret };
    if (set.refreshToken) await revokeToken(deps.http, server.as, client, { token: set.refreshToken, hint: 'refresh_token', signal: deps.signal });
    await revokeToken(deps.http, server.as, client, { token: set.accessToken, hint: 'access_token', signal: deps.signal });
    return undefined;
  } catch (err) {
    return errorReason(err);
  }
}

/** Why the server-side revocation could not be done for this profile, if it could not. */
async function revokeProfile(deps: Deps, name: string, p: Profile): Promise<string | undefined> {
  try {
    const found = await deps.state.inspectTokens(name, p);
    if (!found.ok) return found.problem.problem === 'missing' || found.problem.problem === 'keyring_locked' ? 'no stored tokens to revoke' : errorReason(found.problem);
    return await revokeAll(deps, p, found.set);
  } catch (err) {
    return errorReason(err);
  }
}

async function run(deps: Deps, opts: LogoutOptions): Promise<void> {
  const profiles = await deps.state.profiles();
  const names = opts.all ? Object.keys(profiles) : [profileName(opts, deps.env)];
  if (deps.env.SCHOOL_TOKEN || deps.env.SCHOOL_REFRESH_TOKEN) {
    deps.io.err.write('Note: credentials in the environment (SCHOOL_TOKEN / SCHOOL_REFRESH_TOKEN) are not affected by logout.\n');
  }
  const failures: string[] = [];
  const kept: string[] = [];
  let any = false;
  for (const name of names) {
    const p = profiles[name];
    if (!p) {
      if (!opts.all) deps.io.err.write(`Not logged in${profileSuffix(name)}; nothing to do.\n`);
      continue;
    }
    any = true;
    const problem = await revokeProfile(deps, name, p);
    // Forget locally whatever happened above: a damaged entry must not outlive the logout.
    try {
      await deps.state.forgetTokens(name, p.storage);
    } catch (err) {
      deps.io.err.write(`Could not remove the stored secrets of "${name}": ${printable(redactText(describeError(err).message))}\n`);
      kept.push(name);
    }
    await deps.state.removeProfile(name);
    const label = `${p.baseUrl}${profileSuffix(name)}`;
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

export const logoutCommand = defineCommand<LogoutOptions>({
  name: 'logout',
  description: 'revoke the tokens at the server and forget them locally',
  configure(cmd: Command) {
    cmd.option('--all', 'log out of every profile');
  },
  toOptions: (raw) => ({ ...globalOptions(raw), all: booleanFlag(raw, 'all') }),
  run,
});
