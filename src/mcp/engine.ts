/**
 * Everything `school mcp` needs of the engine, behind one small interface: the profile's
 * session, authenticated requests, the cached API description, the login hints and a login
 * started in the background. The rest of src/mcp/ sees only the `McpEngine` type (and is bundled
 * apart from the CLI, see scripts/build.mjs), so this file is the one place that knows how the
 * engine does these things.
 */
import { ACCEPT } from '../api/request-builder.js';
import { ABSOLUTE_URL, underBase } from '../http/request-url.js';
import type { Deps } from '../deps.js';
import { CliError, ExitCode, errorReason } from '../errors.js';
import { waitForPendingLogin } from '../login/background.js';
import { type SignIn, joinOrStartSignIn } from '../login/two-step.js';
import { fromOAuthError } from '../oauth/oauth-errors.js';
import { ApiClient, pagesFromAnswers } from '../session/api-client.js';
import { problemMessage, readAnswer } from '../session/answer-problem.js';
import { cachedDescriptionDocument, loadApiDescription } from '../session/api-description.js';
import { descriptionCacheKey } from '../session/description-source.js';
import { lookUpIdentity } from '../session/identity.js';
import { serverFor } from '../session/server.js';
import { type Session, notLoggedIn, resolveSession } from '../session/session.js';
import { type TargetInputs, closestProfiles, explicitBaseUrl, resolveTarget, targetProfile } from '../session/target.js';
import { resolvePaths } from '../state/paths.js';
import { loginCommandText, placeholder } from '../util/login-command.js';
import { registerSecret, redactText } from '../util/redact.js';

export interface ApiRequest {
  method: string;
  /** The path and query, relative to the base URL (`/api/courses?page=2`), or an absolute URL on its origin (a next page). */
  target: string;
  /** Headers the request builder made (an operation's header and cookie parameters, Accept, Content-Type). */
  headers?: Record<string, string>;
  body?: Buffer;
  contentType?: string;
  signal?: AbortSignal;
}

export interface ApiAnswer {
  status: number;
  statusText: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
  /** The URL that answered, its path as sent. */
  url: string;
}

/** The pages of one listing: the next page's URL after an answer, or undefined at the end. */
interface PageCursor {
  /** Throws (`pagination_error`) on a next link to another origin, a page already fetched, or a listing that does not end. */
  next(answer: ApiAnswer): string | undefined;
}

/** Why a request could not be made, or was refused for want of a login or a scope. */
export interface AuthProblem {
  kind: 'not_logged_in' | 'session_refused' | 'token_rejected' | 'insufficient_scope';
  /** One or two sentences for the person. */
  message: string;
  /** The exact command that fixes it, when there is one. */
  command?: string;
  /** For insufficient_scope: the scopes the request needs. */
  scopes?: string[];
  /** Whether `startLogin` can fix it here (a stored profile, not a token from the environment). */
  canLogIn: boolean;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; problem: AuthProblem };

