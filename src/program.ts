import type { Command, CommanderError } from 'commander';
import type { Deps } from './deps.js';
import { ExitCode, UsageError } from './errors.js';
import { requireCommonJs } from './util/require.js';
import type { GlobalOptions } from './commands/context.js';

export type DepsFactory = (opts: GlobalOptions) => Deps;

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export const VERSION = '0.1.0';

const CALL_HELP = `
Fields:
  -f name=value sends a string; -F name=value sends a number, true, false or null as such.
  -F name=@file sends the file's text; -F name=@- reads it from standard input.
  name[key]=value nests an object ({"name":{"key":"value"}}); name[]=value appends to an array.
  Fields switch the method to POST and go in a JSON body (with -X PUT, PATCH or DELETE too),
  unless -X GET (or HEAD) is given: then they go to the query string, name[key]=value
  and name[]=value as written.
  --input <file|-> sends a raw body (Content-Type: application/json when it parses as JSON and
  no -H 'Content-Type: …' is given); fields given with it go to the query string.

Output:
  The body goes to stdout. Piped, it is byte for byte what the server sent (no newline added);
  on a terminal JSON is indented and every body ends with a newline. A non-2xx answer still
  prints its body, then exits 1 (4 when the token was rejected or lacks a scope).
  --paginate prints each page in turn, a newline between pages that lack one; --jq prints string
  results without quotes and other values as JSON, one result per line.

Retries:
  GET and HEAD answered 429 or 503 are retried up to 3 times after the Retry-After the server
  gives (seconds or a date, at most 60 s; 1, 2, 4 s without one), saying so on stderr. Other
  methods are retried only with --retry <n>.

Examples:
  $ school call /api/courses
  $ school call /api/courses --jq '.courses[].title'
  $ school call -X GET /api/echo -f q=algebra -f 'filter[level]=2' -f 'tags[]=math'
  $ school call /api/courses -f title=Algebra -F seats=30 -F open=true
  $ school call -X PUT /api/echo --input course.json
  $ school call /api/lessons --paginate --jq '.lessons[].title'
  $ school call /api/lessons --paginate --slurp --jq 'map(.lessons | length) | add'
  $ school call /api/courses --timeout 10 --retry 5
  $ school call --list --json --jq '.[] | select(.paginated) | .path'`;

/**
 * The command tree. Each action only gathers options and hands them, with the injected
 * dependencies, to the command's `run` function, loaded when that command is used.
 */
