import type { Deps } from '../../deps.js';
import { CliError, errorReason } from '../../errors.js';
import { cancelPendingLogin } from '../../login/background.js';
import { type GlobalOptions, profileSuffix } from '../../options.js';
import { type LogoutResult, endSession, manualRemoval } from '../../session/end-session.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { redactText } from '../../util/redact.js';
import { commandTarget, defineCommand } from '../command.js';

export interface LogoutOptions extends GlobalOptions {
  all: boolean;
}

/** One sentence for one profile's logout, and whether it counts as a failure (exit 1). */
function describeResult(r: LogoutResult): { line: string; failed: boolean } {
  const label = printable(`${r.baseUrl}${profileSuffix(r.profile)}`);
  if (r.kept) {
    return {
      line: `Could not remove a stored secret of ${label} from ${r.kept.location} (${printable(redactText(r.kept.reason))}); the profile is kept so that a later \`school logout\` can finish. ${manualRemoval(r.kept)}`,
      failed: true,
    };
  }
  switch (r.revocation.kind) {
    case 'revoked':
      return { line: `Logged out of ${label}; the server revoked the tokens.`, failed: false };
    case 'unsupported':
      return { line: `Logged out of ${label} locally. Warning: the server has no revocation endpoint, so the tokens stay valid until they expire.`, failed: false };
    case 'nothing_stored':
      return { line: `Logged out of ${label}; no tokens were stored.`, failed: false };
    case 'failed':
      return { line: `Logged out of ${label} locally, but the server did not confirm the revocation: ${printable(redactText(r.revocation.reason))}.`, failed: true };
  }
}

function resultJson(r: LogoutResult) {
  return {
    profile: r.profile,
    base_url: r.baseUrl,
    revocation: r.revocation.kind,
    ...(r.revocation.kind === 'failed' ? { revocation_error: redactText(r.revocation.reason) } : {}),
    local_secrets_removed: !r.kept,
    ...(r.kept ? { kept: { location: r.kept.location, account: r.kept.account } } : {}),
    client_secret_removed: r.clientSecretForgotten,
    ...(r.registration ? { client_registration_deleted: r.registration.kind === 'deleted' } : {}),
  };
}

async function run(deps: Deps, opts: LogoutOptions): Promise<void> {
  const profiles = await deps.state.profiles();
  const pendingProfiles = opts.all ? (await deps.state.pendingLoginRecords().catch(() => [])).map((r) => r.profile) : [];
  const names = opts.all ? [...new Set([...Object.keys(profiles), ...pendingProfiles])] : [(await commandTarget(deps, opts)).profile];
  if (deps.env.SCHOOL_TOKEN || deps.env.SCHOOL_REFRESH_TOKEN) {
    deps.io.err.write('Note: credentials in the environment (SCHOOL_TOKEN / SCHOOL_REFRESH_TOKEN) are not affected by logout.\n');
  }
  const results: LogoutResult[] = [];
  const cancelled: string[] = [];
  const failures: string[] = [];
  for (const name of names) {
    const p = profiles[name];
    if (!p) {
      // Not logged in, but a login may be waiting for its browser: that ends too.
      if (await cancelPendingLogin(deps, name).catch(() => false)) {
        cancelled.push(name);
        deps.io.err.write(`Cancelled the pending login${profileSuffix(name)}.\n`);
      } else if (!opts.all) deps.io.err.write(`Not logged in${profileSuffix(name)}; nothing to do.\n`);
      continue;
    }
    // A login still waiting for its browser would otherwise log the profile in again.
    await cancelPendingLogin(deps, name).catch(() => false);
    const result = await endSession(deps, name, p);
    results.push(result);
    const { line, failed } = describeResult(result);
    if (failed) failures.push(line);
    else deps.io.err.write(`${line}\n`);
    if (result.registration?.kind === 'failed') {
      deps.io.err.write(`Warning: the client registration could not be deleted at the server (${printable(redactText(result.registration.reason))}); it stays registered there.\n`);
    }
  }
  // Headless CI job state belongs to no profile: `--all` is what ends it.
  let jobStatesRemoved = 0;
  if (opts.all) {
    try {
      jobStatesRemoved = await deps.state.forgetJobStates();
      if (jobStatesRemoved) deps.io.err.write(`Removed the saved state of ${jobStatesRemoved} headless CI job${jobStatesRemoved > 1 ? 's' : ''}.\n`);
    } catch (err) {
      failures.push(`Could not remove the saved state of headless CI jobs: ${printable(redactText(errorReason(err)))}.`);
    }
    if (!results.length && !cancelled.length && !jobStatesRemoved && !failures.length) deps.io.err.write('No profiles to log out of.\n');
  }
  if (opts.json) {
    deps.io.out.write(`${terminalSafeJson({ profiles: results.map(resultJson), pending_logins_cancelled: cancelled, ci_job_states_removed: jobStatesRemoved })}\n`);
  }
  if (failures.length === 1) throw new CliError(failures[0], { code: 'logout_incomplete' });
  if (failures.length > 1) {
    for (const line of failures) deps.io.err.write(`${line}\n`);
    throw new CliError(`The logout is not complete in ${failures.length} cases; see above.`, { code: 'logout_incomplete' });
  }
}

export const logoutCommand = defineCommand<LogoutOptions>({ name: 'logout', run });
