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