interface PendingLogin {
  url: string;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/**
 * What the server has to go on before any call: where it has too little (no school known, or a
 * --profile naming no profile yet), the sentence the person is to read, and whether a tool call
 * can still hand out a sign-in link (a base URL is known).
 */
export interface StartupNote {
  text: string;
  canSignIn: boolean;
}

type LoginWait = { status: 'completed' } | { status: 'pending' } | { status: 'failed'; message: string };

/** How the profile's login stands now: none pending, one waiting for the browser (its URL), or one that just ended. */
export type LoginState = { status: 'none' } | ({ status: 'pending' } & PendingLogin) | { status: 'completed' } | { status: 'failed'; message: string };

export interface McpEngine {
  readonly profile: string;
  /** Where every tool call is recorded (`audit.jsonl` in the state directory). */
  readonly auditFile: string;
  /** The base URL: the options', the environment's or the profile's; undefined when none is known. */
  baseUrl(): string | undefined;
  /** The copy `call --list` cached, if any; never a network request. */
  cachedApiDescription(): Promise<unknown>;
  /** A fresh copy of `/openapi.json` (fresh as the description cache keeps it), cached for the next run. */
  fetchApiDescription(signal?: AbortSignal): Promise<unknown>;
  /** An authenticated request to the API: a token due is renewed first; a 401 is refreshed and retried once. */
  send(req: ApiRequest): Promise<Outcome<ApiAnswer>>;
  /** A walk through the pages of a listing, from the answer to its first request on. */
  pages(): PageCursor;
  /** Who is logged in, and the scopes the session holds. */
  whoami(): Promise<Outcome<{ claims: Record<string, unknown>; scopes: string[] }>>;
  /**
   * A sign-in whose listener runs detached, as `login --no-wait`'s, and outlives this server: the
   * profile's one already waiting when it will do (started here or by another process), else a new
   * one; with scopes, the ones held plus these.
   */
  startLogin(addScopes?: string[]): Promise<SignIn>;
  /** Waits at most this long for the login started here to end. */
  waitForLogin(maxWaitSeconds: number): Promise<LoginWait>;
  /**
   * The profile's pending login as it stands, without waiting: one started here or by `school login
   * --no-wait` elsewhere, whose listener is still waiting (its URL), or how it ended (read once).
   */
  loginState(): Promise<LoginState>;
  /** Undefined when a call can work or hand out a sign-in link as things stand; else what the person is to do. */
  startupNote(): Promise<StartupNote | undefined>;
  /** A text with every secret the engine knows replaced. */
  redact(text: string): string;
  /** One sentence for an error the engine threw. */
  describeError(err: unknown): string;
}

const LOGIN_TIMEOUT_SECONDS = 300;
/** The largest answer read; a tool result holds at most 100 kB of it, the rest is counted. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 60_000;

export function createEngine(deps: Deps, inputs: TargetInputs): McpEngine {
  const profile = targetProfile(inputs);
  const paths = resolvePaths(deps.env);
  let session: Session | undefined;
  let clientSecret: string | undefined;
  /** The profile's base URL as the stores remember it, once read. */
  let knownBaseUrl: string | undefined;

  const remember = (s: Session | undefined) => {
    session = s;
    if (s) {
      registerSecret(s.accessToken);
      clientSecret = s.client?.clientSecret;
      registerSecret(clientSecret);
    }
    return s;
  };

  const fromEnv = () => Boolean(deps.env.SCHOOL_TOKEN || deps.env.SCHOOL_REFRESH_TOKEN);

  /** The session, read once and kept (the API client renews it when due); read again after a login or a refusal. */
  async function current(): Promise<Outcome<Session>> {
    if (session) return { ok: true, value: session };
    try {
      const target = await resolveTarget(deps.state, inputs);
      const s = remember(await resolveSession(deps, target));
      if (s) return { ok: true, value: s };
      knownBaseUrl ??= target.baseUrl;
      const note = await startupNote();
      // No school known: no login can be started, and no login command can be given whole.
      if (note && !note.canSignIn) return { ok: false, problem: { kind: 'not_logged_in', message: note.text, canLogIn: false } };
      const err = notLoggedIn(target);
      const message = note ? `There is no profile "${profile}" yet: a sign-in creates it.` : err.message;
      return { ok: false, problem: { kind: 'not_logged_in', message, command: err.command, canLogIn: !fromEnv() && baseUrl() !== undefined } };
    } catch (err) {
      return { ok: false, problem: authProblem(err) };
    }
  }

  /** A refused session or token as a problem for the person; anything else is thrown on. */
  function authProblem(err: unknown): AuthProblem {
    const e = fromOAuthError(err);
    if (e instanceof CliError && e.exitCode === ExitCode.auth) {
      session = undefined;
      return { kind: 'session_refused', message: redactText(e.message), command: e.command ?? (fromEnv() ? undefined : plainLogin()), canLogIn: !fromEnv() };
    }
    throw err;
  }

  /**
   * A keychain error whose cause the keychain could not tell (a known one, such as a host that
   * passed on no session bus variable, comes with its own hint): where the person looks further.
   */
  const keychainHint = (e: unknown): string | undefined => {
    if (!(e instanceof CliError) || e.code !== 'keychain_error') return undefined;
    return 'The person can find out why with `school doctor` in a terminal';
  };

  /** No server known for the profile: the two ways to name one, for this profile. */
  const noBaseUrl = () =>
    new CliError(`Profile "${profile}" has no login and no base URL here.`, {
      code: 'usage',
      hint: `Start \`school mcp${profile === 'default' ? '' : ` --profile ${profile}`}\` with --base-url <url>, or run \`${loginCommandText({ profile, baseUrl: placeholder('<url>') })}\` first.`,
    });

