import { describe, expect, it } from 'vitest';
import { callCommand } from '../../src/commands/call/call.js';
import { loginCommand } from '../../src/commands/login/login.js';
import { statusCommand } from '../../src/commands/status/status.js';
import type { HttpClient, HttpRequest } from '../../src/http/client.js';
import { type LoginHooks, type LoginRequest, completeLogin, prepareLogin } from '../../src/login/transaction.js';
import { API, AS, fakeAuthServer } from '../helpers/fake-auth-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const REDIRECT_URI = 'http://127.0.0.1:5555/callback';
const base: LoginRequest = { profile: 'default', baseUrl: API, timeoutSeconds: 300, confidential: false, insecureStorage: false };

/** The fake server, its registration endpoint answering with `registration` (a function of what was asked) when given. */
function setup(registration?: (asked: Record<string, unknown>, n: number) => Record<string, unknown>) {
  const server = fakeAuthServer();
  let registrations = 0;
  const http: HttpClient = {
    async request(req: HttpRequest) {
      if (String(req.url) === `${AS}/register` && registration) {
        server.asked.push(`POST ${AS}/register`);
        const asked = JSON.parse(String(req.body)) as Record<string, unknown>;
        const body = Buffer.from(JSON.stringify(registration(asked, ++registrations)));
        return { status: 201, statusText: '', headers: { 'content-type': 'application/json' }, rawHeaders: [], body, url: String(req.url), httpVersion: '1.1' };
      }
      return server.request(req);
    },
  };
  const deps = fakeDeps({ http, now: 1_800_000_000_000 });
  const notices: string[] = [];
  const hooks: LoginHooks = { notify: (t) => notices.push(t), listen: async () => ({ redirectUri: REDIRECT_URI }) };
  const registered = () => server.asked.filter((a) => a === `POST ${AS}/register`).length;
  return { server, deps, notices, hooks, registered };
}

const redirectFor = (p: { redirectUri: string; state: string }) => new URL(`${p.redirectUri}?${new URLSearchParams({ state: p.state, iss: AS, code: 'code-0123456789' })}`);

async function login(s: ReturnType<typeof setup>, req: Partial<LoginRequest> = {}) {
  const pending = await prepareLogin(s.deps, { ...base, ...req }, s.hooks);
  return { pending, result: await completeLogin(s.deps, pending, redirectFor(pending)) };
}

describe('registration answers read liberally', () => {
  it('keeps a client the server made confidential, secret without expiry, and never registers again for it', async () => {
    const s = setup((_asked, n) => ({ client_id: `given-${n}`, client_secret: `secret-${n}-0123456789`, token_endpoint_auth_method: 'client_secret_post' }));
    const first = await login(s);
    expect(first.pending).toMatchObject({ clientId: 'given-1', authMethod: 'client_secret_post' });
    const exchange = s.server.grants.find((g) => g.grantType === 'authorization_code');
    expect(exchange?.params.get('client_secret')).toBe('secret-1-0123456789');
    const second = await login(s);
    expect(second.pending.clientId).toBe('given-1');
    expect(s.registered()).toBe(1);
  });

  it('reuses a cached confidential registration on a later public login, but --confidential never takes a public one', async () => {
    const s = setup((asked, n) => ({
      client_id: `c-${n}`,
      token_endpoint_auth_method: asked.token_endpoint_auth_method,
      ...(asked.token_endpoint_auth_method === 'none' ? {} : { client_secret: `s-${n}-0123456789` }),
    }));
    await login(s);
    expect(s.registered()).toBe(1);
    await login(s, { confidential: true });
    expect(s.registered()).toBe(2);
    await login(s);
    expect(s.registered()).toBe(2);
  });
});

