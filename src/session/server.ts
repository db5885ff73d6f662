import { CliError, ExitCode } from '../errors.js';
import { type ServerInfo, discover } from '../oauth/discover.js';
import { type Deps, nowSeconds } from '../deps.js';
import { loginCommandText } from '../util/login-command.js';

/**
 * The server metadata for a base URL: from the cache when it names the expected issuer, else
 * discovered again (and cached). Saves a round trip on every refresh and logout.
 */
export async function serverFor(deps: Pick<Deps, 'http' | 'state' | 'clock' | 'signal'>, baseUrl: string, expectedIssuer?: string, profile?: string): Promise<ServerInfo> {
  const cached = await deps.state.cachedServer(baseUrl, expectedIssuer);
  if (cached) return cached;
  const challenge = await deps.state.seenChallenge(baseUrl, nowSeconds(deps)).catch(() => undefined);
  const info = await discover(deps.http, baseUrl, deps.signal, { challenge });
  if (expectedIssuer && info.as.issuer !== expectedIssuer) {
    throw new CliError(`${baseUrl} is now served by the authorization server ${info.as.issuer}, not ${expectedIssuer} where these credentials came from.`, {
      code: 'issuer_changed',
      exitCode: ExitCode.auth,
      hint: `Sign in to the new server:\n${loginCommandText({ baseUrl, profile })}`,
    });
  }
  await deps.state.saveServer(info, nowSeconds(deps));
  return info;
}
