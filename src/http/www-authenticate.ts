/** Parameters of the Bearer challenge in a WWW-Authenticate header (RFC 6750, RFC 9728). */
export function parseBearerChallenge(header: string | undefined): Record<string, string> | undefined {
  if (!header) return undefined;
  const m = /(?:^|,\s*)Bearer(?:\s+(.*))?$/i.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  let p: RegExpExecArray | null;
  while ((p = re.exec(m[1] ?? ''))) params[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
  return params;
}
