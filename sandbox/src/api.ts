import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { readBody } from './body.js';
import { dpopChallenge, dpopHeaderOf, proofThumbprint, type ResourceDpop } from './dpop.js';
import { SYNTHETIC_SCHEMAS, buildOpenApi, syntheticScope, type DescriptionOptions } from './openapi.js';
import { createPlatform, type PlatformCall } from './platform.js';
import { firstViolation } from './schema-check.js';
import { userClaims, type Emit } from './provider.js';
import { DATA_SCOPES } from './scopes.js';
import type { SandboxUser } from './users.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

interface TokenInfo {
  clientId: string;
  sub: string | undefined;
  scopes: Set<string>;
  aud: string | undefined;
  /** The thumbprint of the key a DPoP-bound token is bound to (its cnf.jkt). */
  jkt: string | undefined;
}

type BearerResult = { state: 'absent' } | { state: 'invalid'; description: string } | { state: 'valid'; token: TokenInfo };

/** A refusal answered with a DPoP challenge (never a Bearer one: no refresh cures it). */
export interface DpopRefusal {
  state: 'dpop_refused';
  error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce';
  description: string;
}

export interface AccessCheck {
  result: BearerResult | DpopRefusal;
  /** The scheme of the Authorization header, when it was readable. */
  scheme: 'bearer' | 'dpop' | null;
  /** The thumbprint of the DPoP proof's key as sent (null without a DPoP header). */
  dpop: string | null;
  /** The DPoP-Nonce to send back, on every answer to a request with a proof where nonces are in use. */
  nonce: string | undefined;
}

const UNKNOWN_TOKEN = 'the access token is unknown, expired or revoked';

// Looks a token up in the provider's own store, with the same checks its introspection
// endpoint applies (expiry, live grant, matching client/account).
async function findAccessToken(provider: Any, value: string, audience: string): Promise<{ token: TokenInfo } | { problem: string }> {
  let token: Any;
  try {
    token = await provider.AccessToken.find(value);
  } catch {
    token = undefined;
  }
  if (!token?.isValid) return { problem: UNKNOWN_TOKEN };
  if (token.grantId) {
    const grant = await provider.Grant.find(token.grantId);
    if (!grant || grant.isExpired || grant.clientId !== token.clientId || grant.accountId !== token.accountId) {
      return { problem: UNKNOWN_TOKEN };
    }
  }
  if (token.aud !== audience) return { problem: `the access token was not issued for ${audience}` };
  return {
    token: {
      clientId: token.clientId,
      sub: token.accountId,
      scopes: new Set(
        String(token.scope ?? '')
          .split(' ')
          .filter(Boolean),
      ),
      aud: token.aud,
      jkt: typeof token.jkt === 'string' ? token.jkt : undefined,
    },
  };
}

// Validates the access token of a request to the API or userinfo. Unbound tokens with the
// Bearer scheme get exactly the answers they always got; DPoP-bound tokens need the DPoP
// scheme and a valid proof (RFC 9449 §7), and the DPoP scheme needs a bound token.
async function checkAccess(req: IncomingMessage, provider: Any, audience: string, dpopState: ResourceDpop, requestUrl: string): Promise<AccessCheck> {
  const proof = dpopHeaderOf(req);
  const dpop = await proofThumbprint(proof);
  const nonce = proof !== undefined ? dpopState.nextNonce() : undefined;
  const done = (result: AccessCheck['result'], scheme: AccessCheck['scheme'] = null): AccessCheck => ({ result, scheme, dpop, nonce });
  const refuse = (error: DpopRefusal['error'], description: string, scheme: AccessCheck['scheme']) => done({ state: 'dpop_refused', error, description }, scheme);

  const header = req.headers.authorization;
  if (header === undefined) return done({ state: 'absent' });
  const m = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!m) return done({ state: 'invalid', description: 'the Authorization header must carry a Bearer access token' });
  const scheme = m[1]!.toLowerCase() === 'dpop' ? 'dpop' : 'bearer';
  const value = m[2]!;
  if (dpopState.nonces === 'loop' && proof !== undefined) {
    return refuse('use_dpop_nonce', 'the resource server requires a fresh DPoP nonce', scheme);
  }
  const found = await findAccessToken(provider, value, audience);
  if ('problem' in found) {
    return scheme === 'bearer' ? done({ state: 'invalid', description: found.problem }, scheme) : refuse('invalid_token', found.problem, scheme);
  }
  const { token } = found;
  if (scheme === 'bearer') {
    if (token.jkt !== undefined) {
      return refuse('invalid_token', 'the access token is bound to a DPoP key: send it with the DPoP scheme and a DPoP proof', scheme);
    }
    return done({ state: 'valid', token }, scheme);
  }
  if (token.jkt === undefined) return refuse('invalid_token', 'the access token is not bound to a DPoP key: send it with the Bearer scheme', scheme);
  if (proof === undefined) return refuse('invalid_token', 'a DPoP-bound access token needs a DPoP proof', scheme);
  // Node joins repeated headers with ", ", which a compact JWS never contains.
  if (proof.includes(',')) return refuse('invalid_dpop_proof', 'send exactly one DPoP header', scheme);
  const checked = await dpopState.check(proof, { jkt: token.jkt, method: req.method ?? 'GET', url: requestUrl, accessToken: value });
  if (!checked.ok) return refuse(checked.error!, checked.description!, scheme);
  return done({ state: 'valid', token }, scheme);
}