describe('login --client-id', () => {
  it('makes no registration, presents the secret by the method the metadata prefers, and says pre-registered in status', async () => {
    const s = setup();
    delete s.server.metadata.registration_endpoint;
    const { pending } = await login(s, { clientId: 'org-app', clientSecret: 'org-secret-0123456789' });
    expect(pending).toMatchObject({ clientId: 'org-app', authMethod: 'client_secret_post', preRegistered: true });
    expect(s.registered()).toBe(0);
    expect(s.server.grants[0]?.params.get('client_secret')).toBe('org-secret-0123456789');
    await statusCommand.execute(() => s.deps, { json: true }, []);
    expect(JSON.parse(s.deps.io.stdout())).toEqual([expect.objectContaining({ client_id: 'org-app', pre_registered: true })]);
    // A later login without --client-id uses it again: the server has no registration endpoint.
    const again = await prepareLogin(s.deps, base, s.hooks);
    expect(again).toMatchObject({ clientId: 'org-app', preRegistered: true });
    expect(s.registered()).toBe(0);
  });

  it('is a public client without a secret', async () => {
    const s = setup();
    const { pending } = await login(s, { clientId: 'public-app' });
    expect(pending).toMatchObject({ clientId: 'public-app', authMethod: 'none' });
    expect(s.server.grants[0]?.params.get('client_secret')).toBeNull();
    expect(s.registered()).toBe(0);
  });

  it('is never registered again when the server does not know it', async () => {
    const s = setup();
    s.server.forgotten.add('stale-app');
    await expect(prepareLogin(s.deps, { ...base, clientId: 'stale-app' }, s.hooks)).rejects.toMatchObject({
      code: 'unauthorized_client',
      message: expect.stringContaining('pre-registered client stale-app'),
    });
    expect(s.registered()).toBe(0);
  });
});

describe('login --client-secret-stdin', () => {
  it('is the secret of a --client-id: alone it is a usage error that sends nothing', async () => {
    const s = setup();
    await expect(loginCommand.execute(() => s.deps, { baseUrl: API, clientSecretStdin: true, browser: true }, [])).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('give --client-id too'),
    });
    expect(s.server.asked).toEqual([]);
  });
});

describe('SCHOOL_CLIENT_METADATA_URL', () => {
  it('is left unused, in one line, where the server does not support client ID metadata documents', async () => {
    const s = setup();
    const pending = await prepareLogin(s.deps, { ...base, envClientMetadataUrl: 'https://app.example/client.json' }, s.hooks);
    expect(pending.clientId).not.toBe('https://app.example/client.json');
    expect(s.notices.join('')).toBe(`SCHOOL_CLIENT_METADATA_URL is not used: ${AS} does not support client ID metadata documents; registering as usual.\n`);
  });

  it('is the client_id where the server supports them; the flag stays strict elsewhere', async () => {
    const s = setup();
    s.server.metadata.client_id_metadata_document_supported = true;
    expect((await prepareLogin(s.deps, { ...base, envClientMetadataUrl: 'https://app.example/client.json' }, s.hooks)).clientId).toBe('https://app.example/client.json');
    const strict = setup();
    await expect(prepareLogin(strict.deps, { ...base, clientMetadataUrl: 'https://app.example/client.json' }, strict.hooks)).rejects.toMatchObject({ exitCode: 2 });
  });
});

describe('call without a login', () => {
  function challenging(header: string): HttpClient {
    return {
      async request(req: HttpRequest) {
        return {
          status: 401,
          statusText: 'Unauthorized',
          headers: { 'content-type': 'application/json', 'www-authenticate': header },
          rawHeaders: [],
          body: Buffer.from('{"error":"invalid_token"}'),
          url: String(req.url),
          httpVersion: '1.1',
        };
      },
    };
  }

  it('answered 401 with a challenge exits 4 naming the login, with the challenge scope', async () => {
    const deps = fakeDeps({ http: challenging('Bearer error="invalid_token", scope="courses:read"') });
    await expect(callCommand.execute(() => deps, { baseUrl: `${API}/school` }, ['/api/courses'])).rejects.toMatchObject({
      exitCode: 4,
      code: 'auth_required',
      scope: 'courses:read',
      hint: `school login --base-url ${API}/school --add-scope courses:read`,
    });
  });

  it('answered 401 without a challenge stays an HTTP failure (exit 1)', async () => {
    const deps = fakeDeps({ http: { request: async (req) => ({ ...(await challenging('x').request(req)), headers: { 'content-type': 'application/json' } }) } });
    await expect(callCommand.execute(() => deps, { baseUrl: API }, ['/api/courses'])).rejects.toMatchObject({ exitCode: 1, code: 'http_error' });
  });
});
