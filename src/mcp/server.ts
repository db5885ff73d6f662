/**
 * `school mcp`: the school API as MCP tools, on the SDK's low-level `Server` over stdio. The
 * tools are made at run time from the API description, so ListTools and CallTool are plain
 * handlers over plain JSON Schemas. The engine (session, requests, login) is reached only
 * through `McpEngine` (engine.ts).
 */
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type BuiltRequest, FilePart, buildOperationRequest } from '../api/request-builder.js';
import { UsageError } from '../errors.js';
import { AuditLog, auditPath } from './audit.js';
import type { ApiAnswer, ApiRequest, McpEngine, Outcome, StartupNote } from './engine.js';
import { MAX_RESULT_BYTES, type SignInLink, type ToolResult, answerResult, jsonResult, problemResult, safeLine, safeText, textResult } from './results.js';
import { type CallContext, type LinkedRefusal, signInFlows } from './sign-in.js';
import { type ApiOperation, CALL_METHODS, type Catalogue, READ_METHODS, buildCatalogue, searchOperations } from './tools.js';

/** How long calls under way when stdin closes may take to be answered. */
const DRAIN_TIMEOUT_MS = 60_000;

export interface ServeOptions {
  allowWrite: boolean;
  toolsets?: string[];
  version: string;
  stdin: Readable;
  stdout: Writable;
  /** Notices for the person (never protocol messages, never a secret). */
  notice: (text: string) => void;
  /** Aborted on SIGINT or SIGTERM: the server stops as when stdin closes. */
  signal?: AbortSignal;
  /** Tool calls run at once, and how many more may wait (tests make them small). */
  limits?: { calls: number; waiting: number };
}

/** The most operations one school_operations answer lists. */
const MAX_FOUND_OPERATIONS = 50;
/** Tool calls run at once; more wait their turn, up to MAX_CALLS_WAITING; beyond that they are refused. */
const MAX_CALLS_RUNNING = 4;
const MAX_CALLS_WAITING = 16;

/** Turns to run: `take` resolves with a release once one is free, or undefined when too many wait or the call was cancelled. */
class Slots {
  running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly size: number,
    private readonly room: number,
  ) {}

  get waiting(): number {
    return this.queue.length;
  }

  async take(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (this.running >= this.size) {
      if (this.queue.length >= this.room || signal.aborted) return undefined;
      const turn = await new Promise<boolean>((resolve) => {
        const go = () => {
          signal.removeEventListener('abort', cancel);
          resolve(true);
        };
        const cancel = () => {
          const at = this.queue.indexOf(go);
          if (at >= 0) this.queue.splice(at, 1);
          resolve(false);
        };
        this.queue.push(go);
        signal.addEventListener('abort', cancel, { once: true });
      });
      if (!turn) return undefined;
    } else this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The turn passes straight to the next in line; the count stays.
      const next = this.queue.shift();
      if (next) next();
      else this.running -= 1;
    };
  }
}

/** How long the start waits for the API description when no copy is cached. */
const FIRST_FETCH_MS = 5000;
/** The first protocol revision with URL-mode elicitation: a host that negotiated an earlier one is never sent it. */
const URL_ELICITATION_SINCE = '2025-11-25';

/** What a tool call did, for its audit line. */
interface Recorded {
  status: number | null;
  refused?: string;
  /** The URL the first request went to. */
  sentUrl?: string;
  signIn?: SignInLink;
}

interface Planned {
  method: string;
  target: string;
  /** Headers of the operation's parameters (and Accept, Content-Type), as the builder made them. */
  headers?: Record<string, string>;
  body?: Buffer;
  contentType?: string;
  paginate: boolean;
}

