import type { Deps } from '../../deps.js';
import type { GlobalOptions } from '../../options.js';
import { serverFor } from '../../session/server.js';
import { type Session, notLoggedIn, resolveSession } from '../../session/session.js';
import { type Identity, lookUpIdentity } from '../../session/identity.js';
import type { IdentitySource } from '../../state/config-file.js';
import { describeUser } from '../../ui/user.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { commandTarget, defineCommand } from '../command.js';

export type WhoamiOptions = GlobalOptions;

const SOURCE_NOTE: Record<IdentitySource, string> = {
  userinfo: 'Identity from the userinfo endpoint.',
  id_token: 'Identity from the ID token received at login (no userinfo endpoint to ask).',
  introspection: "Identity from token introspection: the access token's subject (no userinfo answer and no ID token).",
};

/** Who is logged in, by the one identity lookup; what login learned belongs to the login's tokens, not to a token from the environment. */
async function identify(deps: Deps, session: Session): Promise<Identity> {
  const server = await serverFor(deps, session.baseUrl, session.issuer, session.profile);
  const known = session.source === 'env' ? undefined : await deps.state.profile(session.profile);
  return lookUpIdentity(deps, server, session, known, 'whoami');
}

/** "Ada Lovelace ada@example.edu" from userinfo or the ID token; the subject too where only it is known. */
function describe(identity: Identity): string {
  const { claims } = identity;
  if (identity.source !== 'introspection') return describeUser(claims);
  const sub = typeof claims.sub === 'string' ? claims.sub : undefined;
  const name = typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined;
  return printable(name && sub ? `${name} (${sub})` : (name ?? sub ?? ''));
}

async function run(deps: Deps, opts: WhoamiOptions): Promise<void> {
  const target = await commandTarget(deps, opts, { profileMustExist: true });
  const session = await resolveSession(deps, target, { notify: (text) => deps.io.err.write(text) });
  if (!session) throw notLoggedIn(target);
  const identity = await identify(deps, session);
  // stdout is the identity alone (with --json, the claims object as the server gave it); where it
  // came from is a note on stderr, so no field of ours can collide with a claim. The userinfo
  // endpoint is where an identity is expected to come from: said only with --verbose.
  if (opts.json) deps.io.out.write(`${terminalSafeJson(identity.claims, 2)}\n`);
  else if (identity.source) deps.io.out.write(`${describe(identity)}\n`);
  if (identity.source === 'userinfo' && !opts.verbose) return;
  deps.io.err.write(
    identity.source
      ? `${SOURCE_NOTE[identity.source]}\n`
      : `Logged in on ${printable(session.baseUrl)}, but the token's subject is not known: the server has no userinfo endpoint, sent no ID token and does not introspect the token for this client.\n`,
  );
}

export const whoamiCommand = defineCommand<WhoamiOptions>({ name: 'whoami', run });
