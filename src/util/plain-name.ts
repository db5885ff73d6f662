/**
 * Names a server supplies (scopes, API paths) reach a command line, a hint or a shell completion only
 * when they are plain: nothing a shell would interpret ($, `, ;, |, &, quotes, backslashes, spaces,
 * globs, redirections) and nothing a terminal would act on.
 */

/** Stricter than RFC 6749's scope-token: letters, digits and `_ . : / -`, starting with a letter or digit. */
export const SAFE_SCOPE = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$/;

/** An API path as completion may insert it: `/`, then letters, digits and `_ . - / { } ~ + , @ = :`. */
const SAFE_PATH = /^\/[A-Za-z0-9_.\-/{}~+,@=:]{0,511}$/;

export function isPlainScope(name: string): boolean {
  return typeof name === 'string' && SAFE_SCOPE.test(name);
}

export function isPlainPath(path: string): boolean {
  return typeof path === 'string' && SAFE_PATH.test(path);
}
