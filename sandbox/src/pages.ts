import type { IncomingMessage, ServerResponse } from 'node:http';

import { readBody } from './body.js';
import { describeScope } from './scopes.js';
import type { SandboxUser } from './users.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
type Emit = (type: string, fields: Record<string, unknown>) => void;

// Plain server-rendered pages: no scripts, no external resources, no web fonts, so a
// headless browser on a machine without internet renders them at once.

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d2330;margin:0}
main{max-width:420px;margin:48px auto;background:#fff;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.15);padding:28px 32px}
h1{font-size:1.4em;margin:0 0 .4em}p.muted{color:#5b6475;font-size:.9em}
label{display:block;margin:14px 0 4px;font-weight:600}input{width:100%;box-sizing:border-box;padding:8px;font-size:1em;border:1px solid #b8bfcc;border-radius:4px}
button{margin-top:18px;padding:9px 18px;font-size:1em;border-radius:4px;border:1px solid #2f5bd3;background:#2f5bd3;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#2f5bd3}.error{background:#fde8e8;color:#9b1c1c;padding:8px 12px;border-radius:4px}
ul.scopes{padding-left:1.1em}ul.scopes code{font-weight:600}.actions{display:flex;gap:12px}.actions form{margin:0}
`;

function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · School</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export function renderErrorPage(error: string | undefined, description: string | undefined): string {
  return layout(
    'Error',
    `<h1>Something went wrong</h1>
<p id="error"><code>${escapeHtml(error ?? 'server_error')}</code></p>
<p id="error-description">${escapeHtml(description ?? '')}</p>`,
  );
}

function signInPage(uid: string, clientName: string, error?: string, username = ''): string {
  return layout(
    'Sign in',
    `<h1>Sign in to School</h1>
<p class="muted">${escapeHtml(clientName)} wants to access your school account.</p>
${error ? `<p class="error" id="sign-in-error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login" autocomplete="off">
<label for="username">Username</label><input id="username" name="username" value="${escapeHtml(username)}" autofocus required>
<label for="password">Password</label><input id="password" name="password" type="password" required>
<button type="submit" id="sign-in">Sign in</button>
</form>
<p class="muted">Demo accounts: ada / lovelace, alan / turing.</p>`,
  );
}

function consentPage(uid: string, clientName: string, user: SandboxUser | undefined, scopes: string[]): string {
  const items = scopes.map((s) => `<li data-scope="${escapeHtml(s)}"><code>${escapeHtml(s)}</code> – ${escapeHtml(describeScope(s))}</li>`).join('\n');
  return layout(
    'Authorize',
    `<h1>Authorize ${escapeHtml(clientName)}</h1>
<p class="muted">Signed in as ${escapeHtml(user?.name ?? 'unknown')}${user ? ` (${escapeHtml(user.username)})` : ''}.</p>
<p>${escapeHtml(clientName)} asks for:</p>
<ul class="scopes" id="scopes">${items || '<li>No specific permissions</li>'}</ul>
<div class="actions">
<form method="post" action="/interaction/${escapeHtml(uid)}/confirm"><button type="submit" id="approve">Approve</button></form>
<form method="post" action="/interaction/${escapeHtml(uid)}/abort"><button type="submit" id="deny" class="secondary">Deny</button></form>
</div>`,
  );
}

function send(res: ServerResponse, status: number, html: string) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(html);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams((await readBody(req, 64 * 1024)).toString('utf8'));
}

export interface InteractionContext {
  provider: Any;
  users: SandboxUser[];
  emit: Emit;
}

// Handles /interaction/<uid>[/login|/confirm|/abort]. Returns false when the path is not an
// interaction path.
export async function handleInteraction(req: IncomingMessage, res: ServerResponse, pathname: string, { provider, users, emit }: InteractionContext): Promise<boolean> {
  const m = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|confirm|abort))?$/.exec(pathname);
  if (!m) return false;
  const [, uid, action] = m;
  const method = req.method ?? 'GET';
  if ((action && method !== 'POST') || (!action && method !== 'GET')) {
    res.setHeader('Allow', action ? 'POST' : 'GET');
    send(res, 405, renderErrorPage('invalid_request', 'method not allowed'));
    return true;
  }

  let details: Any;
  try {
    details = await provider.interactionDetails(req, res);
  } catch (err) {
    send(res, 400, renderErrorPage('invalid_request', `this sign-in request has expired or is unknown (${(err as Error).message}); start again from the application`));
    return true;
  }
  if (details.uid !== uid) {
    send(res, 400, renderErrorPage('invalid_request', 'interaction mismatch; start again from the application'));
    return true;
  }

  const clientId: string = details.params.client_id;
  const client = await provider.Client.find(clientId);
  const clientName: string = client?.clientName ?? clientId;
  const prompt: string = details.prompt.name;
  const requested: string[] = String(details.params.scope ?? '')
    .split(' ')
    .filter(Boolean);

  if (!action) {
    if (prompt === 'login') {
      send(res, 200, signInPage(uid, clientName));
    } else {
      const user = users.find((u) => u.sub === details.session?.accountId);
      send(res, 200, consentPage(uid, clientName, user, requested));
    }
    return true;
  }

  const form = action === 'login' ? await readForm(req) : undefined;
  // Drain any body the consent forms may carry.
  if (!form) for await (const _ of req) void _;

  if (action === 'login') {
    if (prompt !== 'login') {
      send(res, 400, renderErrorPage('invalid_request', 'sign-in is not expected at this step'));
      return true;
    }
    const username = form?.get('username') ?? '';
    const password = form?.get('password') ?? '';
    const user = users.find((u) => u.username === username && u.password === password);
    if (!user) {
      emit('login', { client_id: clientId, username, ok: false });
      send(res, 200, signInPage(uid, clientName, 'Invalid username or password.', username));
      return true;
    }
    emit('login', { client_id: clientId, username, sub: user.sub, ok: true });
    await provider.interactionFinished(req, res, { login: { accountId: user.sub } }, { mergeWithLastSubmission: false });
    return true;
  }

  if (prompt !== 'consent') {
    send(res, 400, renderErrorPage('invalid_request', 'consent is not expected at this step'));
    return true;
  }

  if (action === 'abort') {
    emit('consent', { client_id: clientId, decision: 'deny', scope: requested.join(' '), sub: details.session?.accountId });
    await provider.interactionFinished(
      req,
      res,
      {
        error: 'access_denied',
        error_description: 'The user denied the authorization request.',
      },
      { mergeWithLastSubmission: false },
    );
    return true;
  }

  // Approve: grant exactly what was asked for, both as OpenID scopes (id token) and as
  // scopes of the API resource (the access token).
  const { accountId } = details.session;
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId });
  const missing = details.prompt.details ?? {};
  if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, (scopes as string[]).join(' '));
  }
  const grantId = await grant.save();
  emit('consent', { client_id: clientId, decision: 'approve', scope: requested.join(' '), sub: accountId });
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  return true;
}

