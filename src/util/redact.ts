// Every secret the process handles is registered here, so that any text leaving the process
// (errors, verbose traces) can be scrubbed even when a secret shows up somewhere unexpected.
const secrets = new Set<string>();
// Longest first, so a secret that contains another is redacted whole; rebuilt when one is added.
let ordered: string[] = [];

export const REDACTED = '[REDACTED]';

export function registerSecret(value: string | undefined | null): void {
  // Very short values would redact ordinary words; real tokens are long.
  if (typeof value === 'string' && value.length >= 8 && !secrets.has(value)) {
    secrets.add(value);
    ordered = [...secrets].sort((a, b) => b.length - a.length);
  }
}

export function redactText(text: string): string {
  let out = String(text);
  if (!secrets.size) return out;
  // Another pass in the odd case where a replacement and its neighbours spell a secret again.
  for (let pass = 0; pass < 4; pass++) {
    let changed = false;
    for (const secret of ordered) {
      if (out.includes(secret)) {
        out = out.split(secret).join(REDACTED);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return out;
}

/** Names of fields whose values are secrets wherever they appear (JSON bodies, forms, query strings). */
const SECRET_FIELDS = new Set([
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'code_verifier',
  'client_secret',
  'token',
  'registration_access_token',
  'password',
  'subject_token',
  'assertion',
  'device_code',
  'client_assertion',
]);

/** A field name whose value is a secret: the known ones, any `*_token`, anything naming a secret or password. */
export function isSecretField(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_FIELDS.has(lower) || /(^|[_-])token$/.test(lower) || lower.includes('secret') || lower.includes('password');
}

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'dpop', 'x-api-key']);

/** A header whose value is a secret: credentials, cookies, proof tokens, and any header naming a token or a secret. */
export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADERS.has(lower) || lower.includes('token') || lower.includes('secret');
}

/**
 * Names whose values are learned as secrets from an answer: tokens, secrets, device codes. Not
 * `code` or `password`, which APIs also use for ordinary data (a course code must stay readable
 * in later messages); they are still redacted by name in traces.
 */
function isLearnedField(name: string): boolean {
  const lower = name.toLowerCase();
  return lower !== 'code' && !lower.includes('password') && isSecretField(lower);
}

/**
 * Registers every secret-named value of a JSON document (a token response, a registration answer),
 * so that the same value is redacted wherever else it shows up: another header, a non-standard field,
 * an error message.
 */
export function registerSecretsIn(value: unknown, depth = 0): void {
  if (depth > 32 || !value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) registerSecretsIn(v, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && isLearnedField(k)) registerSecret(v);
    else registerSecretsIn(v, depth + 1);
  }
}

/** The same for a form body (`a=b&c=d`). */
export function registerSecretsInForm(body: string): void {
  for (const [k, v] of new URLSearchParams(body)) if (isSecretField(k)) registerSecret(v);
}

function redactForm(body: string): string {
  const params = new URLSearchParams(body);
  const parts: string[] = [];
  for (const [k, v] of params) parts.push(`${encodeURIComponent(k)}=${isSecretField(k) ? REDACTED : encodeURIComponent(v)}`);
  return parts.join('&');
}

function redactJsonValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJsonValue);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = isSecretField(k) && (typeof v === 'string' || typeof v === 'number') ? REDACTED : redactJsonValue(v);
    }
    return out;
  }
  return value;
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    for (const key of [...u.searchParams.keys()]) {
      if (isSecretField(key)) u.searchParams.set(key, REDACTED);
    }
    if (u.password) u.password = REDACTED;
    return redactText(u.toString());
  } catch {
    return redactText(url);
  }
}

/** Redacts a body of any content type for display in a trace. */
export function redactBody(body: string, contentType: string | undefined): string {
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('application/x-www-form-urlencoded')) return redactText(redactForm(body));
  if (type.includes('json') || /^\s*[[{]/.test(body)) {
    try {
      return redactText(JSON.stringify(redactJsonValue(JSON.parse(body))));
    } catch {
      // not JSON after all: fall through to plain scrubbing
    }
  }
  return redactText(body);
}
