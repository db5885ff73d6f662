/**
 * How `school mcp` has the person sign in when a call finds a login or a scope missing: through the
 * host where it can send the person to a URL (URL-mode elicitation, on a revision that has it), else
 * by handing the URL to the model in the result. Either way the sign-in's listener runs detached,
 * as `login --no-wait`'s, and outlives the server: a host that stops it, declines or never answers
 * leaves a URL the person can still open, and the next call (or run) finds the login done.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthProblem, LoginState, McpEngine, Outcome } from './engine.js';
import { type SignInLink, safeText } from './results.js';

/** How often a host waiting on a login hears that it is still going. */
const PROGRESS_EVERY_SECONDS = 2;

/** What a tool call's handler gets from the SDK that a sign-in uses: its cancellation and progress. */
export type CallContext = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; message?: string } }) => Promise<void>;
};

/** A login or scope missing, with the sign-in the person is to open when one was started or found pending. */
export type LinkedRefusal = { ok: false; problem: AuthProblem; login?: SignInLink };

/**
 * How a login through the host ended: done; not done, with the sign-in still waiting (declined,
 * unanswered, the server stopping) or with why it failed; or none could be started.
 */
type HostLogin = { status: 'completed' } | { status: 'not_completed'; link?: SignInLink; earlier?: string } | { status: 'unavailable' };

export interface SignInSetting {
  server: Server;
  engine: McpEngine;
  /** A notice said once however often it comes. */
  notice(text: string): void;
  /** A notice said each time. */
  report(text: string): void;
  /** Whether the server is closing. */
  closed(): boolean;
  /** Whether the host takes URL-mode elicitation on the revision both speak. */
  urlElicitation(): boolean;
}

/** The sign-in flows of one server: `withLogin` runs a step, signing in where it finds a login or scope missing. */
export function signInFlows(setting: SignInSetting) {
  const { server, engine, notice, report, closed, urlElicitation } = setting;

  // One login at a time: a second call while one is pending waits for the same one.
  let loginInFlight: Promise<HostLogin> | undefined;

  /**
   * A login through the host, which sends the person to the URL. Whatever happens here, the
   * login's listener lives on (detached, until its timeout): a declined or unanswered request, a
   * host that stops the server meanwhile, leave a URL the person can still open.
   */
  async function loginThroughHost(problem: AuthProblem, extra: CallContext): Promise<HostLogin> {
    const progressToken = extra._meta?.progressToken;
    const progress = async (step: number, message: string) => {
      if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: step, message } }).catch(() => undefined);
    };
    loginInFlight ??= (async (): Promise<HostLogin> => {
      let link: SignInLink;
      try {
        const signIn = await engine.startLogin(problem.kind === 'insufficient_scope' ? problem.scopes : undefined);
        link = { url: signIn.url, expiresAt: signIn.expiresAt, started: signIn.started };
      } catch (err) {
        notice(`Could not start the login: ${safeText(engine.describeError(err))}`);
        return { status: 'unavailable' };
      }
      const elicitationId = randomUUID();
      try {
        const answer = await server.elicitInput(
          {
            mode: 'url',
            elicitationId,
            url: link.url,
            message: `${problem.message} Sign in to the school in your browser to continue${problem.kind === 'insufficient_scope' ? ' and approve the added access' : ''}.`,
          },
          { signal: extra.signal, timeout: 10 * 60_000 },
        );
        if (answer.action !== 'accept') return { status: 'not_completed', link };
      } catch {
        // The host failed the request or never answered it: the URL goes in the result instead.
        return { status: 'not_completed', link };
      }
      for (let step = 1; ; step++) {
        await progress(step, 'Waiting for the sign-in in the browser.');
        const wait = await engine.waitForLogin(PROGRESS_EVERY_SECONDS);
        if (wait.status === 'completed') {
          await server
            .createElicitationCompletionNotifier(elicitationId)()
            .catch(() => undefined);
          return { status: 'completed' };
        }
        if (wait.status === 'failed') {
          report(`The login did not complete: ${safeText(engine.redact(wait.message))}`);
          return { status: 'not_completed', earlier: engine.redact(wait.message) };
        }
        if (extra.signal.aborted || closed()) return { status: 'not_completed', link };
      }
    })().finally(() => {
      loginInFlight = undefined;
    });
    return loginInFlight;
  }

  // One sign-in link at a time: calls that find a login missing take turns to look at it or start it.
  let linkTurn: Promise<unknown> = Promise.resolve();
  function inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = linkTurn.then(work, work);
    linkTurn = run.catch(() => undefined);
    return run;
  }

  /**
   * For a host that cannot open a URL itself: the login is started all the same (or the one
   * pending found), and the problem carries its URL for the person; the next call finds it done.
   */
  function loginThroughLink<T>(first: AuthProblem, step: () => Promise<Outcome<T>>, failed?: string): Promise<Outcome<T> | LinkedRefusal> {
    return inTurn(async () => {
      let problem = first;
      let earlier = failed;
      const state = await engine.loginState().catch((): LoginState => ({ status: 'none' }));
      if (state.status === 'completed') {
        const again = await step();
        if (again.ok || !again.problem.canLogIn) return again;
        problem = again.problem;
      } else if (state.status === 'pending') {
        // Never a second listener while one waits: the same URL again.
        return { ok: false, problem, login: { url: state.url, expiresAt: state.expiresAt, started: false } };
      } else if (state.status === 'failed') earlier = state.message;
      try {
        // Another process may have started one meanwhile: then it is that one's URL, still waiting.
        const signIn = await engine.startLogin(problem.kind === 'insufficient_scope' ? problem.scopes : undefined);
        return { ok: false, problem, login: { url: signIn.url, expiresAt: signIn.expiresAt, started: signIn.started, earlier } };
      } catch (err) {
        notice(`Could not start the login: ${safeText(engine.describeError(err))}`);
        return { ok: false, problem };
      }
    });
  }

  /**
   * Runs an authenticated step; where a login or scope is missing, logs in: through the host where
   * it can send the person to a URL, else by handing the URL to the model for the person.
   */
  async function withLogin<T>(extra: CallContext, step: () => Promise<Outcome<T>>): Promise<Outcome<T> | LinkedRefusal> {
    const first = await step();
    if (first.ok || !first.problem.canLogIn) return first;
    if (!urlElicitation()) return loginThroughLink(first.problem, step);
    const host = await loginThroughHost(first.problem, extra);
    if (host.status === 'completed') return step();
    if (host.status === 'unavailable') return first;
    // Declined, failed or unanswered: the result carries the URL, as for a host without elicitation.
    if (host.link) return { ok: false, problem: first.problem, login: host.link };
    return loginThroughLink(first.problem, step, host.earlier);
  }

  return { withLogin };
}
