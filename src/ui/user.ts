import { printable } from '../util/printable.js';

/** "Ada Lovelace ada@example.edu", or whatever part of it the claims have. */
export function describeUser(claims: { name?: unknown; email?: unknown; preferred_username?: unknown; sub?: unknown } | undefined): string {
  if (!claims) return 'an unknown user';
  const name = typeof claims.name === 'string' ? claims.name : typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined;
  const email = typeof claims.email === 'string' ? claims.email : undefined;
  const parts = [name, email].filter(Boolean);
  if (parts.length) return printable(parts.join(' '));
  return typeof claims.sub === 'string' ? printable(`user ${claims.sub}`) : 'an unknown user';
}
