// Client credentials in a Basic header, against the two kinds of token endpoint met in the field:
// one that form-decodes the id and secret (RFC 6749 §2.3.1) and one that compares them as sent.
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/http/client.js';
import { basicAuthorization, encodeBasicPart } from '../../src/oauth/basic-credentials.js';
import type { ClientIdentity } from '../../src/oauth/client.js';
import { refreshGrant } from '../../src/oauth/refresh.js';

type Reading = 'decodes' | 'as-sent';

/** The id and secret a server reads from a Basic header, split at the first colon (RFC 7617 §2). */
function read(header: string | undefined, reading: Reading): { id: string; secret: string } | undefined {
  if (!header?.startsWith('Basic ')) return undefined;
  const pair = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  const [id, secret] = [pair.slice(0, colon), pair.slice(colon + 1)];
  if (reading === 'as-sent') return { id, secret };
  const decode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
  return { id: decode(id), secret: decode(secret) };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** A token endpoint on 127.0.0.1 that issues tokens only to `client`, reading Basic credentials its way. */
async function tokenEndpoint(reading: Reading, client: { id: string; secret: string }) {
  const seen: Array<{ id: string; secret: string } | undefined> = [];
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      const got = read(req.headers.authorization, reading);
      seen.push(got);
      const ok = got?.id === client.id && got.secret === client.secret;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { access_token: 'at-new-0123456789', token_type: 'Bearer', expires_in: 3600 } : { error: 'invalid_client' }));
    });
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { as: { issuer, token_endpoint: `${issuer}/token` }, seen };
}

async function refreshAs(reading: Reading, id: string, secret: string) {
  const server = await tokenEndpoint(reading, { id, secret });
  const client: ClientIdentity = { clientId: id, authMethod: 'client_secret_basic', clientSecret: secret };
  const current = { issuer: server.as.issuer, clientId: id, accessToken: 'at-old', refreshToken: 'rt-old-0123456789', tokenType: 'bearer', obtainedAt: 0 };
  const p = refreshGrant(createHttpClient({ env: {} }), server.as, client, { current, nowSeconds: 1_000, timeoutMs: 5_000 });
  return {
    outcome: await p.then(
      (t) => t.accessToken,
      (e: Error) => e.message,
    ),
    seen: server.seen,
  };
}

describe('Basic client credentials', () => {
  it.each([
    { name: 'unreserved punctuation', value: 'pre-registered_client.v1~x', sent: 'pre-registered_client.v1~x' },
    { name: 'letters and digits', value: 'Client42', sent: 'Client42' },
    { name: 'reserved and other ASCII', value: "a+b/c:d%e f!'()*", sent: 'a%2Bb%2Fc%3Ad%25e%20f%21%27%28%29%2A' },
    { name: 'non-ASCII, as UTF-8 bytes', value: 'élève-€', sent: '%C3%A9l%C3%A8ve-%E2%82%AC' },
    { name: 'a lone surrogate, as U+FFFD', value: 'x\ud800', sent: 'x%EF%BF%BD' },
  ])('encodes $name', ({ value, sent }) => {
    expect(encodeBasicPart(value)).toBe(sent);
  });

  it('puts the colon between the two encoded halves only', () => {
    const header = basicAuthorization('id:1', 'se:cret');
    expect(Buffer.from(header.slice(6), 'base64').toString()).toBe('id%3A1:se%3Acret');
  });

  const unreserved = { id: 'pre-registered_client.v1~a', secret: 'sec-ret_0.1~9' };
  it.each(['decodes', 'as-sent'] as const)('unreserved characters read the same by a server that %s', async (reading) => {
    const { outcome, seen } = await refreshAs(reading, unreserved.id, unreserved.secret);
    expect(outcome).toBe('at-new-0123456789');
    expect(seen).toEqual([unreserved]);
  });

  it('every other character read exactly by a server that decodes', async () => {
    const id = "cl+ient/1:ü-%20_.~!'()*";
    const secret = 's€cret+/:%~ plus space';
    const { outcome, seen } = await refreshAs('decodes', id, secret);
    expect(outcome).toBe('at-new-0123456789');
    expect(seen).toEqual([{ id, secret }]);
  });
});