export function buildProgram(makeDeps: DepsFactory, onResult: (p: Promise<void>) => void): Command {
  // Loaded here, not at the top, so the bundled CLI only pays for it when the full parser runs.
  const { Command, Option } = requireCommonJs('commander') as typeof import('commander');
  const program = new Command('school');
  program
    .description('Sign in to a school and script its API from the terminal.')
    .version(VERSION, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--base-url <url>', 'the school service origin (env SCHOOL_BASE_URL); remembered in the profile'))
    .addOption(new Option('--profile <name>', 'which account or school to use (env SCHOOL_PROFILE)').default(undefined, 'default'))
    .option('--json', 'structured output (and JSON errors on stderr)')
    .option('--verbose', 'trace HTTP on stderr, with every secret redacted')
    .showSuggestionAfterError(true)
    .exitOverride()
    // Set before the subcommands exist so they inherit it: errors are reported once, by the caller.
    .configureOutput({
      writeOut: (s) => process.stdout.write(s),
      writeErr: (s) => process.stderr.write(s),
      outputError: () => undefined,
    })
    .addHelpText(
      'after',
      `
Environment:
  SCHOOL_BASE_URL, SCHOOL_PROFILE, SCHOOL_CONFIG_DIR, SCHOOL_TOKEN,
  SCHOOL_REFRESH_TOKEN + SCHOOL_CLIENT_ID (+ SCHOOL_CLIENT_SECRET), BROWSER,
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY, NO_COLOR, FORCE_COLOR

Exit status: 0 ok, 1 failure, 2 usage error, 4 authentication needed, 130 interrupted, 143 terminated.`,
    );

  const act =
    <O extends object>(load: () => Promise<(deps: Deps, opts: O) => Promise<void>>) =>
    (...args: unknown[]) => {
      const cmd = args[args.length - 1] as Command;
      const opts = cmd.optsWithGlobals() as O & GlobalOptions;
      const positional = args.slice(0, -2);
      onResult(
        (async () => {
          const run = await load();
          await run(makeDeps(opts), Object.assign(opts, { args: positional }));
        })(),
      );
    };

  program
    .command('login')
    .description('sign in through the browser and store the tokens in the OS keychain')
    .option('--scope <scopes>', 'scopes to request, space- or comma-separated (repeatable)', collect)
    .option('--no-browser', 'print the URL instead of opening a browser (SSH, headless)')
    .option('--port <n>', 'loopback port for the redirect (default: a free one)')
    .option('--timeout <seconds>', 'how long to wait for the browser (default 300)')
    .option('--confidential', 'register as a confidential client (client_secret_post)')
    .option('--insecure-storage', 'store secrets in a 0600 plain-text file instead of the keychain')
    .option('--client-metadata-url <url>', 'use this client ID metadata document URL as client_id, where supported')
    .action(act(async () => (await import('./commands/login/login.js')).loginRun));

  program
    .command('logout')
    .description('revoke the tokens at the server and forget them locally')
    .option('--all', 'log out of every profile')
    .action(act(async () => (await import('./commands/logout/logout.js')).logoutRun));

  program
    .command('whoami')
    .description('show who is logged in')
    .action(act(async () => (await import('./commands/whoami/whoami.js')).whoamiRun));

  program
    .command('token')
    .description('print a valid access token (refreshed when about to expire)')
    .option('--for-ci', 'print SCHOOL_BASE_URL, SCHOOL_CLIENT_ID and SCHOOL_REFRESH_TOKEN for a CI secret store and hand the profile over')
    .action(act(async () => (await import('./commands/token/token.js')).tokenRun));

  program
    .command('call')
    .description('make an authenticated request to the school API')
    .argument('[path]', 'API path relative to the base URL, e.g. /api/courses')
    .option('-X, --method <method>', 'HTTP method (default GET, or POST with fields)')
    .option('-H, --header <header>', "add a request header 'Name: value' (repeatable)", collect)
    .option('-f, --raw-field <key=value>', 'add a string field (repeatable)', collect)
    .option('-F, --field <key=value>', 'add a typed field: number, true/false, null, @file (repeatable)', collect)
    .option('--input <file>', 'send the file as the request body ("-" for stdin)')
    .option('-i, --include', 'print the status line and headers too')
    .option('--anonymous', 'send no token')
    .option('--list', 'list the API operations and the scope each needs (from /openapi.json)')
    // For scripts and agents: pagination, jq, retries, a deadline.
    .option('--paginate', 'follow Link rel="next" pages on the same origin and print each page')
    .option('--slurp', 'with --paginate: print one JSON array holding every page')
    .option('--jq <expression>', 'filter the JSON response through jq (each page, or the whole array with --slurp)')
    .option('--retry <n>', 'retries on 429/503 for any method (GET and HEAD get 3 without it; others none)')
    .option('--timeout <seconds>', 'deadline for each whole request, body included (default 60)')
    .addHelpText('after', CALL_HELP)
    .action(act(async () => (await import('./commands/call/call.js')).callRun));

  program
    .command('status')
    .description('show every profile: base URL, issuer, client, user, scopes, expiry, storage')
    .action(act(async () => (await import('./commands/status/status.js')).statusRun));

  program
    .command('completion')
    .description('print the shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .action(act(async () => (await import('./commands/completion/completion.js')).completionRun));

  // Used by the completion scripts; hidden from help.
  program
    .command('__complete', { hidden: true })
    .argument('<kind>', 'profiles, scopes or paths')
    .action(act(async () => (await import('./commands/completion/complete.js')).completeRun));

  return program;
}

export function isCommanderError(err: unknown): err is CommanderError {
  return typeof (err as { code?: unknown })?.code === 'string' && (err as { code: string }).code.startsWith('commander.');
}

/** Commander's own parse errors are usage errors (exit 2); help and version are success. */
export function mapCommanderError(err: CommanderError): number | UsageError {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.ok;
  return new UsageError(err.message.replace(/^error:\s*/, ''));
}
