import type { Deps } from '../../deps.js';
import { InterruptedError, UsageError } from '../../errors.js';
import { nowSeconds } from '../../deps.js';
import { seedCommands, seedNotice } from '../../session/ci-seeds.js';
import { requireLifetime } from '../../session/lifetime.js';
import { DEFAULT_PROFILE, type GlobalOptions } from '../../options.js';
import { notLoggedIn, resolveSession } from '../../session/session.js';
import { shownTokenType } from '../../types/tokens.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { commandTarget, defineCommand } from '../command.js';
import { loginCommandText } from '../../util/login-command.js';

export interface TokenOptions extends GlobalOptions {
  forCi: boolean;
  /** --min-ttl: seconds the printed token must stay valid (0 when not given). */
  minTtl: number;
}

/**
 * Hands a dedicated grant over to a CI secret store: prints SCHOOL_BASE_URL, SCHOOL_CLIENT_ID and
 * SCHOOL_REFRESH_TOKEN (and SCHOOL_CLIENT_SECRET) and forgets the profile locally without revoking
 * it, because a rotating refresh token must have exactly one holder from now on.
 */
async function handOverToCi(deps: Deps, opts: TokenOptions): Promise<void> {
  const target = await commandTarget(deps, opts);
  const name = target.profile;
  if (name === DEFAULT_PROFILE && !opts.profile && !deps.env.SCHOOL_PROFILE) {
    throw new UsageError('--for-ci hands a whole profile over to CI: name a dedicated one with --profile.', {
      hint: seedCommands(target.baseUrl, 'ci-myjob'),
    });
  }
  const profile = target.stored;
  if (!profile) throw notLoggedIn(target);
  const set = await deps.state.readTokens(name, profile);
  if (!set.refreshToken) throw new UsageError(`Profile "${name}" has no refresh token to hand over.`);
  // A public client's refresh token is bound to the key (RFC 9449 §5), and a server that wants
  // DPoP wants proofs on every refresh; the key never leaves this machine.
  if (set.dpopKey) {
    throw new UsageError(
      `Profile "${name}" was logged in with a DPoP key that stays on this machine: its tokens (a public client's refresh token too) need proofs of that key, so a CI job could not use them.`,
      {
        hint: `Log in to that profile without DPoP, then hand it over:\n${loginCommandText({ profile: name, baseUrl: target.baseUrl, options: ['--no-dpop'] })}`,
      },
    );
  }
  const values: Record<string, string> = {
    SCHOOL_BASE_URL: profile.baseUrl,
    SCHOOL_CLIENT_ID: set.clientId,
    SCHOOL_REFRESH_TOKEN: set.refreshToken,
  };
  if (set.clientSecret) values.SCHOOL_CLIENT_SECRET = set.clientSecret;
  // Recorded before the seed is shown: from now on no logout here deletes the client CI depends on.
  await deps.state.markHandedToCi({ profile: name, baseUrl: profile.baseUrl, issuer: profile.issuer, clientId: set.clientId, handedOverAt: nowSeconds(deps) });
  // The client id came from a server: a line break in it must not forge another variable.
  deps.io.out.write(
    opts.json
      ? `${terminalSafeJson(values)}\n`
      : Object.entries(values)
          .map(([k, v]) => `${k}=${printable(v)}\n`)
          .join(''),
  );
  await deps.state.forgetTokens(name, profile.storage);
  await deps.state.removeProfile(name);
  deps.io.err.write(`Profile "${name}" was handed over: store these values as CI secrets; this machine no longer uses them.\n`);
  deps.io.err.write(seedNotice(Boolean(set.clientSecret)));
}

/** Prints a valid access token and nothing else: the one command whose stdout is a secret. */
async function run(deps: Deps, opts: TokenOptions): Promise<void> {
  if (opts.forCi) return handOverToCi(deps, opts);
  const minTtlSeconds = opts.minTtl;
  const target = await commandTarget(deps, opts, { profileMustExist: true });
  const session = await resolveSession(deps, target, { notify: (text) => deps.io.err.write(text), minTtlSeconds });
  if (!session) throw notLoggedIn(target);
  requireLifetime(session, nowSeconds(deps), minTtlSeconds);
  // Ctrl-C during a refresh still lets the new tokens be stored; the command then stops there.
  if (deps.signal.aborted) throw new InterruptedError();
  if (opts.json) {
    const body = {
      access_token: session.accessToken,
      token_type: shownTokenType(session),
      expires_at: session.expiresAt ?? null,
      scope: session.scope ?? null,
    };
    deps.io.writeOutSync(`${terminalSafeJson(body)}\n`);
  } else {
    deps.io.writeOutSync(`${session.accessToken}\n`);
    // Printed for a header of someone else's: a bound token is refused there without a proof.
    if (session.dpopKey)
      deps.io.err.write('Note: this token is DPoP-bound: a request with it needs a proof of the key school keeps. Send requests with `school call` (or log in with --no-dpop for a bearer token).\n');
  }
}

export const tokenCommand = defineCommand<TokenOptions>({ name: 'token', run });

/** For the fast path, which skips the parser: the plain `school token` with global options only. */
export const runToken = run;
