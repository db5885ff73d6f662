// Every secret the process handles is registered here, so that any text leaving the process
// (errors, verbose traces) can be scrubbed even when a secret shows up somewhere unexpected.
const secrets = new Set<string>();

export const REDACTED = '[REDACTED]';

export function registerSecret(value: string | undefined | null): void {
  // Very short values would redact ordinary words; real tokens are long.
  if (value && value.length >= 8) secrets.add(value);
}

export function redactText(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** Names of fields whose values are secrets wherever they appear (JSON bodies, forms, query strings). */
export const SECRET_FIELDS = new Set([
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
]);

export function redactForm(body: string): string {
  const params = new URLSearchParams(body);
  const parts: string[] = [];
  for (const [k, v] of params) parts.push(`${k}=${SECRET_FIELDS.has(k) ? REDACTED : encodeURIComponent(v)}`);
  return parts.join('&');
}

export function redactJsonValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJsonValue);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_FIELDS.has(k) && typeof v === 'string' ? REDACTED : redactJsonValue(v);
    }
    return out;
  }
  return value;
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    for (const key of [...u.searchParams.keys()]) {
      if (SECRET_FIELDS.has(key)) u.searchParams.set(key, REDACTED);
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