// The device authorization grant's pages (RFC 8628), in the same plain style, with stable ids
// for the browser driver: the code input (#device-user-code, #device-continue), the
// confirmation (#device-confirm, #device-abort) and the end (#device-done).
export function renderDeviceInputPage(form: string, error: boolean): string {
  return layout(
    'Connect a device',
    `<h1>Connect a device</h1>
${error ? '<p class="error">That code is not valid. Check it and try again.</p>' : '<p class="muted">Enter the code shown on your device.</p>'}
${form.replace('name="user_code" placeholder', 'id="device-user-code" name="user_code" placeholder')}
<button id="device-continue" type="submit" form="op.deviceInputForm">Continue</button>`,
  );
}

export function renderDeviceConfirmPage(form: string, clientName: string, userCode: string): string {
  return layout(
    'Confirm the device',
    `<h1>Confirm the device</h1>
<p><strong>${escapeHtml(clientName)}</strong> asks to sign in with the code</p>
<p><code id="device-code">${escapeHtml(userCode)}</code></p>
<p class="muted">Continue only if you started this sign-in yourself and your device shows this code. Never enter a code that someone else sent you.</p>
${form}
<div class="actions"><button id="device-confirm" type="submit" form="op.deviceConfirmForm">Continue</button>
<button id="device-abort" class="secondary" type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Abort</button></div>`,
  );
}

export function renderDeviceDonePage(): string {
  return layout('Device connected', '<h1 id="device-done">Device connected</h1><p>You can close this page and return to your device.</p>');
}
