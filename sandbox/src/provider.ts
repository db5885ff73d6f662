import { randomBytes } from 'node:crypto';

import { memoryAdapterFactory } from './adapter.js';
import { proofThumbprint } from './dpop.js';
import { signingKeys } from './keys.js';
import { renderDeviceConfirmPage, renderDeviceDonePage, renderDeviceInputPage, renderErrorPage } from './pages.js';
import { ALL_SCOPES } from './scopes.js';
import type { SandboxUser } from './users.js';
import {
  PRE_REGISTERED_CLIENTS,
  acceptsScope,
  adjustProviderAnswer,
  authorizationRequestProblem,
  clientAuthMethods,
  defaultClientAuthMethod,
  dpopSigningAlgs,
  managesRegistrations,
  providerScopes,
  usesDeviceFlow,
  refreshTokenAllowed,
  resourceScopes,
  rotatesRefreshToken,
  usesDpop,
  usesPar,
  variantMetadata,
  type Variants,
} from './variants.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export type Emit = (type: string, fields: Record<string, unknown>) => void;

export interface Routes {
  authorization: string;
  token: string;
  registration: string;
  userinfo: string;
  revocation: string;
  introspection: string;
  jwks: string;
}

// The paths named by the service interface.
export const DEFAULT_ROUTES: Routes = {
  authorization: '/oauth/authorize',
  token: '/api/oauth/token',
  registration: '/api/oauth/register',
  userinfo: '/api/oauth/userinfo',
  revocation: '/api/oauth/revoke',
  introspection: '/api/oauth/introspect',
  jwks: '/api/oauth/jwks',
};

// A server that puts its endpoints elsewhere: a client that reads the metadata copes with
// it, a client that hard-codes the documented paths gets 404s.
export const ALT_ROUTES: Routes = {
  authorization: '/connect/authorize',
  token: '/connect/token',
  registration: '/connect/register',
  userinfo: '/connect/userinfo',
  revocation: '/connect/revoke',
  introspection: '/connect/introspect',
  jwks: '/connect/jwks',
};

export const RESOURCE_SERVER_CLIENT_ID = 'school-sandbox-resource-server';

export interface ProviderSetup {
  issuer: string;
  resource: string; // the API's resource identifier, i.e. its origin without a trailing slash
  routes: Routes;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  rotateRefreshTokens: boolean;
  advertiseRevocation: boolean;
  users: SandboxUser[];
  resourceServerSecret: string;
  emit: Emit;
  quiet: boolean;
  variants: Variants;
}

let providerModule: Promise<Any> | undefined;

// oidc-provider warns at import time that Node 20 is not its preferred runtime. It works
// (measured), and the warning would land in every test log and every CLI transcript, so
// that one message is filtered while the module loads.
function loadOidcProvider(): Promise<Any> {
  providerModule ??= (async () => {
    const original = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('Unsupported runtime')) return;
      original.apply(console, args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = original;
    }
  })();
  return providerModule;
}

