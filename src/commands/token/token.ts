import { notLoggedIn, resolveSession } from '../../auth/session.js';
import type { Deps } from '../../deps.js';
import type { GlobalOptions } from '../context.js';

export type TokenOptions = GlobalOptions;

/** Prints a valid access token and nothing else: the one command whose stdout is a secret. */
export async function tokenRun(deps: Deps, opts: TokenOptions): Promise<void> {
  const session = await resolveSession(deps, opts);
  if (!session) throw notLoggedIn(deps, opts);
  if (opts.json) {
    const body = {
      access_token: session.accessToken,
      token_type: session.tokenType,
      expires_at: session.expiresAt ?? null,
      scope: session.scope ?? null,
    };
    deps.io.out.write(`${JSON.stringify(body)}\n`);
  } else {
    deps.io.out.write(`${session.accessToken}\n`);
  }
}
