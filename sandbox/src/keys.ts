import { generateKeyPair, type JsonWebKey } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

let cached: Promise<{ keys: JsonWebKey[] }> | undefined;

// RSA generation costs anywhere from 50 to 600 ms, so the signing keys are made once per
// process and shared by every sandbox started in it. RS256 is needed because it is the
// default ID token algorithm of registered clients; ES256 is offered alongside.
export function signingKeys(): Promise<{ keys: JsonWebKey[] }> {
  cached ??= (async () => {
    const [rsa, ec] = await Promise.all([generate('rsa', { modulusLength: 2048 }), generate('ec', { namedCurve: 'P-256' })]);
    return {
      keys: [
        { ...rsa.privateKey.export({ format: 'jwk' }), kid: 'sandbox-rs256', use: 'sig', alg: 'RS256' },
        { ...ec.privateKey.export({ format: 'jwk' }), kid: 'sandbox-es256', use: 'sig', alg: 'ES256' },
      ],
    };
  })();
  return cached;
}