// Registration is open only to loopback clients of the exact form the interface names:
// http://127.0.0.1:<port>/<path>. Anything else (https callbacks, localhost, other hosts,
// missing port) is refused at registration time.
function loopbackRedirectProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'must be strings';
  const m = /^http:\/\/127\.0\.0\.1:(\d{1,5})(\/[^#]*)$/.exec(uri);
  if (!m) return `must be loopback addresses of the form http://127.0.0.1:<port>/<path> (got ${uri})`;
  const port = Number(m[1]);
  if (port < 1 || port > 65535) return `must name a valid port (got ${uri})`;
  if (!URL.canParse(uri)) return `must be valid URLs (got ${uri})`;
  return undefined;
}

export function endpointUrls(issuer: string, routes: Routes) {
  return {
    authorization_endpoint: issuer + routes.authorization,
    token_endpoint: issuer + routes.token,
    registration_endpoint: issuer + routes.registration,
    userinfo_endpoint: issuer + routes.userinfo,
    revocation_endpoint: issuer + routes.revocation,
    introspection_endpoint: issuer + routes.introspection,
    jwks_uri: issuer + routes.jwks,
  };
}

// The provider's discovery document, corrected into what the school platform publishes.
// Both /.well-known/openid-configuration and the RFC 8414 document are served from it.
function correctMetadata(raw: Record<string, Any>, setup: ProviderSetup): Record<string, unknown> {
  const doc: Record<string, unknown> = { ...raw };
  // Endpoints are pinned to the issuer instead of following the Host header.
  Object.assign(doc, endpointUrls(setup.issuer, setup.routes));
  doc.issuer = setup.issuer;
  doc.scopes_supported = [...ALL_SCOPES];
  doc.response_types_supported = ['code'];
  doc.grant_types_supported = ['authorization_code', 'refresh_token'];
  doc.code_challenge_methods_supported = ['S256'];
  doc.token_endpoint_auth_methods_supported = ['none', 'client_secret_post'];
  doc.revocation_endpoint_auth_methods_supported = ['none', 'client_secret_post'];
  doc.introspection_endpoint_auth_methods_supported = ['none', 'client_secret_post'];
  doc.authorization_response_iss_parameter_supported = true;
  // Signed client authentication is not offered, so no algorithms for it either.
  delete doc.token_endpoint_auth_signing_alg_values_supported;
  delete doc.revocation_endpoint_auth_signing_alg_values_supported;
  // A server without RFC 7009 revocation, as far as its clients can tell.
  if (!setup.advertiseRevocation) {
    delete doc.revocation_endpoint;
    delete doc.revocation_endpoint_auth_methods_supported;
  }
  delete doc.introspection_endpoint_auth_signing_alg_values_supported;
  // The interface makes no promise about Client ID Metadata Documents.
  delete doc.client_id_metadata_document_supported;
  variantMetadata(doc, setup.variants);
  return doc;
}

// The clients an operator registered out of band, where the server registers none itself. Native
// loopback clients: any port of the registered loopback redirect is accepted (RFC 8252 §7.3).
function preRegisteredClients(variants: Variants): Any[] {
  if (!variants.has('no-registration-endpoint')) return [];
  const common = {
    application_type: 'native',
    redirect_uris: ['http://127.0.0.1:8976/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
  return [
    { ...common, client_id: PRE_REGISTERED_CLIENTS.public.client_id, client_name: 'school (pre-registered, public)', token_endpoint_auth_method: 'none' },
    {
      ...common,
      client_id: PRE_REGISTERED_CLIENTS.confidential.client_id,
      client_secret: PRE_REGISTERED_CLIENTS.confidential.client_secret,
      client_name: 'school (pre-registered, confidential)',
      token_endpoint_auth_method: 'client_secret_post',
    },
  ];
}

function redirectError(location: string | undefined): string | undefined {
  if (!location) return undefined;
  try {
    return new URL(location).searchParams.get('error') ?? undefined;
  } catch {
    return undefined;
  }
}

export async function createProvider(setup: ProviderSetup): Promise<Any> {
  const { default: Provider, errors } = await loadOidcProvider();
  const { emit, users, resource, variants } = setup;

  const sameResource = (indicator: string) => indicator === resource || indicator === `${resource}/`;

  const configuration: Record<string, Any> = {
    adapter: memoryAdapterFactory(),
    jwks: await signingKeys(),
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    routes: setup.routes,
    scopes: providerScopes(variants),
    claims: {
      openid: ['sub'],
      profile: ['name', 'given_name', 'family_name', 'preferred_username'],
      email: ['email', 'email_verified'],
    },
    responseTypes: ['code'],
    enabledJWA: { dPoPSigningAlgValues: dpopSigningAlgs(variants) },
    // Claims asked for by scope go to userinfo only, unless there is no userinfo to serve them.
    conformIdTokenClaims: !variants.has('no-userinfo'),
    clientAuthMethods: clientAuthMethods(variants),
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      // client_secret_basic (the RFC 7591 default) is not offered by this server (only by variants).
      token_endpoint_auth_method: defaultClientAuthMethod(variants),
      id_token_signed_response_alg: 'RS256',
    },
    // The resource server's own credentials, used for RFC 7662 introspection.
    clients: [
      {
        client_id: RESOURCE_SERVER_CLIENT_ID,
        client_secret: setup.resourceServerSecret,
        client_name: 'School API (resource server)',
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: defaultClientAuthMethod(variants),
      },
      ...preRegisteredClients(variants),
    ],
    // The interface lists redirect_uri as required in both the authorization and the token request.
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      deviceFlow: {
        enabled: usesDeviceFlow(variants),
        charset: 'base-20',
        mask: '****-****',
        userCodeInputSource: async (ctx: Any, form: string, _out: unknown, err: unknown) => {
          ctx.body = renderDeviceInputPage(form, Boolean(err));
        },
        userCodeConfirmSource: async (ctx: Any, form: string, client: Any, _info: unknown, userCode: string) => {
          ctx.body = renderDeviceConfirmPage(form, client.clientName ?? client.clientId, userCode);
        },
        successSource: async (ctx: Any) => {
          ctx.body = renderDeviceDonePage();
        },
      },
      dPoP: {
        enabled: usesDpop(variants),
        // Nonces only where the variant requires them: without a secret oidc-provider issues none.
        ...(variants.has('dpop-required') ? { nonceSecret: randomBytes(32), requireNonce: () => true } : {}),
      },
      pushedAuthorizationRequests: { enabled: usesPar(variants), requirePushedAuthorizationRequests: variants.has('par-required') },
      rpInitiatedLogout: { enabled: false },
      // UserInfo is served by the sandbox itself: the built-in one refuses access tokens
      // that carry an audience, and every token here is bound to the API.
      userinfo: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      registrationManagement: { enabled: managesRegistrations(variants), rotateRegistrationAccessToken: false },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx: Any, client: Any, token: Any) => {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === 'none') return false;
          throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
        },
      },
      introspection: {
        enabled: true,
        // The resource server may introspect anything; a client only its own tokens.
        allowedPolicy: async (_ctx: Any, client: Any, token: Any) => client.clientId === RESOURCE_SERVER_CLIENT_ID || token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        // The API is the one protected resource. Every authorization is recorded for it, so
        // `resource` may be sent at the token endpoint alone and tokens always carry the
        // API as their audience.
        defaultResource: async (_ctx: Any, _client: Any, oneOf?: string | string[]) => oneOf ?? resource,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: Any, indicator: string) => {
          if (!sameResource(indicator)) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
          return {
            scope: resourceScopes(variants),
            audience: resource,
            accessTokenTTL: setup.accessTokenTtl,
            accessTokenFormat: 'opaque',
          };
        },
      },
    },
    // oidc-provider silently drops scopes it does not know. The platform refuses them, so the
    // scope parameter gets a validator; it runs after client, redirect_uri and PKCE checks,
    // which makes the refusal a proper redirect carrying state and iss.
    extraParams: {
      scope: async (ctx: Any, value: string | undefined) => {
        // The raw request value: by now offline_access may already have been stripped.
        const raw = ctx.method === 'POST' ? ctx.oidc.body?.scope : ctx.query.scope;
        const requested = typeof raw === 'string' ? raw : (value ?? '');
        const unknown = requested.split(' ').filter((s) => s && !acceptsScope(variants, s));
        if (unknown.length) {
          throw new errors.InvalidScope(`unsupported scope: ${unknown.join(' ')}`, unknown.join(' '));
        }
        const problem = authorizationRequestProblem(variants, requested.split(' '), ctx.oidc.params?.nonce);
        if (problem) throw new errors.InvalidRequest(problem);
      },
    },
    // Registration policies only run with initial access tokens; this validator runs for every
    // registration (it needs at least one extra property to be consulted at all). An error
    // description starting with "redirect_uris" comes out as invalid_redirect_uri.
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      validator: (_ctx: Any, key: string, value: unknown, metadata: Any) => {
        // Every client of the dpop-required variant gets DPoP-bound tokens only, whatever it
        // registered: oidc-provider then refuses a token request without a proof.
        if (variants.has('dpop-required')) metadata.dpop_bound_access_tokens = true;
        if (key === 'software_id') {
          for (const uri of metadata.redirect_uris ?? []) {
            const problem = loopbackRedirectProblem(uri);
            if (problem) throw new errors.InvalidClientMetadata(`redirect_uris ${problem}`);
          }
        }
        if (value !== undefined && typeof value !== 'string') {
          throw new errors.InvalidClientMetadata(`${key} must be a string`);
        }
      },
    },
    interactions: { url: (_ctx: Any, interaction: Any) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: Any, sub: string) => {
      const user = users.find((u) => u.sub === sub);
      if (!user) return undefined;
      return { accountId: user.sub, claims: async () => userClaims(user) };
    },
    // Refresh tokens go to every client registered for the refresh_token grant, without
    // offline_access (which the platform does not have) or prompt=consent, unless a variant
    // asks for offline_access.
    issueRefreshToken: async (_ctx: Any, client: Any, code: Any) => client.grantTypeAllowed('refresh_token') && refreshTokenAllowed(variants, code.scopes),
    rotateRefreshToken: (ctx: Any) => rotatesRefreshToken(variants, setup.rotateRefreshTokens, ctx.oidc?.client?.clientAuthMethod),
    // Tokens outlive the browser sign-in session: a CLI keeps refreshing long after.
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: setup.accessTokenTtl,
      AuthorizationCode: 120,
      DeviceCode: 600,
      IdToken: 3600,
      RefreshToken: setup.refreshTokenTtl,
      Interaction: 3600,
      Session: 24 * 3600,
      Grant: Math.max(setup.refreshTokenTtl, setup.accessTokenTtl),
    },
    renderError: async (ctx: Any, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = renderErrorPage(out.error, out.error_description);
    },
    clientBasedCORS: () => false,
  };

  const provider = new Provider(setup.issuer, configuration);
  if (setup.quiet) provider.silent = true;

  provider.on('server_error', (_ctx: Any, err: Error) => {
    if (!setup.quiet) console.error('sandbox: authorization server error:', err);
  });

  // Outer middleware: serves RFC 8414 metadata from the discovery route, corrects the
  // discovery document, and records one event per OAuth endpoint request (never with
  // token, code, verifier or secret values).
  provider.use(async (ctx: Any, next: () => Promise<void>) => {
    if (ctx.method === 'GET' && ctx.path === '/.well-known/oauth-authorization-server') {
      ctx.path = '/.well-known/openid-configuration';
    }
    await next();
    adjustProviderAnswer(ctx, variants);
    // The platform's registration answers name no way to manage the registration (RFC 7592).
    if (ctx.oidc?.route === 'registration' && !managesRegistrations(variants) && ctx.body && typeof ctx.body === 'object') {
      delete ctx.body.registration_client_uri;
      delete ctx.body.registration_access_token;
    }
    const oidc = ctx.oidc;
    if (!oidc) return;
    const route: string = oidc.route;
    const body = (safe(() => oidc.body) ?? {}) as Record<string, unknown>;
    const params = (safe(() => oidc.params) ?? {}) as Record<string, unknown>;
    const clientId = (safe(() => oidc.client?.clientId) ?? params.client_id ?? body.client_id) as string | undefined;
    const responseBody = ctx.body && typeof ctx.body === 'object' && !Buffer.isBuffer(ctx.body) ? ctx.body : {};
    const ok = ctx.status >= 200 && ctx.status < 300;
    // The key of the proof as sent, accepted or not (null without a DPoP header).
    const dpop = await proofThumbprint(ctx.get('DPoP') || undefined);

    switch (route) {
      case 'discovery':
        if (ok) ctx.body = correctMetadata(ctx.body, setup);
        emit('metadata', { path: ctx.originalUrl.split('?')[0] });
        break;
      case 'registration':
        // 2xx: the registration-200 variant answers 200 for the same registration.
        if (ok) {
          emit('register', {
            client_id: responseBody.client_id,
            token_endpoint_auth_method: responseBody.token_endpoint_auth_method,
            redirect_uris: responseBody.redirect_uris,
            application_type: responseBody.application_type,
            grant_types: responseBody.grant_types,
            client_name: responseBody.client_name,
          });
        } else {
          emit('register_refused', {
            error: responseBody.error,
            error_description: responseBody.error_description,
            redirect_uris: body.redirect_uris,
          });
        }
        break;
      case 'authorization': {
        const error = redirectError(ctx.response.get('location'));
        emit('authorize', {
          client_id: clientId,
          scope: params.scope ?? ctx.query.scope,
          redirect_uri: params.redirect_uri,
          code_challenge_method: params.code_challenge_method,
          // As sent by the client (params.resource already holds the default).
          ...(ctx.query.resource ? { resource: ctx.query.resource } : {}),
          status: ctx.status,
          ...(error ? { error } : {}),
        });
        break;
      }
      case 'token':
        emit('token', {
          grant_type: params.grant_type ?? body.grant_type,
          client_id: clientId,
          ok,
          status: ctx.status,
          ...((params.resource ?? body.resource) ? { resource: params.resource ?? body.resource } : {}),
          ...(ok
            ? { scope: responseBody.scope, refresh_token_issued: 'refresh_token' in responseBody, token_type: responseBody.token_type }
            : { error: responseBody.error, error_description: responseBody.error_description }),
          dpop,
        });
        break;
      case 'revocation': {
        const entities = safe(() => oidc.entities) ?? {};
        emit('revoke', {
          client_id: clientId,
          ...(body.token_type_hint ? { token_type_hint: body.token_type_hint } : {}),
          ok,
          revoked: entities.RefreshToken ? 'refresh_token' : entities.AccessToken ? 'access_token' : null,
          ...(ok ? {} : { error: responseBody.error }),
          dpop,
        });
        break;
      }
      case 'client':
      case 'client_delete':
        emit(route === 'client' ? 'registration_read' : 'registration_delete', { client_id: ctx.params?.clientId, status: ctx.status });
        break;
      case 'device_authorization':
        emit('device_authorization', { client_id: clientId, scope: params.scope ?? body.scope, status: ctx.status, ...(ok ? { interval: responseBody.interval } : { error: responseBody.error }) });
        break;
      case 'pushed_authorization_request':
        emit('par', {
          client_id: clientId,
          scope: params.scope ?? body.scope,
          ok,
          status: ctx.status,
          ...(ok ? {} : { error: responseBody.error, error_description: responseBody.error_description }),
          dpop,
        });
        break;
      case 'introspection':
        emit('introspect', {
          client_id: clientId,
          ok,
          active: responseBody.active,
          ...(ok ? {} : { error: responseBody.error }),
        });
        break;
      default:
        break;
    }
  });

  return provider;
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

export function userClaims(user: SandboxUser): Record<string, unknown> {
  const [given, ...rest] = user.name.split(' ');
  return {
    sub: user.sub,
    name: user.name,
    given_name: given,
    family_name: rest.join(' ') || undefined,
    preferred_username: user.username,
    email: user.email,
    email_verified: true,
  };
}
