import { AuthError, ExitCode } from '../errors.js';
import { readChallenges } from '../oauth/challenge-header.js';
import { readChallenge } from '../oauth/challenge.js';
import { loginCommandText, placeholder, runCommandHint } from '../util/login-command.js';
import { isPlainScope } from '../util/plain-name.js';
import type { SeenChallenge } from '../types/server.js';
import { type Deps, nowSeconds } from '../deps.js';
import type { Session } from './usable-session.js';

/**
 * The one reading of an API's answer for what it asks of the person: a login, a new token, or a
 * scope the token lacks, each with the `school login …` command that fixes it. `call` and `school
 * api` (through the runner), `school mcp` (its engine) and the library (`scopeNeeded`) present
 * what this returns; none of them reads a 401, a 403 or a WWW-Authenticate header itself.
 */

export interface AnswerProblem {
  /** `login_needed`: sent without a token and challenged; `token_rejected`: a 401 to a token; `insufficient_scope`: a 403 naming scopes. */
  kind: 'login_needed' | 'token_rejected' | 'insufficient_scope';
  /** The catalogue's code (src/error-codes.ts), whose exit status is 4. */
  code: 'auth_required' | 'token_rejected' | 'insufficient_scope';
  exitCode: typeof ExitCode.auth;
  /** Why, as the end of a sentence: `the server rejected the token (invalid_token)`. */
  reason: string;
  /** The plain scope names the answer asks for (none when it names none). */
  scopes: string[];
  /** The exact command that fixes it; none for a token from the environment, or a scope the server did not name. */
  command?: string;
  /** What to do, for a person: the command on its own line, or a sentence where there is no command. */
  hint: string;
  /** A 401's challenge, to be remembered for the login it names (rememberChallenge). */
  challenge?: SeenChallenge;
}

export interface AnswerContext {
  /** The session the request went with; none when it went without a token. */
  session?: Pick<Session, 'profile' | 'source'>;
  /**
   * Who would log in, and to which server (the known base URL), for the command; none when the
   * request went to another origin than the profile's, which is no school to log in to.
   */
  login?: { profile: string; baseUrl?: string };
}

/** An answer as each front-end holds it: the HTTP client's (lower-case names) or the platform's `Response`. */
export interface Answer {
  status: number;
  headers: Readonly<Record<string, string | undefined>> | Pick<Headers, 'get'>;
}

function challengeHeader({ headers }: Answer): string | undefined {
  if (typeof headers.get === 'function') return (headers as Pick<Headers, 'get'>).get('www-authenticate') ?? undefined;
  return (headers as Readonly<Record<string, string | undefined>>)['www-authenticate'];
}

const fromEnvironment = (context: AnswerContext) => context.session?.source === 'env';

/** What a 401's challenge says for the login it names: where the resource's metadata is, and the scope it asks for. */
function seenChallenge(outcome: ReturnType<typeof readChallenge>): SeenChallenge | undefined {
  const { resourceMetadata, scope = [] } = outcome;
  if (!resourceMetadata && !scope.length) return undefined;
  return { ...(resourceMetadata ? { resourceMetadata } : {}), ...(scope.length ? { scope } : {}) };
}

function loginCommand(context: AnswerContext, addScope: string[] = []): string {
  return loginCommandText({ profile: context.login?.profile ?? context.session?.profile, baseUrl: context.login?.baseUrl, addScope });
}

/**
 * The problem an answer states, or undefined when it states none this classifier knows (a 2xx, a
 * 404, a 401 without a challenge to a request without a token: a plain HTTP failure).
 */