  /** Whether the profile was named (--profile, SCHOOL_PROFILE) rather than the default one. */
  const named = () => Boolean(inputs.profile || inputs.env.SCHOOL_PROFILE);

  /** ` (did you mean "wrk"?)` for a profile name close to stored ones, else nothing. */
  async function nearNames(): Promise<string> {
    const names = Object.keys(await deps.state.profiles().catch(() => ({})));
    const near = closestProfiles(profile, names).slice(0, 3);
    return near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : '';
  }

  /** Read each time it is needed: a login made meanwhile, here or in a terminal, is what the person was told to do. */
  async function startupNote(): Promise<StartupNote | undefined> {
    if (fromEnv() || (await deps.state.profile(profile).catch(() => undefined))) return undefined;
    const url = baseUrl() ?? (await deps.state.rememberedBaseUrl(profile).catch(() => undefined));
    const missingProfile = named() && !(await deps.state.rememberedBaseUrl(profile).catch(() => undefined));
    if (url) return missingProfile ? { text: `There is no profile "${profile}" yet: the first tool call hands out a sign-in link for ${url} that creates it.`, canSignIn: true } : undefined;
    const login = `\`${loginCommandText({ profile })} --base-url\` followed by the school's URL`;
    return {
      text:
        `${missingProfile ? `There is no profile "${profile}" yet${await nearNames()}` : 'Not logged in'}, and no school is known to this server (it was started without --base-url). ` +
        `The person should either add --base-url with their school's URL to this server's arguments in the host's settings and restart it (a tool call then hands out a sign-in link), or run ${login} in a terminal.`,
      canSignIn: false,
    };
  }

  const plainLogin = () => loginCommandText({ profile, baseUrl: baseUrl() });

  function baseUrl(): string | undefined {
    if (session) return session.baseUrl;
    try {
      return explicitBaseUrl(inputs) ?? knownBaseUrl;
    } catch {
      return undefined;
    }
  }

  /** The API client of a session: the one place its token is put in a request. */
  const clientOf = (s: Session) => new ApiClient(deps, { baseUrl: s.baseUrl, session: s });

  async function sendWith(client: ApiClient, req: ApiRequest): Promise<ApiAnswer> {
    // A next page comes as an absolute URL, checked against the origin; a planned path is sent as it was built.
    const target = ABSOLUTE_URL.test(req.target) ? { url: client.url(req.target), path: undefined } : underBase(client.baseUrl, req.target);
    const headers: Record<string, string> = { accept: ACCEPT, ...req.headers };
    if (req.contentType) headers['content-type'] = req.contentType;
    const res = await client.send({ method: req.method, url: target.url, path: target.path, headers, body: req.body, signal: req.signal, timeoutMs: REQUEST_TIMEOUT_MS, maxBytes: MAX_ANSWER_BYTES });
    return { status: res.status, statusText: res.statusText, headers: res.headers, body: res.body, url: res.url };
  }

  /** The profile and where the description of a base URL lies (--description, SCHOOL_API_DESCRIPTION, the profile's). */
  const describedAt = async (url: string) => {
    const found = await resolveTarget(deps.state, { ...inputs, baseUrl: url }).catch(() => undefined);
    return { profile, ...(found?.description ? { description: found.description } : {}) };
  };

