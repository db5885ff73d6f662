import { describe, expect, it } from 'vitest';
import { chooseAuthMethod, clientOf, endpointAuthMethod } from '../../src/oauth/client.js';

describe('client authentication chosen from the metadata', () => {
  it.each([
    { offered: ['none', 'client_secret_post'], confidential: false, method: 'none', became: false },
    { offered: ['none', 'client_secret_basic'], confidential: true, method: 'client_secret_basic', became: false },
    { offered: ['client_secret_post', 'client_secret_basic'], confidential: false, method: 'client_secret_post', became: true },
    { offered: ['client_secret_basic'], confidential: false, method: 'client_secret_basic', became: true },
    { offered: ['client_secret_basic', 'private_key_jwt'], confidential: true, method: 'client_secret_basic', became: false },
    { offered: undefined, confidential: false, method: 'none', became: false },
    { offered: undefined, confidential: true, method: 'client_secret_basic', became: false },
  ])('offered $offered, --confidential $confidential: $method', ({ offered, confidential, method, became }) => {
    expect(chooseAuthMethod(offered, confidential)).toEqual({ method, becameConfidential: became });
  });

  it('refuses a server that offers no method it can use, naming what it offers', () => {
    expect(() => chooseAuthMethod(['private_key_jwt', 'tls_client_auth'], false)).toThrow(/offers private_key_jwt, tls_client_auth/);
  });

  it('refuses --confidential where only public clients are accepted, as a usage error', () => {
    expect(() => chooseAuthMethod(['none'], true)).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringMatching(/only public clients/) }));
  });

  const basic = { clientId: 'c', authMethod: 'client_secret_basic' as const, clientSecret: 's' };
  const post = { clientId: 'c', authMethod: 'client_secret_post' as const, clientSecret: 's' };
  it.each([
    { name: "the endpoint's own list, with the client's method", client: post, endpoint: ['client_secret_post', 'client_secret_basic'], token: undefined, method: 'client_secret_post' },
    { name: "the endpoint's own list, without the client's method", client: post, endpoint: ['client_secret_basic'], token: ['client_secret_post'], method: 'client_secret_basic' },
    { name: "the token endpoint's list when the endpoint has none", client: basic, endpoint: undefined, token: ['client_secret_post'], method: 'client_secret_post' },
    { name: "the client's own method when no list is published", client: basic, endpoint: undefined, token: undefined, method: 'client_secret_basic' },
    { name: 'a public client, whatever is offered', client: { clientId: 'c', authMethod: 'none' as const }, endpoint: ['client_secret_basic'], token: undefined, method: 'none' },
  ])('revocation and introspection: $name', ({ client, endpoint, token, method }) => {
    expect(endpointAuthMethod(client, endpoint, token)).toBe(method);
  });

  it.each([
    { name: 'the method saved at login', set: { clientId: 'c', clientSecret: 's', authMethod: 'client_secret_basic' as const }, offered: ['client_secret_post'], method: 'client_secret_basic' },
    { name: 'a secret from the environment: what the metadata prefers', set: { clientId: 'c', clientSecret: 's' }, offered: ['client_secret_basic'], method: 'client_secret_basic' },
    { name: 'a secret from the environment, no list published: the RFC 8414 default', set: { clientId: 'c', clientSecret: 's' }, offered: undefined, method: 'client_secret_basic' },
    { name: 'no secret: a public client', set: { clientId: 'c', authMethod: 'client_secret_post' as const }, offered: ['client_secret_post'], method: 'none' },
  ])('the client of a token set: $name', ({ set, offered, method }) => {
    expect(clientOf(set, undefined, { issuer: 'https://as.example', token_endpoint_auth_methods_supported: offered }).authMethod).toBe(method);
  });
});