export function classifyAnswer(answer: Answer, context: AnswerContext): AnswerProblem | undefined {
  if (answer.status !== 401 && answer.status !== 403) return undefined;
  const challenges = readChallenges(challengeHeader(answer));
  const outcome = readChallenge(answer.status, challenges as Parameters<typeof readChallenge>[1]);
  const env = fromEnvironment(context);
  if (answer.status === 401) {
    const challenge = seenChallenge(outcome);
    if (!context.session) {
      // No login, and the resource challenges the request: a login is what it takes.
      if (!outcome.challenged || !context.login) return undefined;
      const scopes = [...new Set(outcome.scope ?? [])];
      const command = loginCommand(context, scopes);
      return {
        kind: 'login_needed',
        code: 'auth_required',
        exitCode: ExitCode.auth,
        reason: `the server asks for a login${scopes.length ? ` with the scope ${scopes.join(' ')}` : ''}`,
        scopes,
        command,
        hint: command,
        ...(challenge ? { challenge } : {}),
      };
    }
    const command = env ? undefined : loginCommand(context);
    return {
      kind: 'token_rejected',
      code: 'token_rejected',
      exitCode: ExitCode.auth,
      reason: `the server rejected the token${outcome.error ? ` (${outcome.error})` : ''}`,
      scopes: [],
      ...(command ? { command } : {}),
      hint: command ?? 'Check the token in the environment.',
      ...(challenge ? { challenge } : {}),
    };
  }
  if (!outcome.insufficientScope) return undefined;
  return scopeProblem(outcome.insufficientScope, context);
}

/** A scope the token lacks (a 403 insufficient_scope, or an operation's declared scopes checked before sending). */
export function scopeProblem(needed: readonly string[], context: AnswerContext): AnswerProblem {
  const scopes = [...new Set(needed.filter(isPlainScope))];
  // A server that named none (or none safely) gets no command to copy.
  const what = scopes.length ? `the scope ${scopes.join(' ')}` : 'a scope the server did not name as a plain scope name';
  const env = fromEnvironment(context);
  // The profile remembers its server: adding a scope needs no --base-url.
  const profile = context.login?.profile ?? context.session?.profile;
  const command = !env && scopes.length ? loginCommandText({ profile, addScope: scopes }) : undefined;
  const hint = env
    ? `Use a token that has ${what}.`
    : (command ?? `Find the scope in \`school call --list\`, then add it:\n${loginCommandText({ profile, options: [['--add-scope', placeholder('<scope>')]] })}`);
  return {
    kind: 'insufficient_scope',
    code: 'insufficient_scope',
    exitCode: ExitCode.auth,
    reason: `${context.session ? 'the token lacks' : 'this request needs'} ${what}`,
    scopes,
    ...(command ? { command } : {}),
    hint,
  };
}

/** The problem as the error a command exits with (4), after the answer's own summary (`HTTP 401 (GET /api/x)`). */
export function problemError(summary: string, problem: AnswerProblem): AuthError {
  return new AuthError(`${summary}: ${problem.reason}.`, {
    code: problem.code,
    ...(problem.scopes.length ? { scope: problem.scopes.join(' ') } : {}),
    ...(problem.command && problem.hint === problem.command ? runCommandHint(problem.command) : { hint: problem.hint }),
  });
}

/** The problem as one or two sentences standing alone (a tool result, a library error). */
export function problemMessage(problem: AnswerProblem): string {
  return `${problem.reason.charAt(0).toUpperCase()}${problem.reason.slice(1)}.`;
}

/**
 * Remembers a 401's challenge for the base URL the request was for: the login it names then
 * fetches the metadata the challenge named (checked there, RFC 9728 §3.3) and adds its scope.
 * Losing it costs only that login's way to the metadata, so a failed write is no error.
 */
async function rememberChallenge(deps: Pick<Deps, 'state' | 'clock'>, baseUrl: string, challenge: SeenChallenge): Promise<void> {
  await deps.state.saveSeenChallenge(baseUrl, challenge, nowSeconds(deps)).catch(() => undefined);
}

/** Classifies an answer and remembers its challenge for the base URL the login would be for: what every front-end calls. */
export async function readAnswer(deps: Pick<Deps, 'state' | 'clock'>, answer: Answer, context: AnswerContext): Promise<AnswerProblem | undefined> {
  const problem = classifyAnswer(answer, context);
  const baseUrl = context.login?.baseUrl;
  if (problem?.challenge && baseUrl) await rememberChallenge(deps, baseUrl, problem.challenge);
  return problem;
}