  return {
    profile,
    auditFile: paths.auditFile,
    baseUrl,
    async cachedApiDescription() {
      const url = baseUrl() ?? (await deps.state.rememberedBaseUrl(profile).catch(() => undefined));
      knownBaseUrl ??= url;
      return url ? cachedDescriptionDocument(deps, descriptionCacheKey(url, (await describedAt(url)).description)).catch(() => undefined) : undefined;
    },
    async fetchApiDescription(signal) {
      const url = baseUrl() ?? (await deps.state.rememberedBaseUrl(profile));
      if (!url) throw noBaseUrl();
      knownBaseUrl ??= url;
      // The description cache `school api` keeps: fresh, revalidated (a 304 keeps it), or fetched anew.
      const loaded = await loadApiDescription(deps, url, { signal, target: await describedAt(url) });
      if (loaded.how === 'stale') throw new CliError(loaded.note ?? 'The API description could not be fetched.', { code: 'openapi_unavailable' });
      return loaded.document();
    },
    async send(req) {
      const found = await current();
      if (!found.ok) return found;
      const client = clientOf(found.value);
      let res: ApiAnswer;
      try {
        res = await sendWith(client, req);
      } catch (err) {
        return { ok: false, problem: authProblem(err) };
      } finally {
        // Renewed or refreshed by the client (under the lock the CLI shares): kept for the next call.
        if (client.session && session === found.value) remember(client.session);
      }
      const s = client.session ?? found.value;
      const problem = await readAnswer(deps, res, { session: s, login: { profile, baseUrl: s.baseUrl } });
      if (problem) {
        const env = s.source === 'env';
        return {
          ok: false,
          problem: {
            kind: problem.kind === 'insufficient_scope' ? 'insufficient_scope' : 'token_rejected',
            message: problemMessage(problem),
            ...(problem.command ? { command: problem.command } : {}),
            ...(problem.kind === 'insufficient_scope' ? { scopes: problem.scopes } : {}),
            canLogIn: !env && (problem.kind !== 'insufficient_scope' || problem.scopes.length > 0),
          },
        };
      }
      return { ok: true, value: { ...res, body: res.body } };
    },
    pages() {
      const walk = pagesFromAnswers();
      return { next: (answer) => walk.next(answer)?.href };
    },
    async whoami() {
      const found = await current();
      if (!found.ok) return found;
      try {
        const known = found.value.source === 'env' ? undefined : await deps.state.profile(profile);
        const server = await serverFor(deps, found.value.baseUrl, found.value.issuer, profile);
        const identity = await lookUpIdentity(deps, server, found.value, known, 'whoami');
        const latest = session ?? found.value;
        return { ok: true, value: { claims: identity.claims, scopes: (latest.scope ?? '').split(' ').filter(Boolean) } };
      } catch (err) {
        return { ok: false, problem: authProblem(err) };
      }
    },
    async startLogin(addScopes) {
      const url = baseUrl() ?? (await deps.state.rememberedBaseUrl(profile));
      if (!url) throw noBaseUrl();
      const stored = await deps.state.profile(profile);
      // A step-up asks for the scopes held plus the missing ones (`login --add-scope`); a first login, the default set.
      const request = {
        profile,
        baseUrl: url,
        addScopes: addScopes?.length ? addScopes : undefined,
        timeoutSeconds: LOGIN_TIMEOUT_SECONDS,
        confidential: false,
        insecureStorage: stored?.storage === 'file',
      };
      return joinOrStartSignIn(deps, request, { notify: () => undefined });
    },
    startupNote,
    async waitForLogin(maxWaitSeconds) {
      const result = await waitForPendingLogin(deps, profile, { maxWaitSeconds, pollMs: 100 });
      if (result.kind === 'still_pending') return { status: 'pending' };
      if (result.kind === 'none') return { status: 'failed', message: 'The login is no longer pending.' };
      if (result.outcome.status !== 'completed') return { status: 'failed', message: redactText(result.outcome.message) };
      session = undefined; // read again: the new login's tokens
      return { status: 'completed' };
    },
    async loginState() {
      const result = await waitForPendingLogin(deps, profile, { maxWaitSeconds: 0 });
      if (result.kind === 'none') return { status: 'none' };
      if (result.kind === 'still_pending') {
        const record = await deps.state.pendingLoginRecord(profile);
        // A pushed request the server no longer keeps: its URL would only show an error page.
        if (!record || (record.openBy !== undefined && record.openBy <= Math.floor(deps.clock.now() / 1000))) return { status: 'failed', message: 'The sign-in link was not opened in time.' };
        return { status: 'pending', url: record.authorizationUrl, expiresAt: record.expiresAt };
      }
      if (result.outcome.status !== 'completed') return { status: 'failed', message: redactText(result.outcome.message) };
      session = undefined; // read again: the new login's tokens
      return { status: 'completed' };
    },
    redact(text) {
      let out = redactText(text);
      for (const secret of [session?.accessToken, clientSecret]) if (secret && secret.length >= 8) out = out.split(secret).join('[REDACTED]');
      return out;
    },
    describeError(err) {
      const e = fromOAuthError(err);
      const hint = (e instanceof CliError ? e.hint : undefined) ?? keychainHint(e);
      return redactText(hint ? `${errorReason(e)}. ${hint.replace(/\.$/, '')}` : errorReason(e));
    },
  };
}
