import { setTimeout as sleep } from 'node:timers/promises';
import type { Deps } from '../deps.js';
import { CliError } from '../errors.js';
import type { HttpResponse } from '../http/client.js';
import { type Deadline, startDeadline } from './deadline.js';
import type { JqFilter } from './jq.js';
import { terminalJson, writeResponse } from './output.js';
import { PageGatherer } from './paginate.js';
import { retryDecision } from './retry.js';
import type { ApiClient } from '../session/api-client.js';
import { problemError, readAnswer } from '../session/answer-problem.js';

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
  /**
   * Who logs in, and to which server, for the `school login …` a refused request calls for (the
   * classifier's problem); absent for a URL on another origin than the profile's, no school to log in to.
   */
  loginTarget?: { profile: string; baseUrl?: string };
  /** Prints a 2xx answer another way (`school api --format table`): the body's text, and whether it is the --slurp array of pages. */
  render?: (body: string, slurped: boolean) => string;
}

/**
 * The one runner of a request for the command line (`call`, `school api`): sends it (and, with
 * --paginate, every next page, up to the API client's one page cap, MAX_PAGES) through the API
 * client within a deadline per request, retrying what the server asks to retry, and prints the
 * answers. A non-2xx answer still has its body printed, then fails with the classifier's problem
 * (session/answer-problem.ts) or a plain HTTP failure.
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
  const exchange = async (url: URL, path: string | undefined): Promise<HttpResponse> => {
    const deadline = startDeadline(plan.timeoutSeconds, deps.signal);
    try {
      return await exchangeWithin(url, path, deadline);
    } finally {
      deadline.dispose();
    }
  };

  const exchangeWithin = async (url: URL, path: string | undefined, deadline: Deadline): Promise<HttpResponse> => {
    for (let attempt = 1; ; attempt++) {
      const res = await sendOnce(url, path, deadline);
      const retry = retryDecision(res.status, res.headers['retry-after'], attempt, plan.maxRetries, deps.clock.now());
      if (!retry) return res;
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
    const res = await exchange(url, path);
    const label = plan.paginate ? `page ${page}` : undefined;
    const ok = res.status >= 200 && res.status < 300;
    if (ok && plan.render && !plan.slurp) {
      if (plan.include) await writeResponse(deps.io, { ...res, body: Buffer.alloc(0) }, true);
      deps.io.out.write(plan.render(res.body.toString('utf8'), false));
    } else if (!ok || (!plan.slurp && !plan.jq)) {
      // Pages piped one after another stay apart: a newline between them when a page lacks one.
      if (plan.paginate && page > 1 && !previousEndedWithNewline && !deps.io.outIsTTY) deps.io.out.write('\n');
      previousEndedWithNewline = await writeResponse(deps.io, res, plan.include);
    } else if (plan.slurp) {
      slurped.add(res.body, page);
    } else if (plan.jq) {
      if (plan.include) await writeResponse(deps.io, { ...res, body: Buffer.alloc(0) }, true);
      deps.io.out.write(plan.jq.apply(res.body.toString('utf8'), label ? `The ${label}` : 'The response'));
    }
    if (!ok) throw await httpFailure(deps, res, { client, plan, path: (path ?? url.pathname).replace(/\?.*$/s, ''), page: label });

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

/** The error for a non-2xx answer: the classifier's problem (exit 4), else a plain HTTP failure (exit 1). */
async function httpFailure(deps: Deps, res: HttpResponse, at: { client: ApiClient; plan: CallPlan; path: string; page?: string }): Promise<CliError> {
  const summary = `${at.page ? `${at.page}: ` : ''}HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''} (${at.plan.method} ${at.path})`;
  // The login a problem names finds the resource's metadata and scope where its challenge said.
  const problem = await readAnswer(deps, res, { session: at.client.session, login: at.plan.loginTarget });
  return problem ? problemError(summary, problem) : new CliError(summary, { code: 'http_error' });
}