/** A request refused before anything is sent; `reason` goes to the audit log. */
class Refusal extends Error {
  constructor(
    message: string,
    readonly reason: 'read_only' | 'invalid_request' = 'invalid_request',
  ) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function queryValue(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(queryValue);
  if (value === undefined || value === null) return [];
  return [typeof value === 'object' ? JSON.stringify(value) : String(value)];
}

/** A multipart body's file fields, given as base64 by the host, as the bytes the builder sends. */
function withFiles(op: ApiOperation, body: unknown): unknown {
  if (!op.body?.files || !isObject(body)) return body;
  const out: Record<string, unknown> = { ...body };
  for (const name of op.body.files) {
    const value = out[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(value)) throw new Refusal(`The body field ${name} is a file: give its bytes in base64.`);
    out[name] = new FilePart(Buffer.from(value, 'base64'), name);
  }
  return out;
}

/**
 * The request an operation's tool makes for the arguments given, by the one request builder
 * (api/request-builder.ts), as `school api` builds it: a value the builder refuses (a path
 * segment of '..', a server on another origin) is refused here, nothing sent.
 */
export function planOperation(op: ApiOperation, args: Record<string, unknown>, baseUrl = 'http://api.invalid'): Planned {
  const params: Record<string, unknown> = {};
  for (const p of op.parameters) {
    const value = args[p.key];
    if (value === undefined || value === null) {
      if (p.in === 'path') throw new Refusal(`Missing the path parameter ${p.key}.`);
      continue;
    }
    params[`${p.in}:${p.name}`] = value;
  }
  const body = op.body && args.body !== undefined ? args.body : undefined;
  const keyOf = new Map(op.parameters.map((p) => [`${p.in}:${p.name}`, p.key]));
  let built: BuiltRequest;
  try {
    built = buildOperationRequest(
      op.request,
      { params, ...(body === undefined ? {} : { body: { value: withFiles(op, body) } }) },
      { baseUrl, argName: (p) => `The ${p.in} parameter ${keyOf.get(`${p.in}:${p.name}`) ?? p.name}` },
    );
  } catch (err) {
    if (err instanceof UsageError) throw new Refusal(err.message);
    throw err;
  }
  // An operation's own server on the API's origin: the target is its URL, which the engine checks against the origin.
  const target = built.server ? `${built.server}${built.path}` : built.path;
  return { method: built.method, target, headers: built.headers, body: built.body, contentType: built.headers['content-type'], paginate: op.paginated };
}

/** The request `school_call` makes: a path of the API, never another origin. */
export function planCall(args: Record<string, unknown>): Planned {
  const method = (typeof args.method === 'string' && args.method ? args.method : 'GET').toUpperCase();
  if (!CALL_METHODS.includes(method)) throw new Refusal(`Invalid method ${JSON.stringify(safeLine(method.slice(0, 20)))}: school_call takes ${CALL_METHODS.join(', ')}.`);
  const rawPath = typeof args.path === 'string' ? args.path.trim() : '';
  if (!rawPath.startsWith('/') || rawPath.startsWith('//') || /^\/?[\\]/.test(rawPath) || /[\s\u0000-\u001f]/.test(rawPath)) {
    throw new Refusal('The path must be a path of the API starting with "/", e.g. /api/courses; another origin is never called.');
  }
  // Any ".." is resolved away before the base URL's path is put in front, so it cannot climb out of it.
  const url = new URL(rawPath, 'http://api.invalid');
  if (url.host !== 'api.invalid') throw new Refusal('The path must stay on the API.');
  if (isObject(args.query)) for (const [k, v] of Object.entries(args.query)) for (const s of queryValue(v)) url.searchParams.append(k, s);
  const body = args.body !== undefined && method !== 'GET' && method !== 'HEAD' ? Buffer.from(JSON.stringify(args.body)) : undefined;
  return { method, target: `${url.pathname}${url.search}`, body, contentType: body ? 'application/json' : undefined, paginate: false };
}

/** The instructions a host gives its model; `startup`: what the person is to do first, when the server has too little to go on. */
export function instructionsFor(catalogue: Catalogue | undefined, allowWrite: boolean, startup?: StartupNote): string {
  const lines = ['Tools for the school API (courses, students, members and other areas), called as the person logged in with `school login`.'];
  if (startup) lines.push(startup.text);
  if (catalogue?.searchable) {
    lines.push('When the API has many operations, they are not one tool each: find them with school_operations (a query of words), then call one with school_call.');
  }
  lines.push(
    allowWrite
      ? 'Writes are allowed: tools that create, change or delete data act at once.'
      : 'Read-only: only GET and HEAD are offered and sent; a write is refused until the person restarts the server with --allow-write.',
  );
  lines.push(
    'A result that says a login or a scope is missing carries a sign-in URL: give it to the person to open in their browser, and call the tool again once they say they approved (or they can run the `school login` command it names).',
  );
  return lines.join(' ');
}

export async function serveMcp(engine: McpEngine, options: ServeOptions): Promise<void> {
  const audit = new AuditLog(engine.auditFile, (t) => engine.redact(t), options.notice);
  const offer = (doc: unknown) => buildCatalogue(doc, { allowWrite: options.allowWrite, toolsets: options.toolsets });

  // A notice is said once: a host that lists the tools again and again must not repeat it.
  const said = new Set<string>();
  const notice = (text: string) => {
    if (said.has(text)) return;
    said.add(text);
    options.notice(text);
  };

  const cached = await engine.cachedApiDescription().catch(() => undefined);
  let catalogue: Catalogue | undefined = cached ? offer(cached) : undefined;
  let fresh: Promise<Catalogue | undefined> | undefined;
  /** Why the description could not be read, while no copy of it is known. */
  let unreadable: string | undefined;
  let closed = false;
  /** The server once made, for the refresh to tell hosts of changed tools. */
  let made: Server | undefined;

  /** A fresh copy of the description; when it changes the tools, hosts are told. */
  const refresh = () =>
    (fresh ??= engine.fetchApiDescription().then(
      (doc) => {
        const next = offer(doc);
        const before = catalogue ? JSON.stringify(catalogue.tools) : undefined;
        catalogue = next;
        unreadable = undefined;
        if (made && before !== undefined && before !== JSON.stringify(next.tools) && !closed) made.sendToolListChanged().catch(() => undefined);
        return next;
      },
      async (err: unknown) => {
        const startup = await engine.startupNote().catch(() => undefined);
        // No school known yet: nothing went wrong, and the results say what the person is to do.
        if (startup && !startup.canSignIn) unreadable = startup.text;
        else {
          unreadable = safeText(engine.describeError(err));
          notice(`Could not fetch /openapi.json: ${unreadable}${catalogue ? '; using the cached copy.' : '.'}`);
        }
        // Without any copy, the next tools/list tries again.
        if (!catalogue) fresh = undefined;
        return catalogue;
      },
    ));

  // Without a cached copy, the instructions wait a moment for a fresh one: they say how the
  // operations are offered, and must not name a tool that is not.
  if (!catalogue) await Promise.race([refresh(), new Promise((done) => setTimeout(done, FIRST_FETCH_MS).unref())]);

  const startup = await engine.startupNote().catch(() => undefined);
  const server = new Server(
    { name: 'school', title: 'school API', version: options.version },
    { capabilities: { tools: { listChanged: true } }, instructions: instructionsFor(catalogue, options.allowWrite, startup) },
  );
  made = server;
  /** The protocol revision agreed with the host, as the server answered its `initialize`. */
  let revision: string | undefined;
  /** URL-mode elicitation: declared by the host, and in the revision both speak. */
  const urlElicitation = () => Boolean(server.getClientCapabilities()?.elicitation?.url) && revision !== undefined && revision >= URL_ELICITATION_SINCE;

  /** The tools: the cached copy at once when there is one, else the fresh copy once it came. */
  const currentCatalogue = async (): Promise<Catalogue> => catalogue ?? (await refresh()) ?? offer(undefined);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await currentCatalogue()).tools }));

  const { withLogin } = signInFlows({ server, engine, notice, report: options.notice, closed: () => closed, urlElicitation });

  const refusalResult = (refusal: LinkedRefusal) => problemResult(refusal.problem, refusal.login ?? (urlElicitation() ? undefined : 'Then call the tool again.'));

  /** The one place a request leaves: writes are refused here unless --allow-write, whatever tool asked. */
  async function send(req: ApiRequest): Promise<Outcome<ApiAnswer>> {
    if (!options.allowWrite && !READ_METHODS.has(req.method))
      throw new Refusal(`${req.method} is a write: this server is read-only. The person can allow writes by starting it with \`school mcp --allow-write\`.`, 'read_only');
    return engine.send(req);
  }

  async function perform(plan: Planned, extra: CallContext, record: (what: Recorded) => void): Promise<ToolResult> {
    const pages: ApiAnswer[] = [];
    const cursor = engine.pages();
    let target = plan.target;
    let bytes = 0;
    let more: { note: string; next?: string } | undefined;
    for (;;) {
      const outcome = await withLogin(extra, () => send({ method: plan.method, target, headers: plan.headers, body: plan.body, contentType: plan.contentType, signal: extra.signal }));
      if (!outcome.ok) {
        record({ status: null, refused: outcome.problem.kind, signIn: 'login' in outcome ? outcome.login : undefined });
        return refusalResult(outcome);
      }
      const answer = outcome.value;
      record({ status: answer.status, sentUrl: pages.length ? undefined : answer.url });
      pages.push(answer);
      bytes += answer.body.length;
      if (!plan.paginate || answer.status < 200 || answer.status >= 300) break;
      let next: string | undefined;
      try {
        next = cursor.next(answer);
      } catch (err) {
        // A next link elsewhere, or back to a page already read: the listing ends here, as an error.
        return { ...answerResult(pages, (t) => engine.redact(t), { note: `[The listing stopped: ${safeText(engine.describeError(err))}]` }), isError: true };
      }
      if (!next) break;
      const shown = safeText(next);
      // A page asked for by its own parameter (page=2, a cursor) is that page alone.
      if (pages.length === 1 && askedForPage(plan.target, next)) {
        more = { note: `[This is the page asked for; the next is ${shown}.]`, next: shown };
        break;
      }
      // The walk has the one page cap of every front-end (MAX_PAGES, session/api-client.ts); what a
      // tool result holds is bounded by its size, so the listing stops here once that is full.
      if (bytes >= MAX_RESULT_BYTES) {
        more = { note: `[More pages follow; the next is ${shown}. Call school_call with that path to read on.]`, next: shown };
        break;
      }
      target = next;
    }
    return answerResult(pages, (t) => engine.redact(t), more);
  }

  async function callTool(name: string, args: Record<string, unknown>, extra: CallContext): Promise<ToolResult> {
    const started = Date.now();
    let method: string | null = null;
    let path: string | null = null;
    let status: number | null = null;
    let refused: string | undefined;
    let signIn: SignInLink | undefined;
    try {
      if (name === 'school_operations') {
        const cat = await currentCatalogue();
        if (!cat.searchable) {
          const startup = await engine.startupNote().catch(() => undefined);
          if (startup && !startup.canSignIn) return textResult(`school_operations is not offered yet. ${startup.text}`, true);
          return textResult(
            unreadable
              ? `school_operations is not offered: the API description could not be read (${unreadable}). school_call reaches any path of the API.`
              : 'school_operations is not offered: each operation of the API is a tool of its own. List the tools to see them.',
            true,
          );
        }
        const query = typeof args.query === 'string' ? args.query : undefined;
        const found = searchOperations(cat.operations, query, options.allowWrite);
        // At most 50, and no more than a tool result holds: each one's schemas can be large.
        const shown: typeof found = [];
        let size = 0;
        for (const entry of found.slice(0, MAX_FOUND_OPERATIONS)) {
          size += JSON.stringify(entry).length;
          if (shown.length && size > MAX_RESULT_BYTES) break;
          shown.push(entry);
        }
        return jsonResult({ operations: shown, ...(found.length > shown.length ? { more: found.length - shown.length, hint: 'More operations match: add words to the query to narrow it.' } : {}) });
      }
      if (name === 'school_whoami') {
        method = 'GET';
        path = '(userinfo)';
        const outcome = await withLogin(extra, () => engine.whoami());
        if (!outcome.ok) {
          refused = outcome.problem.kind;
          signIn = 'login' in outcome ? outcome.login : undefined;
          return refusalResult(outcome);
        }
        status = 200;
        return jsonResult({ profile: engine.profile, base_url: engine.baseUrl() ?? null, claims: outcome.value.claims, scopes: outcome.value.scopes });
      }
      let plan: Planned;
      if (name === 'school_call') plan = planCall(args);
      else {
        const cat = await currentCatalogue();
        // An operation not offered as a tool (a write in read-only mode) is planned all the same:
        // the one place requests leave refuses it, so what is hidden is also what is enforced.
        const op = cat.byName.get(name) ?? cat.operations.find((o) => o.name === name);
        if (!op) return textResult(`Unknown tool ${JSON.stringify(safeText(name.slice(0, 100)))}. List the tools again: the API description may have changed.`, true);
        plan = planOperation(op, args, engine.baseUrl());
      }
      method = plan.method;
      path = auditPath(plan.target);
      return await perform(plan, extra, (what) => {
        status = what.status;
        refused = what.refused;
        signIn = what.signIn;
        // The path the first request actually went to, as the server received it.
        if (what.sentUrl) path = auditPath(what.sentUrl);
      });
    } catch (err) {
      if (err instanceof Refusal) {
        refused = err.reason;
        // A refusal may quote the description (its path, a parameter's name): never raw text of the server's.
        return textResult(safeLine(err.message), true);
      }
      refused = 'error';
      return textResult(`The request failed: ${safeText(engine.describeError(err))}`, true);
    } finally {
      if (status === null && refused === undefined && method !== null) refused = 'not_sent';
      audit.write({
        time: new Date(started).toISOString(),
        profile: engine.profile,
        tool: name.slice(0, 100),
        method,
        path,
        status,
        duration_ms: Date.now() - started,
        ...(status === null && refused ? { refused } : {}),
        // A sign-in handed out by this call: one started, or one found waiting.
        ...(signIn ? { sign_in: signIn.started ? 'started' : 'waiting' } : {}),
      });
    }
  }

  // Calls under way, so that a client that sends its calls and closes stdin at once still gets the answers.
  const inFlight = new Set<Promise<unknown>>();
  // A bound on the calls under way, and so on the answers held in memory at once (each at most the
  // engine's body cap): a few run, some more wait their turn, the rest are refused at once.
  const slots = new Slots(options.limits?.calls ?? MAX_CALLS_RUNNING, options.limits?.waiting ?? MAX_CALLS_WAITING);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = isObject(request.params.arguments) ? request.params.arguments : {};
    const call = (async (): Promise<ToolResult> => {
      const release = await slots.take(extra.signal);
      if (!release) {
        return textResult(
          extra.signal.aborted ? 'The call was cancelled before it started.' : `Too many calls at once: ${slots.running} are under way and ${slots.waiting} wait. Call again once some have answered.`,
          true,
        );
      }
      try {
        return await callTool(request.params.name, args, extra as unknown as CallContext);
      } finally {
        release();
      }
    })();
    inFlight.add(call);
    try {
      return await call;
    } finally {
      inFlight.delete(call);
    }
  });

  // The cached copy serves at once; a fresh one is fetched beside it, and hosts told if the tools changed.
  server.oninitialized = () => void refresh();

  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const ended = new Promise<void>((resolve) => {
    const finish = () => resolve();
    options.stdin.once('end', finish);
    options.stdin.once('close', finish);
    options.signal?.addEventListener('abort', finish, { once: true });
    transport.onclose = finish;
  });
  // The SDK's server keeps the revision it answered `initialize` with to itself: it is read off the answer.
  const sendMessage = transport.send.bind(transport);
  transport.send = (message) => {
    const result = 'result' in message ? message.result : undefined;
    if (revision === undefined && result && typeof result.protocolVersion === 'string') revision = result.protocolVersion;
    return sendMessage(message);
  };
  await server.connect(transport);
  await ended;
  // stdin closed: the calls already under way are answered first (at most a request's time); a signal does not wait.
  if (!options.signal?.aborted && inFlight.size) {
    await Promise.race([Promise.allSettled([...inFlight]), new Promise((done) => setTimeout(done, DRAIN_TIMEOUT_MS).unref())]);
    await new Promise((done) => setImmediate(done)); // the answers' writes follow the calls' ends
  }
  closed = true;
  // A sign-in handed out is left waiting: its listener outlives the server, for the person to finish it.
  await server.close().catch(() => undefined);
  audit.close();
}

/**
 * Whether the request named its page itself: a query parameter it set (page=2, a cursor) has
 * another value in the next page's link. Parameters the link keeps (a filter, a page size) do not count.
 */
export function askedForPage(target: string, next: string): boolean {
  const asked = new URL(target, 'http://api.invalid').searchParams;
  const following = new URL(next, 'http://api.invalid').searchParams;
  for (const name of new Set(asked.keys())) if (asked.getAll(name).join('\u0000') !== following.getAll(name).join('\u0000')) return true;
  return false;
}
