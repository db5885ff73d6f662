// What `npm run sandbox -- --help` prints: how to start the sandbox, its options, its users, how to
// sign in to it without a display, and every variant with what it changes. The users and the
// variants come from the tables the sandbox runs on, so the text cannot drift from them.
import { fileURLToPath } from 'node:url';

import { shellCommand, shellWord } from './command-line.js';
import { defaultUsers } from './users.js';
import { SANDBOX_VARIANTS, VARIANT_NOTES } from './variants.js';

export const USAGE = 'usage: npm run sandbox -- [options] [--variant NAME]...   (in the clone of school; --help says more)';

const OPTIONS: Array<[string, string]> = [
  ['--port N', 'the port of the API (and of the authorization server, unless split); default: a free one'],
  ['--split-origins', 'the authorization server on an origin of its own, apart from the API'],
  ['--alt-paths', 'the authorization server on other endpoint paths than the usual ones (metadata names them)'],
  ['--access-ttl S', 'access tokens last S seconds (default 3600)'],
  ['--refresh-ttl S', 'refresh tokens last S seconds (default 14 days)'],
  ['--no-rotation', 'a refresh token stays the same when used (default: a new one at each use)'],
  ['--no-revocation', 'no revocation endpoint'],
  ['--events FILE', 'write every event (sign-ins, grants, API calls) to FILE, one JSON line each'],
  ['--quiet', 'no events on stderr (the base URL and the notes are still printed)'],
  ['--variant NAME', 'one of the variants below; repeat it for several'],
  ['-h, --help', 'this text'],
];

/** The sandbox's sign-in helper: `BROWSER` for school, it signs in in a headless Chromium. */
const SIGN_IN_HELPER = fileURLToPath(new URL('./browser-driver.mjs', import.meta.url));

/** The `export BROWSER=…` line that makes school sign in through the helper, readable where the path allows. */
export function browserExport(): string {
  const command = /^[^'"$`\\]*$/.test(SIGN_IN_HELPER) ? `"node '${SIGN_IN_HELPER}'"` : shellWord(shellCommand('node', SIGN_IN_HELPER));
  return `export BROWSER=${command}`;
}

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(/\s+/)) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** Two columns, the right one wrapped to keep every line within 100 characters. */
function table(rows: Array<[string, string]>): string[] {
  const left = Math.max(...rows.map(([name]) => name.length)) + 4;
  return rows.flatMap(([name, text]) => wrap(text, Math.max(40, 100 - left)).map((line, i) => `${(i === 0 ? `  ${name}` : '').padEnd(left)}${line}`));
}

export function helpText(): string {
  const users = defaultUsers();
  const [first] = users;
  return [
    USAGE,
    '',
    'A stand-in for the school service on this machine: an OAuth 2.0 / OpenID Connect authorization server',
    'and the school API, on 127.0.0.1, for trying school and for its tests. Run it from the clone of school',
    '(it is not installed with the package). The first line it prints on stdout is its base URL; notes and',
    'events go to stderr. Ctrl-C stops it; nothing it holds outlives it.',
    '',
    'Options:',
    ...table(OPTIONS),
    '',
    'Users (username / password), on its sign-in page:',
    ...table(users.map((u) => [`${u.username} / ${u.password}`, `${u.name} <${u.email}>`])),
    '',
    'Signing in without a display: the sandbox signs in for you when its sign-in helper is the browser',
    `school opens (it drives a headless Chromium through the sign-in and consent pages, as ${first?.username ?? 'ada'}):`,
    `  ${browserExport()}`,
    '  school login --base-url <the base URL it printed>',
    'SANDBOX_USER and SANDBOX_PASSWORD sign in as another user; SANDBOX_CONSENT=deny refuses consent.',
    '',
    'Variants (--variant NAME): each makes one choice the specifications allow and the default sandbox',
    'does not, or one fault to be caught (hostile), or one shape of a server seen in the field:',
    ...table(SANDBOX_VARIANTS.map((name) => [name, VARIANT_NOTES[name]])),
    '',
  ].join('\n');
}
