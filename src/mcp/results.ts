import type { ApiAnswer, AuthProblem } from './engine.js';
import { cleanText } from './schema.js';

/** The most of a body a tool result holds; the rest is cut, saying so. */
export const MAX_RESULT_BYTES = 100 * 1024;

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

// Controls (but newline and tab), bidi and invisible format characters, lone surrogates: what a
// host's terminal or a model's reader could be fooled by.
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Server text made safe: every such character shown as a visible `\u{…}` escape, so nothing is dropped silently. */
export function safeText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`);
}

/**
 * A message of ours that may quote the description (a refusal naming its path): one line, every
 * character `safeText` escapes escaped, and line breaks too, so no text of the server's starts a
 * line of its own that reads as another message.
 */
export function safeLine(text: string): string {
  return safeText(text).replace(/[\n\t]/g, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`);
}

/** JSON text whose strings carry those characters as JSON escapes: the same value, nothing to act on. */
function safeJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export const textResult = (text: string, isError = false): ToolResult => ({ content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) });

export function jsonResult(value: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: safeJson(value) }], structuredContent: JSON.parse(safeJson(value)) as Record<string, unknown> };
}

/** Cuts UTF-8 bytes at a character boundary. */
function cutUtf8(body: Buffer, max: number): string {
  let end = Math.min(max, body.length);
  while (end > 0 && end < body.length && (body[end] & 0xc0) === 0x80) end--;
  return body.subarray(0, end).toString('utf8');
}

const isText = (type: string | undefined, body: Buffer) =>
  /^(text\/|application\/(?:[\w.+-]*\+)?(?:json|xml)|application\/(?:x-www-form-urlencoded|javascript))/i.test(type ?? '') || (!type && !body.subarray(0, 1024).includes(0));

interface Body {
  text: string;
  json?: unknown;
  cut: boolean;
}

/** One answer's body as text for the model: JSON re-encoded safely, other text made safe, binary described, over the cap cut. */
function readBody(answer: ApiAnswer, redact: (text: string) => string, room: number): Body {
  const type = answer.headers['content-type'];
  if (!answer.body.length) return { text: '', cut: false };
  if (!isText(type, answer.body)) return { text: `[${answer.body.length} bytes of ${cleanText(type, 100) ?? 'binary data'}, not shown]`, cut: false };
  const cut = answer.body.length > room;
  const raw = redact(cut ? cutUtf8(answer.body, room) : answer.body.toString('utf8'));
  if (!cut) {
    try {
      const json: unknown = JSON.parse(raw);
      return { text: safeJson(json), json: JSON.parse(safeJson(json)), cut };
    } catch {
      // not JSON: shown as text
    }
  }
  return { text: safeText(raw), cut };
}

const sizeNote = (total: number) => `[Cut: the body is ${total} bytes; only the first ${MAX_RESULT_BYTES / 1024} kB are shown.]`;

function statusLine(answer: ApiAnswer): string {
  const reason = cleanText(answer.statusText, 80);
  return `HTTP ${answer.status}${reason ? ` ${reason}` : ''}`;
}

/**
 * A tool result for an answer (or the pages of one listing): the status, then the body as text;
 * and the same as structuredContent, `{status, pages?, body}`, for hosts that hand a model only
 * that. Non-2xx answers are results with isError, so a model can read and recover; bodies over
 * 100 kB are cut, saying so.
 */
export function answerResult(pages: readonly ApiAnswer[], redact: (text: string) => string, more?: { note: string; next?: string }): ToolResult {
  const last = pages[pages.length - 1];
  const ok = last.status >= 200 && last.status < 300;
  const structured: Record<string, unknown> = { status: last.status };
  const content: ToolResult['content'] = [];
  if (pages.length === 1) {
    const body = readBody(last, redact, MAX_RESULT_BYTES);
    content.push({ type: 'text', text: statusLine(last) });
    if (body.text) content.push({ type: 'text', text: body.text });
    structured.body = body.json !== undefined ? body.json : body.text || null;
    if (body.cut) {
      content.push({ type: 'text', text: sizeNote(last.body.length) });
      structured.cut = { bytes: last.body.length, shown_bytes: MAX_RESULT_BYTES };
    }
  } else {
    // Pages of a listing: one JSON array of the pages while they fit, else each page's text.
    let room = MAX_RESULT_BYTES;
    const bodies: Body[] = [];
    for (const page of pages) {
      const body = readBody(page, redact, room);
      bodies.push(body);
      room -= Buffer.byteLength(body.text);
      if (room <= 0) break;
    }
    const allJson = bodies.every((b) => b.json !== undefined);
    content.push({ type: 'text', text: `${statusLine(last)} (${bodies.length} pages)` });
    content.push({ type: 'text', text: allJson ? `[${bodies.map((b) => b.text).join(',')}]` : bodies.map((b) => b.text).join('\n') });
    structured.pages = bodies.length;
    structured.body = bodies.map((b) => (b.json !== undefined ? b.json : b.text));
    if (bodies.length < pages.length || bodies.some((b) => b.cut)) {
      content.push({ type: 'text', text: `[Cut at ${MAX_RESULT_BYTES / 1024} kB: ${bodies.length} of the pages fetched are shown.]` });
      structured.cut = { pages_fetched: pages.length, pages_shown: bodies.length };
    }
  }
  if (more) {
    content.push({ type: 'text', text: more.note });
    if (more.next) structured.next_page = more.next;
  }
  return { content, structuredContent: structured, ...(ok ? {} : { isError: true }) };
}

/** A sign-in for the person to open, started for this call or found waiting. */
export interface SignInLink {
  url: string;
  /** Seconds since the epoch. */
  expiresAt: number;
  /** True when this call started it; false when it was already waiting. */
  started: boolean;
  /** Why the one before it did not complete, when one did not. */
  earlier?: string;
}

const minutesLeft = (expiresAt: number) => Math.max(1, Math.round((expiresAt - Date.now() / 1000) / 60));

/**
 * A refusal for want of a login or a scope: what is wrong, and how it is fixed: the sign-in URL
 * for the person when a login was started (or is waiting), else the command to run.
 */
export function problemResult(problem: AuthProblem, then?: string | SignInLink): ToolResult {
  const lines = [safeText(problem.message)];
  const link = typeof then === 'object' ? then : undefined;
  if (link) {
    if (link.earlier) lines.push(`The earlier sign-in did not complete: ${safeText(link.earlier)}`);
    lines.push(
      link.started
        ? `A sign-in has been started. Ask the person to open this URL in their browser and approve${problem.kind === 'insufficient_scope' ? ' the added access' : ''}:`
        : 'A sign-in is still waiting for the person to open this URL in their browser and approve:',
      safeText(link.url),
      `Once they have approved, call this tool again (the sign-in waits about ${minutesLeft(link.expiresAt)} minutes).`,
    );
    if (problem.command) lines.push(`Or they can run in a terminal: ${problem.command}`);
  } else {
    if (problem.command) lines.push(`The person using this computer can fix it by running: ${problem.command}`);
    if (typeof then === 'string') lines.push(then);
  }
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      error: problem.kind,
      message: safeText(problem.message),
      ...(problem.command ? { command: problem.command } : {}),
      ...(problem.scopes?.length ? { scopes: problem.scopes } : {}),
      ...(link ? { sign_in: { url: safeText(link.url), status: link.started ? 'started' : 'waiting', expires_at: link.expiresAt, next: 'call this tool again once the person has approved' } } : {}),
    },
    isError: true,
  };
}
