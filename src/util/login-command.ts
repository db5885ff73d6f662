import { DEFAULT_PROFILE } from './profiles.js';

/**
 * The one place that writes `school login …` command lines, for every hint, message and tool
 * result that names one. The words come in one order (server, profile, scopes, then the other
 * options as given), each read back by a POSIX shell as written.
 */

/** A word as a POSIX shell reads it back: bare when plain, else in single quotes. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A word the person fills in (`<scope>`), written as it is: the one kind of word left unquoted on purpose. */
export interface Placeholder {
  readonly placeholder: string;
}

export function placeholder(name: `<${string}>`): Placeholder {
  return { placeholder: name };
}

/**
 * The example server of a hint where no base URL is known at all (no option, no environment, no
 * profile): every hint that knows one names it instead.
 */
export const EXAMPLE_BASE_URL = 'https://your-school.example';

const wordOf = (value: string | Placeholder) => (typeof value === 'string' ? shellWord(value) : value.placeholder);

export interface LoginCommandParts {
  /** Left out when the profile remembers it (or the command is about the default server). */
  baseUrl?: string | Placeholder;
  /** Left out for the default profile. */
  profile?: string;
  /** `--scope`: exactly these scopes. */
  scope?: readonly string[];
  /** `--add-scope`: the scopes held now plus these. */
  addScope?: readonly string[];
  /** The other options, in order: a flag alone (`--no-wait`), or a flag and its value. */
  options?: ReadonlyArray<string | readonly [string, string | Placeholder]>;
}

/** Scopes as one word: joined by commas, which `login` reads as it reads spaces. */
const scopeWord = (scopes: readonly string[]) => shellWord(scopes.join(','));

/** `school login --base-url … --profile … --add-scope …`: the command line for these parts. */
export function loginCommandText(parts: LoginCommandParts = {}): string {
  const words = ['school login'];
  if (parts.baseUrl) words.push('--base-url', wordOf(parts.baseUrl));
  if (parts.profile && parts.profile !== DEFAULT_PROFILE) words.push('--profile', shellWord(parts.profile));
  // An empty list names no scope to ask for: the flag would need a value.
  if (parts.scope?.length) words.push('--scope', scopeWord(parts.scope));
  if (parts.addScope?.length) words.push('--add-scope', scopeWord(parts.addScope));
  for (const option of parts.options ?? []) {
    if (typeof option === 'string') words.push(option);
    else words.push(option[0], wordOf(option[1]));
  }
  return words.join(' ');
}

/**
 * A hint that asks to run a command, with the command itself beside it as data: a front-end that
 * shows it as a button or a tool result's field takes `command`, never parses it out of `hint`.
 */
export interface CommandHint {
  hint: string;
  command: string;
}

/**
 * A hint in the one shape every hint has: the command alone on its own line, after a sentence
 * where one is needed (`Unlock it, or log in again:`); the command as data beside it.
 */
export function runCommandHint(command: string, lead?: string): CommandHint {
  return { hint: lead ? `${lead}:\n${command}` : command, command };
}

/** The login command for a profile and server: `school login --base-url … --profile …`. */
export function loginCommandFor(profile: string, baseUrl?: string): string {
  return loginCommandText({ profile, baseUrl });
}

/** The login that fixes a missing or broken session: the sentence, and the command as data. */
export function loginFix(profile: string, baseUrl?: string, lead?: string): CommandHint {
  return runCommandHint(loginCommandFor(profile, baseUrl), lead);
}

/** The login command that fixes a missing or broken session, as its hint. */
export function loginHint(profile: string, baseUrl?: string): string {
  return loginFix(profile, baseUrl).hint;
}
