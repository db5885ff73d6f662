import { setTimeout as sleep } from 'node:timers/promises';
import type { Deps } from '../../deps.js';
import { CliError } from '../../errors.js';
import type { HttpResponse } from '../../http/client.js';
import { type Deadline, startDeadline } from './deadline.js';
import type { JqFilter } from './jq.js';
import { terminalJson, writeResponse } from './output.js';
import { PageGatherer } from './paginate.js';
import { retryDecision } from './retry.js';
import { type ChallengeOutcome, readChallengeHeader } from '../../oauth/challenge.js';
import type { ApiClient } from '../../session/api-client.js';
import type { Session } from '../../session/session.js';
import { insufficientScopeError, tokenRejected } from '../../session/step-up.js';

export interface CallPlan {
  method: string;
  url: URL;
  /** The path and query exactly as sent, when they are not the URL parser's (see http/request-url.ts). */
  path?: string;
  headers: Record<string, string>;
  body?: Buffer;
  include: boolean;
  /** Seconds each request (every page, every retry) has to complete, body included. */
  timeoutSeconds: number;
  /** Retries allowed on 429/503 (see retriesAllowed). */
  maxRetries: number;
  paginate: boolean;
  slurp: boolean;
  jq?: JqFilter;
  /** Prints a 2xx answer another way (`school api --format table`): the body's text, and whether it is the --slurp array of pages. */
  render?: (body: string, slurped: boolean) => string;
}

interface Exchange {
  res: HttpResponse;
  outcome: ChallengeOutcome;
}

/**
 * Sends the request (and, with --paginate, every next page) through the API client, retrying what
 * the server asks to retry, and prints the answers. A non-2xx answer still has its body printed,
 * then fails.
 */
export async function performCall(deps: Deps, plan: CallPlan, client: ApiClient): Promise<void> {
  const sendOnce = async (url: URL, path: string | undefined, deadline: Deadline): Promise<HttpResponse> => {
    try {
      return await client.send({
        method: plan.method,
        url,
        path,
        headers: plan.headers,
        body: plan.body,
        signal: deadline.signal,
        // The client's idle timeout must not pre-empt the deadline with another message.
        timeoutMs: plan.timeoutSeconds * 1000 + 1000,
      });
    } catch (err) {
      if (deadline.expired()) throw deadline.error();
      throw err;
    }
  };

  // One deadline per request (each page of a listing): its retries and their waits count against it.
  const exchange = async (url: URL, path: string | undefined): Promise<Exchange> => {
    const deadline = startDeadline(plan.timeoutSeconds, deps.signal);
    try {
      return await exchangeWithin(url, path, deadline);
    } finally {
      deadline.dispose();
    }
  };

  const exchangeWithin = async (url: URL, path: string | undefined, deadline: Deadline): Promise<Exchange> => {
    for (let attempt = 1; ; attempt++) {
      const res = await sendOnce(url, path, deadline);
      const outcome = await readChallengeHeader(res.status, res.headers['www-authenticate']);
      const retry = retryDecision(res.status, res.headers['retry-after'], attempt, plan.maxRetries, deps.clock.now());
      if (!retry) return { res, outcome };
      // A wait that would outlast the deadline is not worth starting: fail now, saying why.
      if (retry.delayMs >= deadline.remainingMs()) {
        throw new CliError(`${deadline.error().message.replace(/\.$/, '')}: the server answered HTTP ${res.status} and asked to retry in ${Math.ceil(retry.delayMs / 1000)} s.`, { code: 'timeout' });
      }
      deps.io.err.write(`${retry.notice}\n`);
      await sleep(retry.delayMs, undefined, { signal: deadline.signal }).catch((err: unknown) => {
        throw deadline.expired() ? deadline.error() : err;
      });
    }
  };

  const walk = client.pages({ url: plan.url, path: plan.path ?? `${plan.url.pathname}${plan.url.search}` });
  const slurped = new PageGatherer();
  let url = plan.url;
  let path = plan.path;
  let previousEndedWithNewline = true;
  for (;;) {
    const page = walk.page;
    const { res, outcome } = await exchange(url, path);
    const label = plan.paginate ? `page ${page}` : undefined;
    const ok = res.status >= 200 && res.status < 300;
    if (ok && plan.render && !plan.slurp) {
      if (plan.include) await writeResponse(deps.io, { ...res, body: Buffer.alloc(0) }, true);
      deps.io.out.write(plan.render(res.body.toString('utf8'), false));
    } else if (!ok || (!plan.slurp && !plan.jq)) {
      // Pages piped one after another stay apart: a newline between them when a page lacks one.
      if (plan.paginate && page > 1 && !previousEndedWithNewline && !deps.io.outIsTTY) deps.io.out.write('\n');
      await writeResponse(deps.io, res, plan.include);
      previousEndedWithNewline = res.body.length === 0 || res.body[res.body.length - 1] === 0x0a;
    } else if (plan.slurp) {
      slurped.add(res.body, page);
    } else if (plan.jq) {
      if (plan.include) await writeResponse(deps.io, { ...res, body: Buffer.alloc(0) }, true);
      deps.io.out.write(plan.jq.apply(res.body.toString('utf8'), label ? `The ${label}` : 'The response'));
    }
    if (!ok) throw httpFailure(res, outcome, client.session, plan.method, (path ?? url.pathname).replace(/\?.*$/s, ''), label);

    const next = plan.paginate ? walk.next(res) : undefined;
    if (!next) break;
    url = next;
    path = undefined;
  }

  if (plan.slurp) {
    const all = slurped.joined();
    if (plan.render) deps.io.out.write(plan.render(all, true));
    else if (plan.jq) deps.io.out.write(plan.jq.apply(all, 'The pages'));
    else if (deps.io.outIsTTY) deps.io.out.write(`${(await terminalJson(deps.io))(JSON.parse(all))}\n`);
    else deps.io.out.write(`${all}\n`);
  }
}

/** The error for a non-2xx answer: exit 4 for a rejected token or a missing scope, else exit 1. */
function httpFailure(res: HttpResponse, outcome: ChallengeOutcome, session: Session | undefined, method: string, path: string, page?: string): CliError {
  const summary = `${page ? `${page}: ` : ''}HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''} (${method} ${path})`;
  if (session && res.status === 401) {
    return tokenRejected(`${summary}: the server rejected the token${outcome.error ? ` (${outcome.error})` : ''}.`, session);
  }
  if (outcome.insufficientScope) return insufficientScopeError(summary, session, outcome.insufficientScope);
  return new CliError(summary, { code: 'http_error' });
}
