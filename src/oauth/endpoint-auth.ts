import { CliError } from '../errors.js';
import type { AuthMethod } from '../types/tokens.js';
import { type ClientIdentity, endpointAuthMethod } from './client.js';
import { ServerRefusal, oauthStep, refusesClientAuthentication } from './oauth-errors.js';

/**
 * The methods to try at the revocation or introspection endpoint, in order: first the one the
 * client registered with (the one the server itself accepted at the token endpoint), then, where
 * the endpoint's metadata names another, that one. Servers in the field disagree with their own
 * metadata here: some list only client_secret_basic for these endpoints yet accept nothing but the
 * registered method, others the reverse.
 */
export function endpointAuthAttempts(client: ClientIdentity, endpointMethods: readonly string[] | undefined, tokenMethods: readonly string[] | undefined): AuthMethod[] {
  if (!client.clientSecret || client.authMethod === 'none') return ['none'];
  const named = endpointAuthMethod(client, endpointMethods, tokenMethods);
  return named === client.authMethod ? [client.authMethod] : [client.authMethod, named];
}

/**
 * Runs an oauth4webapi step at the revocation or introspection endpoint (`where`), authenticated
 * as `endpointAuthAttempts` orders: a refusal of the client's authentication (401, or
 * `invalid_client`) moves on to the next method, once; only when every method was refused is the
 * refusal reported, naming them.
 */
export async function endpointStep<T>(
  where: string,
  client: ClientIdentity,
  methods: { endpoint: readonly string[] | undefined; token: readonly string[] | undefined },
  attempt: (method: AuthMethod) => Promise<T>,
): Promise<T> {
  const attempts = endpointAuthAttempts(client, methods.endpoint, methods.token);
  let everyOneRefused = false;
  try {
    return await oauthStep(where, async () => {
      for (const [i, method] of attempts.entries()) {
        try {
          return await attempt(method);
        } catch (err) {
          const refused = refusesClientAuthentication(err);
          if (i === attempts.length - 1 || !refused) {
            everyOneRefused = refused && attempts.length > 1;
            throw err;
          }
        }
      }
      throw new Error('no client authentication method to try');
    });
  } catch (err) {
    if (!everyOneRefused || !(err instanceof CliError)) throw err;
    const message = `${err.message.replace(/\.$/, '')}, with ${attempts.at(-1)} as with ${attempts[0]}.`;
    if (err instanceof ServerRefusal) throw new ServerRefusal(message, err.error, err.description, err.status);
    throw new CliError(message, { code: err.code, hint: err.hint, cause: err });
  }
}
