import { describe, expect, it } from 'vitest';
import { REDACTED, redactBody, redactText, redactUrl, registerSecret } from '../../src/util/redact.js';

describe('redaction', () => {
  it('redacts secret fields in form bodies', () => {
    const out = redactBody('grant_type=refresh_token&refresh_token=rt-abcdefgh&client_id=c1', 'application/x-www-form-urlencoded');
    expect(out).toContain(`refresh_token=${REDACTED}`);
    expect(out).toContain('client_id=c1');
    expect(out).not.toContain('rt-abcdefgh');
  });

  it('redacts secret fields in nested JSON', () => {
    const out = redactBody(JSON.stringify({ access_token: 'at-123456789', nested: [{ client_secret: 's-123456789' }], scope: 'a b' }), 'application/json');
    expect(out).not.toMatch(/at-123456789|s-123456789/);
    expect(out).toContain('"scope":"a b"');
  });

  it('redacts codes in URLs and any registered secret anywhere', () => {
    expect(redactUrl('http://127.0.0.1:1/callback?code=abcdefgh123&state=xyz')).not.toContain('abcdefgh123');
    registerSecret('super-secret-value-1');
    expect(redactText('prefix super-secret-value-1 suffix')).toBe(`prefix ${REDACTED} suffix`);
  });
});

describe('redaction by name', () => {
  it('knows secret fields by name: the listed ones and any *_token', async () => {
    const { isSecretField } = await import('../../src/util/redact.js');
    for (const name of ['access_token', 'refresh_token', 'id_token', 'client_secret', 'code', 'code_verifier', 'device_code', 'assertion', 'password', 'custom_token', 'session-token', 'X_Secret_Key'])
      expect(isSecretField(name), name).toBe(true);
    for (const name of ['token_type', 'scope', 'expires_in', 'client_id', 'state', 'iss']) expect(isSecretField(name), name).toBe(false);
  });

  it('knows secret headers by name: credentials, cookies, DPoP, anything naming a token or a secret', async () => {
    const { isSecretHeader } = await import('../../src/util/redact.js');
    for (const name of ['Authorization', 'proxy-authorization', 'Cookie', 'set-cookie', 'DPoP', 'X-Access-Token', 'x-refresh-token', 'X-Client-Secret']) expect(isSecretHeader(name), name).toBe(true);
    for (const name of ['content-type', 'www-authenticate', 'cache-control', 'location']) expect(isSecretHeader(name), name).toBe(false);
  });

  it('redacts *_token fields of any name in JSON and form bodies', () => {
    const json = redactBody(JSON.stringify({ token_type: 'Bearer', custom_token: 'ct-1234567890', nested: { session_token: 'st-1234567890' } }), 'application/json');
    expect(json).not.toMatch(/ct-1234567890|st-1234567890/);
    expect(json).toContain('"token_type":"Bearer"');
    const form = redactBody('device_code=dc-1234567890&assertion=eyJhbGciOi.x.y&password=hunter22&client_id=c1', 'application/x-www-form-urlencoded');
    expect(form).not.toMatch(/dc-1234567890|eyJhbGciOi|hunter22/);
    expect(form).toContain('client_id=c1');
  });

  it('learns the values of a token response, so a copy under another name is redacted too', async () => {
    const { registerSecretsIn } = await import('../../src/util/redact.js');
    registerSecretsIn({ access_token: 'at-learned-0123456789', token_type: 'Bearer', extra: [{ refresh_token: 'rt-learned-0123456789' }] });
    const text = 'x-debug: at-learned-0123456789; echo=rt-learned-0123456789';
    expect(redactText(text)).toBe(`x-debug: ${REDACTED}; echo=${REDACTED}`);
    // A field that is not secret by name, holding a learned value, is still scrubbed.
    expect(redactBody(JSON.stringify({ note: 'at-learned-0123456789' }), 'application/json')).not.toContain('at-learned-0123456789');
  });

  it('redacts a longer secret whole when a shorter one is inside it', () => {
    registerSecret('inner-secret-123');
    registerSecret('outer-inner-secret-123-tail');
    expect(redactText('outer-inner-secret-123-tail')).toBe(REDACTED);
  });
});