/** Answers a DPoP refusal: 401, a DPoP challenge, the OAuth error in the body. */
function sendDpopRefusal(res: ServerResponse, refusal: DpopRefusal, algs: string[], extra = '') {
  sendJson(
    res,
    401,
    { error: refusal.error, error_description: refusal.description },
    {
      'WWW-Authenticate': dpopChallenge(refusal.error, refusal.description, algs, extra),
    },
  );
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body, null, 2);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(text);
}

const API_BODY_LIMIT = 1024 * 1024;

function readApiBody(req: IncomingMessage): Promise<Buffer> {
  return readBody(req, API_BODY_LIMIT);
}

function isJson(req: IncomingMessage): boolean {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

export interface ResourceServerContext {
  baseUrl: string;
  /** The resource identifier tokens are issued for, where it is not the base URL (its origin). */
  resource?: string;
  issuer: string;
  provider: Any;
  users: SandboxUser[];
  emit: Emit;
  oauthUrls: { authorization_endpoint: string; token_endpoint: string };
  dpop: ResourceDpop;
  /** RFC 9728 DPoP fields of the protected-resource metadata, where the variant offers DPoP. */
  dpopMetadata?: { dpop_signing_alg_values_supported: string[]; dpop_bound_access_tokens_required: boolean };
  /** What the variant changes in /openapi.json (x-cli-name, synthetic operations). */
  description?: DescriptionOptions;
}

interface Course {
  id: string;
  title: string;
  visibility: 'public' | 'private';
  lecturer?: string;
  seats?: number;
  [k: string]: unknown;
}
interface Student {
  id: string;
  name: string;
  email?: string;
  [k: string]: unknown;
}

// The protected resource: RFC 9728 metadata, /openapi.json and the data API whose operations
// are guarded by the platform's scopes. No token means anonymous, never a challenge. Courses,
// lessons, students and echo are written out here; every other area is served by platform.ts
// from the table in catalogue.ts, on the same records.
export function createResourceServer(ctx: ResourceServerContext) {
  const { baseUrl, issuer, provider, emit } = ctx;
  const audience = ctx.resource ?? baseUrl;
  const resourceMetadataUrl = `${baseUrl}/.well-known/oauth-protected-resource`;
  const platform = createPlatform(baseUrl, ctx.users);
  const courses = platform.records('Course') as Course[];
  const students = platform.records('Student') as Student[];
  const synthetic = ctx.description?.totalOperations ? /^\/api\/synthetic\/([a-z_]+)\/op-(\d+)$/ : undefined;

  function invalidToken(res: ServerResponse, description: string) {
    sendJson(
      res,
      401,
      { error: 'invalid_token', error_description: description },
      {
        'WWW-Authenticate': `Bearer error="invalid_token", error_description=${quote(description)}, resource_metadata=${quote(resourceMetadataUrl)}`,
      },
    );
  }

  function insufficientScope(res: ServerResponse, scope: string, scheme: 'bearer' | 'dpop') {
    const description = `this operation needs the ${scope} scope`;
    sendJson(
      res,
      403,
      { error: 'insufficient_scope', error_description: description, scope },
      {
        'WWW-Authenticate':
          scheme === 'dpop'
            ? dpopChallenge('insufficient_scope', description, ctx.dpop.algs, `, scope=${quote(scope)}`)
            : `Bearer error="insufficient_scope", error_description=${quote(description)}, scope=${quote(scope)}, resource_metadata=${quote(resourceMetadataUrl)}`,
      },
    );
  }

  function forbiddenAnonymous(res: ServerResponse, scope: string) {
    // Anonymous callers are never challenged (the interface is explicit about it), so this
    // 403 deliberately has no WWW-Authenticate header.
    sendJson(res, 403, { error: 'forbidden', error_description: `anonymous requests cannot do this; it needs an access token with the ${scope} scope`, scope });
  }

  async function jsonBody(req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
    const raw = await readApiBody(req);
    if (!isJson(req)) {
      sendJson(res, 415, { error: 'invalid_request', error_description: 'send a JSON body (Content-Type: application/json)' });
      return undefined;
    }
    try {
      const parsed = JSON.parse(raw.toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
    } catch {
      /* reported below */
    }
    sendJson(res, 400, { error: 'invalid_request', error_description: 'the body must be a JSON object' });
    return undefined;
  }

  const prm = () => ({
    resource: audience,
    authorization_servers: [issuer],
    scopes_supported: [...DATA_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'School API (sandbox)',
    ...ctx.dpopMetadata,
  });

  // Returns false when the path is not served by the resource server.
  return async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const method = req.method ?? 'GET';
    const path = url.pathname;

    if (path === '/.well-known/oauth-protected-resource') {
      if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(res, 'GET');
      sendJson(res, 200, prm());
      return true;
    }
    if (path === '/openapi.json') {
      if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(res, 'GET');
      // Cacheable as a description is: an ETag to revalidate with, fresh for five minutes.
      const text = JSON.stringify(buildOpenApi(baseUrl, ctx.oauthUrls, ctx.description), null, 2);
      const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
      const cache = { ETag: etag, 'Cache-Control': 'max-age=300' };
      const revalidated = req.headers['if-none-match'] === etag;
      emit('openapi', { method, status: revalidated ? 304 : 200, conditional: req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined });
      if (revalidated) res.writeHead(304, cache).end();
      else res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', ...cache }).end(method === 'HEAD' ? undefined : text);
      return true;
    }

    if (path.startsWith('/api/testing/')) return handleTesting(req, res, url);

    const courseMatch = /^\/api\/courses\/([^/]+)$/.exec(path);
    const syntheticMatch = synthetic?.exec(path);
    let allowed: string[];
    if (path === '/api/courses' || path === '/api/students') allowed = ['GET', 'POST'];
    else if (path === '/api/lessons') allowed = ['GET'];
    else if (courseMatch) allowed = ['GET', ...platform.methodsAt(path)];
    else if (path === '/api/echo') allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    else if (syntheticMatch) allowed = [syntheticScope(Number(syntheticMatch[2])).method];
    else allowed = platform.methodsAt(path);
    if (!allowed.length) return false;
    if (!allowed.includes(method)) return methodNotAllowed(res, allowed.join(', '));

    const access = await checkAccess(req, provider, audience, ctx.dpop, `${baseUrl}${path}`);
    const auth = access.result;
    const authenticated = auth.state === 'valid';
    const token = auth.state === 'valid' ? auth.token : undefined;
    res.on('finish', () =>
      emit('api', {
        method,
        path,
        status: res.statusCode,
        authenticated,
        authorization_header: req.headers.authorization !== undefined,
        ...(token ? { client_id: token.clientId, sub: token.sub } : {}),
        scheme: access.scheme,
        dpop: access.dpop,
      }),
    );
    if (access.nonce) res.setHeader('DPoP-Nonce', access.nonce);

    if (auth.state === 'invalid') {
      await readApiBody(req).catch(() => undefined);
      invalidToken(res, auth.description);
      return true;
    }
    if (auth.state === 'dpop_refused') {
      await readApiBody(req).catch(() => undefined);
      sendDpopRefusal(res, auth, ctx.dpop.algs);
      return true;
    }

    // Scope rule shared by every data operation: anonymous reads are served, anonymous
    // writes refused without a challenge, tokens must carry the operation's scope.
    const guard = (scope: string, anonymousAllowed: boolean): boolean => {
      if (!token) {
        if (anonymousAllowed) return true;
        forbiddenAnonymous(res, scope);
        return false;
      }
      if (!token.scopes.has(scope)) {
        insufficientScope(res, scope, access.scheme === 'dpop' ? 'dpop' : 'bearer');
        return false;
      }
      return true;
    };

    if (path === '/api/echo') {
      const raw = await readApiBody(req);
      let body: unknown = null;
      if (raw.length) {
        const text = raw.toString('utf8');
        body = text;
        if (isJson(req)) {
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
        }
      }
      const query: Record<string, string | string[]> = {};
      for (const key of new Set(url.searchParams.keys())) {
        const all = url.searchParams.getAll(key);
        query[key] = all.length === 1 ? all[0]! : all;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'authorization'));
      sendJson(res, 200, {
        method,
        path,
        query,
        headers,
        authorization: req.headers.authorization !== undefined ? 'present' : 'absent',
        body,
        authenticated,
        scopes: token ? [...token.scopes] : [],
        ...(token ? { client_id: token.clientId, sub: token.sub } : {}),
      });
      return true;
    }

    if (path === '/api/courses' && method === 'GET') {
      if (!guard('courses:read', true)) return true;
      sendJson(res, 200, { anonymous: !token, courses: token ? courses : courses.filter((c) => c.visibility === 'public') });
      return true;
    }
    if (courseMatch && method === 'GET') {
      if (!guard('courses:read', true)) return true;
      const id = decodeURIComponent(courseMatch[1]!);
      const course = courses.find((c) => c.id === id && (token || c.visibility === 'public'));
      if (!course) sendJson(res, 404, { error: 'not_found', error_description: `no course ${id}` });
      else sendJson(res, 200, { anonymous: !token, ...course });
      return true;
    }
    if (path === '/api/courses' && method === 'POST') {
      if (!guard('courses:write', false)) {
        await readApiBody(req).catch(() => undefined);
        return true;
      }
      const input = await jsonBody(req, res);
      if (!input) return true;
      const violation = platform.violation('NewCourse', input);
      if (violation) {
        sendJson(res, 400, { error: 'invalid_request', error_description: `${violation.field}: ${violation.message}`, field: violation.field });
        return true;
      }
      if (input.seats !== undefined && !(Number.isInteger(input.seats) && (input.seats as number) >= 1)) {
        sendJson(res, 400, { error: 'invalid_request', error_description: 'seats must be a whole number from 1' });
        return true;
      }
      const course: Course = {
        visibility: 'private',
        ...input,
        title: input.title as string,
        id: `c-${randomUUID().slice(0, 8)}`,
        created_by: token!.sub,
      };
      courses.push(course);
      sendJson(res, 201, course, { Location: `${baseUrl}/api/courses/${course.id}` });
      return true;
    }
    if (path === '/api/lessons') {
      if (!guard('courses:read', true)) return true;
      // Paginated with RFC 8288 Link headers (first, prev, next, last), in the manner of GitHub's API.
      const page = Math.max(1, Number(url.searchParams.get('page')) || 1);
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page')) || 3));
      const pages = Math.max(1, Math.ceil(LESSONS.length / perPage));
      const pageUrl = (n: number) => `${baseUrl}/api/lessons?page=${n}&per_page=${perPage}`;
      const links = [`<${pageUrl(1)}>; rel="first"`, `<${pageUrl(pages)}>; rel="last"`];
      if (page > 1) links.push(`<${pageUrl(page - 1)}>; rel="prev"`);
      if (page < pages) links.push(`<${pageUrl(page + 1)}>; rel="next"`);
      sendJson(res, 200, { page, lessons: LESSONS.slice((page - 1) * perPage, page * perPage) }, { Link: links.join(', ') });
      return true;
    }
    if (path === '/api/students' && method === 'GET') {
      if (!guard('students:read', true)) return true;
      sendJson(res, 200, { anonymous: !token, students: token ? students : [] });
      return true;
    }
    if (path === '/api/students' && method === 'POST') {
      if (!guard('students:write', false)) {
        await readApiBody(req).catch(() => undefined);
        return true;
      }
      const input = await jsonBody(req, res);
      if (!input) return true;
      const violation = platform.violation('NewStudent', input);
      if (violation) {
        sendJson(res, 400, { error: 'invalid_request', error_description: `${violation.field}: ${violation.message}`, field: violation.field });
        return true;
      }
      const student: Student = { ...input, name: input.name as string, id: `s-${randomUUID().slice(0, 8)}` };
      students.push(student);
      sendJson(res, 201, student, { Location: `${baseUrl}/api/students/${student.id}` });
      return true;
    }
    if (syntheticMatch) {
      const n = Number(syntheticMatch[2]);
      const { scope } = syntheticScope(n);
      if (method === 'GET') {
        if (!guard(scope, true)) return true;
        sendJson(res, 200, { operation: n, anonymous: !token });
        return true;
      }
      if (!guard(scope, false)) {
        await readApiBody(req).catch(() => undefined);
        return true;
      }
      const input = await jsonBody(req, res);
      if (!input) return true;
      const violation = firstViolation(input, SYNTHETIC_SCHEMAS.NewSyntheticRecord!, { components: { schemas: SYNTHETIC_SCHEMAS } });
      if (violation) {
        sendJson(res, 400, { error: 'invalid_request', error_description: `${violation.field}: ${violation.message}`, field: violation.field });
        return true;
      }
      sendJson(res, 201, { operation: n, ...input });
      return true;
    }
    const call: PlatformCall = {
      method,
      url,
      token: token ? { sub: token.sub } : undefined,
      guard,
      readJson: () => jsonBody(req, res),
      discardBody: async () => {
        await readApiBody(req).catch(() => undefined);
      },
      send: (status, body, headers) => sendJson(res, status, body, headers),
      sendEmpty: (status) => {
        res.statusCode = status;
        res.setHeader('Cache-Control', 'no-store');
        res.end();
      },
    };
    return platform.serve(call);
  };
}

const LESSONS = Array.from({ length: 8 }, (_, i) => ({ id: `l-${i + 1}`, title: `Lesson ${i + 1}`, course: i < 4 ? 'c-101' : 'c-102' }));

/** Per-key attempt counts of /api/testing/flaky: each test uses its own key, so tests run in parallel. */
const flakyAttempts = new Map<string, number>();

// Routes for testing clients against awkward servers; they ignore tokens.
//   /api/testing/flaky?key=K&times=N&status=503|429&retry_after=S|date:S  fails N times per key, then 200
//   /api/testing/slow?seconds=S  sends headers at once, then trickles the body over S seconds
//   /api/testing/page?status=N&type=T&body=TEXT&next=URL|self  any answer, with a Link rel="next" when asked
async function handleTesting(req: IncomingMessage, res: ServerResponse, url: URL): Promise<true> {
  await readApiBody(req).catch(() => undefined);
  const q = url.searchParams;
  if (url.pathname === '/api/testing/flaky') {
    const key = q.get('key') ?? 'default';
    const attempt = (flakyAttempts.get(key) ?? 0) + 1;
    flakyAttempts.set(key, attempt);
    const times = Number(q.get('times') ?? 2);
    if (attempt > times) {
      sendJson(res, 200, { ok: true, method: req.method, attempts: attempt });
      return true;
    }
    const status = Number(q.get('status') ?? 503);
    const retryAfter = q.get('retry_after');
    const headers: Record<string, string> = {};
    if (retryAfter?.startsWith('date:')) headers['Retry-After'] = new Date(Date.now() + Number(retryAfter.slice(5)) * 1000).toUTCString();
    else if (retryAfter) headers['Retry-After'] = retryAfter;
    sendJson(res, status, { error: status === 429 ? 'rate_limited' : 'unavailable', attempt }, headers);
    return true;
  }
  if (url.pathname === '/api/testing/slow') {
    const seconds = Number(q.get('seconds') ?? 10);
    const body = JSON.stringify({ slow: true, padding: '.'.repeat(Math.max(0, seconds * 2)) });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
    const chunk = Math.ceil(body.length / Math.max(1, seconds * 2));
    let sent = 0;
    const timer = setInterval(() => {
      res.write(body.slice(sent, sent + chunk));
      sent += chunk;
      if (sent >= body.length) {
        clearInterval(timer);
        res.end();
      }
    }, 500);
    res.on('close', () => clearInterval(timer));
    return true;
  }
  if (url.pathname === '/api/testing/page') {
    const next = q.get('next');
    const headers: Record<string, string> = { 'Content-Type': q.get('type') ?? 'application/json' };
    if (next) headers.Link = `<${next === 'self' ? url.toString() : next}>; rel="next"`;
    res.writeHead(Number(q.get('status') ?? 200), headers);
    res.end(q.get('body') ?? '{"page":true}');
    return true;
  }
  sendJson(res, 404, { error: 'not_found', error_description: `no testing route ${url.pathname}` });
  return true;
}

function methodNotAllowed(res: ServerResponse, allow: string): true {
  sendJson(res, 405, { error: 'method_not_allowed', error_description: `allowed: ${allow}` }, { Allow: allow });
  return true;
}

export interface UserinfoContext {
  issuer: string;
  resource: string;
  provider: Any;
  users: SandboxUser[];
  emit: Emit;
  dpop: ResourceDpop;
  /** The endpoint's URL as clients address it (the htu of their proofs). */
  url: string;
}

// OpenID Connect UserInfo, served here because oidc-provider's own endpoint refuses access
// tokens bound to a resource. Claims follow the granted scopes.
export async function handleUserinfo(req: IncomingMessage, res: ServerResponse, ctx: UserinfoContext): Promise<void> {
  const method = req.method ?? 'GET';
  const dpop = await proofThumbprint(dpopHeaderOf(req));
  if (method !== 'GET' && method !== 'POST') {
    methodNotAllowed(res, 'GET, POST');
    ctx.emit('userinfo', { status: 405, scheme: null, dpop });
    return;
  }
  await readApiBody(req).catch(() => undefined);
  const access = await checkAccess(req, ctx.provider, ctx.resource, ctx.dpop, ctx.url);
  const finish = (status: number, extra: Record<string, unknown> = {}) => ctx.emit('userinfo', { status, ...extra, scheme: access.scheme, dpop: access.dpop });
  if (access.nonce) res.setHeader('DPoP-Nonce', access.nonce);
  const bound = access.scheme === 'dpop';
  const challenge = (error: string, description: string, extra = '') =>
    bound ? dpopChallenge(error, description, ctx.dpop.algs, extra) : `Bearer realm=${quote(ctx.issuer)}, error=${quote(error)}, error_description=${quote(description)}${extra}`;

  const auth = access.result;
  if (auth.state === 'dpop_refused') {
    sendDpopRefusal(res, auth, ctx.dpop.algs);
    finish(401, { error: auth.error });
    return;
  }
  if (auth.state !== 'valid') {
    const description = auth.state === 'absent' ? 'no access token provided' : auth.description;
    sendJson(res, 401, { error: 'invalid_token', error_description: description }, { 'WWW-Authenticate': challenge('invalid_token', description) });
    finish(401);
    return;
  }
  const { token } = auth;
  if (!token.scopes.has('openid')) {
    const description = "access token missing 'openid' scope";
    sendJson(
      res,
      403,
      { error: 'insufficient_scope', error_description: description, scope: 'openid' },
      {
        'WWW-Authenticate': challenge('insufficient_scope', description, ', scope="openid"'),
      },
    );
    finish(403, { client_id: token.clientId });
    return;
  }
  const user = ctx.users.find((u) => u.sub === token.sub);
  if (!user) {
    sendJson(res, 401, { error: 'invalid_token', error_description: 'the account no longer exists' }, { 'WWW-Authenticate': challenge('invalid_token', 'the account no longer exists') });
    finish(401);
    return;
  }
  const all = userClaims(user);
  const claims: Record<string, unknown> = { sub: all.sub };
  if (token.scopes.has('profile')) {
    for (const k of ['name', 'given_name', 'family_name', 'preferred_username']) if (all[k] !== undefined) claims[k] = all[k];
  }
  if (token.scopes.has('email')) {
    claims.email = all.email;
    claims.email_verified = all.email_verified;
  }
  sendJson(res, 200, claims);
  finish(200, { client_id: token.clientId });
}
