/**
 * Every command, argument and flag of the command line, declared once. Everything else is derived
 * from these rows: commander's configuration (program.ts, command.ts), the typed options each
 * command receives and the checks of their values (values.ts), the fast path (fast-path.ts), the
 * help, the four completion scripts and docs/commands.md (scripts/reference/, run by the build).
 *
 * Pure data: the fast path reads it without loading the command parser or the commands.
 *
 * A new flag is one entry in its command's `flags` (name, value kind, help, completion) plus the
 * code that uses it: its value reaches `run` as `opts.<name in camelCase>`, already checked, so
 * add that key to the command's options interface. A new command is one row here plus a module
 * `defineCommand<Options>({ name, run })` listed in commands/index.ts. `npm run build` then
 * remakes the completion scripts and docs/commands.md; commit them (test/unit/cli-table.test.ts
 * fails until they match). A new kind of value or completion is a member of `ValueKind` or
 * `CompletionKind`, checked in values.ts and completed in each script of scripts/reference/.
 */

/** What a flag's or argument's value is, which decides its check and its type in the options. */
export type ValueKind =
  /** Any text. */
  | { type: 'string' }
  /** A number of seconds above 0 and at most `max`, fractions allowed. */
  | { type: 'seconds'; max: number }
  /** A whole number from `min` to `max`; `unit` names what it counts in messages. */
  | { type: 'integer'; min: number; max: number; unit?: string; check?: 'loopback-port' }
  /** One of `values`. */
  | { type: 'enum'; values: readonly string[] }
  /** Words separated by commas or spaces (each use of a repeated flag adds more), duplicates dropped. */
  | { type: 'list'; check?: 'scope-areas' };

/**
 * What the completion scripts offer for a value: profile names, the cached scopes (a comma list),
 * the cached API paths, the API's operations, the media types of the operation on the line (all
 * five from `school __complete`), file names, fixed words, a typed field whose `@file` is a file,
 * the commands and help topics, or nothing.
 */
export type CompletionKind =
  | { kind: 'profiles' }
  | { kind: 'scopes' }
  | { kind: 'paths' }
  /**
   * The API's operations (`school __complete api-operations`); once one is on the line, the words
   * after it complete as its flags (`api-flags <operation>`) and their values (`api-values <operation> <flag>`).
   */
  | { kind: 'operations' }
  /** The body media types the operation on the line offers (`school __complete api-media-types <operation>`); none before one. */
  | { kind: 'media-types' }
  | { kind: 'files'; stdin?: boolean }
  | { kind: 'words'; words: readonly string[] }
  | { kind: 'field' }
  | { kind: 'topics' }
  | { kind: 'none' };

export interface FlagSpec {
  /** The long name without its dashes. `no-x` turns off `x`: alone it makes `x` true by default; beside an `x` flag, `x` is unset unless given. */
  name: string;
  /** A one-letter alias. */
  short?: string;
  /** Absent for a switch, which takes no value. */
  value?: ValueKind & { placeholder: string };
  /** Each use adds a value (the options hold a list). */
  repeat?: boolean;
  /** The value the options hold when the flag is not given. */
  default?: number;
  help: string;
  complete?: CompletionKind;
  /** Kept out of help and completion (the hidden helper commands' flags). */
  hidden?: boolean;
  /** Read by the fast path too (src/fast-path.ts), on a command marked `fast`. */
  fast?: boolean;
}

export interface ArgumentSpec {
  name: string;
  required: boolean;
  value?: ValueKind;
  help: string;
  complete: CompletionKind;
}

export interface CommandSpec {
  name: string;
  description: string;
  /** The heading it is listed under in `school --help`; hidden commands have none. */
  group?: string;
  hidden?: boolean;
  /**
   * Run without the command parser when the line has every argument and only global flags and
   * flags marked `fast` (src/fast-path.ts): what scripts and agents run in loops.
   */
  fast?: boolean;
  /**
   * The command reads the rest of its line itself (`school api`: its operations' flags come from the
   * API description): the parser leaves unknown flags and further arguments to it, in `argv`.
   */
  passthrough?: boolean;
  args: readonly ArgumentSpec[];
  flags: readonly FlagSpec[];
  /** Shown after the flags in its help and in the reference: how the flags work together. */
  details?: string;
  /** Command lines, each optionally followed by `#` and a comment. */
  examples: readonly string[];
}

export interface HelpTopic {
  name: string;
  description: string;
}

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
const API_FORMATS = ['json', 'table'] as const;
/** The longest wait any flag may ask for: a day. */
const DAY = 86_400;

/** Accepted before or after the command name, by every command. */
export const GLOBAL_FLAGS: readonly FlagSpec[] = [
  { name: 'base-url', value: { type: 'string', placeholder: 'url' }, help: 'the school service origin (env SCHOOL_BASE_URL); remembered in the profile', complete: { kind: 'none' } },
  { name: 'profile', value: { type: 'string', placeholder: 'name' }, help: 'which account or school to use (env SCHOOL_PROFILE)', complete: { kind: 'profiles' } },
  {
    name: 'description',
    value: { type: 'string', placeholder: 'url|file' },
    help: "the API description, JSON or YAML, when not at <base URL>/openapi.json (env SCHOOL_API_DESCRIPTION); remembered in the profile ('' forgets it)",
    complete: { kind: 'files' },
  },
  { name: 'json', help: 'structured output (and JSON errors on stderr)' },
  { name: 'verbose', help: 'trace HTTP on stderr, with every secret redacted' },
];

/** The flags only `school` itself has, before any command. */
export const PROGRAM = {
  name: 'school',
  description: 'Sign in to a school and script its API from the terminal.',
  version: { name: 'version', help: 'print the version' },
  help: { short: 'h', name: 'help', help: 'show help' },
  examples: ['school login --base-url https://your-school.example', "school call /api/courses --jq '.courses[].title'", 'school status --json', 'school <command> --help'],
} as const;

/** `school help <topic>`: what the catalogues say, beside the help of each command. */
export const HELP_TOPICS: readonly HelpTopic[] = [
  { name: 'environment', description: 'the environment variables school reads' },
  { name: 'exit-codes', description: 'what each exit status means' },
  { name: 'errors', description: 'the error codes of --json errors, with their exit status' },
];

export const COMMAND_TABLE: readonly CommandSpec[] = [
  {
    name: 'login',
    group: 'Sign in:',
    description: 'sign in through the browser and store the tokens in the OS keychain',
    args: [],
    flags: [
      {
        name: 'scope',
        value: { type: 'list', placeholder: 'scopes' },
        repeat: true,
        help: 'the scopes to request instead of the default set, space- or comma-separated (repeatable)',
        complete: { kind: 'scopes' },
      },
      { name: 'add-scope', value: { type: 'list', placeholder: 'scopes' }, repeat: true, help: 'request the scopes the profile holds now plus these (repeatable)', complete: { kind: 'scopes' } },
      { name: 'no-browser', help: 'print the URL instead of opening a browser (SSH, headless)' },
      {
        name: 'port',
        value: { type: 'integer', min: 1024, max: 65535, check: 'loopback-port', placeholder: 'n' },
        help: 'loopback port for the redirect (default: the one registered last time, else a free one)',
      },
      // No default here: with --wait, an unset --timeout waits as long as the pending login lasts.
      { name: 'timeout', value: { type: 'seconds', max: DAY, placeholder: 'seconds' }, help: 'how long to wait for the browser (default 300); with --wait, how long to wait at most' },
      // --wait before --no-wait: neither given leaves the value unset, which is the waiting login.
      { name: 'wait', help: 'wait for the login started with --no-wait: exit 0 when it completed, 4 otherwise' },
      { name: 'no-wait', help: 'start the login, print the URL and return at once; a background listener finishes it' },
      { name: 'confidential', help: 'register as a confidential client (client_secret_post, or client_secret_basic where the server does not list it)' },
      { name: 'insecure-storage', help: 'store secrets in a 0600 plain-text file instead of the keychain' },
      { name: 'client-metadata-url', value: { type: 'string', placeholder: 'url' }, help: 'use this client ID metadata document URL as client_id, where supported' },
      { name: 'device', help: 'sign in on any device with a code (device authorization, where the server offers it)' },
      { name: 'no-dpop', help: 'get bearer tokens, usable by other tools, even where the server offers DPoP' },
      {
        name: 'client-id',
        value: { type: 'string', placeholder: 'id' },
        help: 'use a client registered out of band instead of registering one (its secret, if any, from SCHOOL_CLIENT_SECRET or --client-secret-stdin)',
      },
      { name: 'client-secret-stdin', help: "read the --client-id client's secret from stdin" },
    ],
    examples: [
      'school login --base-url https://your-school.example',
      'school login --add-scope courses:write    # the scopes the profile holds now, plus this one',
      'school login --scope courses:read         # exactly this one (and openid, offline_access)',
      'school login --no-browser --profile work',
      'school login --no-wait --json             # print the URL and return; a person opens it',
      'school login --wait                       # then: exit 0 once that login completed',
      'school login --device                     # approve on a phone or another computer with a code',
    ],
  },
  {
    name: 'logout',
    group: 'Sign in:',
    description: 'revoke the tokens at the server and forget them locally',
    args: [],
    flags: [{ name: 'all', help: 'log out of every profile, and forget headless CI job state' }],
    examples: ['school logout', 'school logout --profile work', 'school logout --all'],
  },
  {
    name: 'token',
    group: 'Use the API:',
    fast: true,
    description: 'print a valid access token (refreshed when about to expire)',
    args: [],
    flags: [
      {
        name: 'min-ttl',
        value: { type: 'integer', min: 0, max: DAY, unit: 'seconds', placeholder: 'seconds' },
        default: 0,
        help: 'the printed token stays valid at least this long (refreshed first when needed)',
        // What scripts run before a long job.
        fast: true,
      },
      { name: 'for-ci', help: 'print SCHOOL_BASE_URL, SCHOOL_CLIENT_ID and SCHOOL_REFRESH_TOKEN for a CI secret store and hand the profile over' },
    ],
    examples: [
      'curl -H "Authorization: Bearer $(school token)" https://your-school.example/api/courses',
      'school token --json',
      'school token --min-ttl 600        # still valid in ten minutes',
      'school token --profile ci-nightly --for-ci',
    ],
  },
  {
    name: 'call',
    group: 'Use the API:',
    fast: true,
    description: 'make an authenticated request to the school API',
    args: [{ name: 'path', required: false, help: 'API path relative to the base URL, e.g. /api/courses', complete: { kind: 'paths' } }],
    flags: [
      { name: 'method', short: 'X', value: { type: 'string', placeholder: 'method' }, help: 'HTTP method (default GET, or POST with fields)', complete: { kind: 'words', words: HTTP_METHODS } },
      { name: 'header', short: 'H', value: { type: 'string', placeholder: 'header' }, repeat: true, help: "add a request header 'Name: value' (repeatable)" },
      { name: 'raw-field', short: 'f', value: { type: 'string', placeholder: 'key=value' }, repeat: true, help: 'add a string field (repeatable)' },
      {
        name: 'field',
        short: 'F',
        value: { type: 'string', placeholder: 'key=value' },
        repeat: true,
        help: 'add a typed field: number, true/false, null, @file (repeatable)',
        complete: { kind: 'field' },
      },
      { name: 'input', value: { type: 'string', placeholder: 'file' }, help: 'send the file as the request body ("-" for stdin)', complete: { kind: 'files', stdin: true } },
      { name: 'include', short: 'i', help: 'print the status line and headers too' },
      { name: 'anonymous', help: 'send no token' },
      { name: 'list', help: 'list the API operations and the scope each needs (from /openapi.json)' },
      { name: 'paginate', help: 'follow Link rel="next" pages on the same origin and print each page' },
      { name: 'slurp', help: 'with --paginate: print one JSON array holding every page' },
      { name: 'jq', value: { type: 'string', placeholder: 'expression' }, help: 'filter the JSON response through jq (each page, or the whole array with --slurp)' },
      { name: 'retry', value: { type: 'integer', min: 0, max: 10, unit: 'retries', placeholder: 'n' }, help: 'retries on 429/503 for any method (GET and HEAD get 3 without it; others none)' },
      {
        name: 'timeout',
        value: { type: 'seconds', max: DAY, placeholder: 'seconds' },
        default: 60,
        help: 'deadline for the whole request: body, retries and their waits included; each page its own',
      },
    ],
    details: `Fields:
  -f name=value sends a string; -F name=value sends a number, true, false or null as such.
  -F name=@file sends the file's text; -F name=@- reads it from standard input.
  name[key]=value nests an object ({"name":{"key":"value"}}); name[]=value appends to an array.
  Fields switch the method to POST and go in a JSON body (with -X PUT, PATCH or DELETE too),
  unless -X GET (or HEAD) is given: then they go to the query string, name[key]=value
  and name[]=value as written.
  --input <file|-> sends a raw body (Content-Type: application/json when it parses as JSON and
  no -H 'Content-Type: …' is given); fields given with it go to the query string.

Output:
  The body goes to stdout. Piped, it is byte for byte what the server sent, a JSON body ended
  with a newline as jq ends its output; on a terminal JSON is indented and every body ends with
  a newline. A non-2xx answer still prints its body, then exits 1 (4 when the token was rejected
  or lacks a scope).
  --paginate prints each page in turn, a newline between pages that lack one; --jq prints string
  results without quotes and other values as JSON, one result per line.

Retries:
  GET and HEAD answered 429 or 503 are retried up to 3 times after the Retry-After the server
  gives (seconds or a date, at most 60 s; 1, 2, 4 s without one), saying so on stderr. Other
  methods are retried only with --retry <n>. The waits count against --timeout: a retry that
  would end past it is not started.`,
    examples: [
      'school call /api/courses',
      "school call /api/courses --jq '.courses[].title'",
      "school call -X GET /api/echo -f q=algebra -f 'filter[level]=2' -f 'tags[]=math'",
      'school call /api/courses -f title=Algebra -F seats=30 -F open=true',
      'school call -X PUT /api/echo --input course.json',
      "school call /api/lessons --paginate --jq '.lessons[].title'",
      "school call /api/lessons --paginate --slurp --jq 'map(.lessons | length) | add'",
      'school call /api/courses --timeout 10 --retry 5',
      "school call --list --json --jq '.[] | select(.paginated) | .path'",
    ],
  },
  {
    name: 'api',
    group: 'Use the API:',
    description: "the API's operations as commands, checked against its description before sending",
    passthrough: true,
    args: [{ name: 'operation', required: false, help: 'the operation (school api lists them), then its path arguments and flags', complete: { kind: 'operations' } }],
    flags: [
      { name: 'refresh', help: 'fetch the API description now instead of using the cached copy' },
      { name: 'dry-run', help: 'print the request that would be sent (token as [REDACTED]) and send nothing; needs no login' },
      { name: 'no-validate', help: 'send the request even when it does not match the description' },
      {
        name: 'input',
        value: { type: 'string', placeholder: 'file' },
        help: 'the whole body from a file ("-" for stdin): JSON (a form\'s fields as a JSON object), other media types byte for byte; flags override its fields',
        complete: { kind: 'files', stdin: true },
      },
      {
        name: 'content-type',
        value: { type: 'string', placeholder: 'type' },
        help: "the body's media type, where the operation offers several (the first offered without it)",
        complete: { kind: 'media-types' },
      },
      { name: 'anonymous', help: 'send no token (for operations that answer anonymous callers)' },
      {
        name: 'format',
        value: { type: 'enum', values: API_FORMATS, placeholder: 'format' },
        help: 'json (default) or table: an array, or the items of a list, as a table',
        complete: { kind: 'words', words: API_FORMATS },
      },
      { name: 'columns', value: { type: 'string', placeholder: 'list' }, help: 'with --format table: the columns, comma-separated' },
      { name: 'jq', value: { type: 'string', placeholder: 'expression' }, help: 'filter the JSON response through jq' },
      { name: 'paginate', help: 'follow Link rel="next" pages on the same origin' },
      { name: 'slurp', help: 'with --paginate: one JSON array holding every page' },
      { name: 'include', short: 'i', help: 'print the status line and headers too' },
      { name: 'timeout', value: { type: 'seconds', max: DAY, placeholder: 'seconds' }, default: 60, help: 'deadline for the whole request, in seconds' },
      { name: 'retry', value: { type: 'integer', min: 0, max: 10, unit: 'retries', placeholder: 'n' }, help: 'retries on 429/503 for any method (GET and HEAD get 3 without it)' },
    ],
    details: "Each operation's own flags (its parameters and body fields) and an example: school api <operation> --help.",
    examples: ['school api', 'school api list-courses --format table', 'school api create-course --help', 'school api create-course --title Algebra --seats 30 --dry-run'],
  },
  {
    name: 'mcp',
    group: 'Use the API:',
    description: 'serve the school API as MCP tools on stdio, for agent hosts',
    args: [],
    flags: [
      { name: 'allow-write', help: 'offer and send writes too (POST, PUT, PATCH, DELETE); reading only without it' },
      { name: 'toolsets', value: { type: 'list', check: 'scope-areas', placeholder: 'areas' }, help: 'only the operations of these scope areas, comma-separated (e.g. courses,students)' },
    ],
    details: `An MCP server for agent hosts (Claude Code, VS Code, Cursor…): the host starts it and speaks the
Model Context Protocol on its stdin and stdout. It uses the login \`school login\` made; the token
never reaches the agent. Each operation of the API's /openapi.json is a tool (more than 40: one
searchable school_operations tool instead), plus school_call and school_whoami. Only reading
(GET, HEAD) unless --allow-write. Every tool call is recorded in audit.jsonl in the state
directory (see \`school status\`): time, profile, tool, method, path, status, duration.
In Claude Code: claude mcp add --scope user school -- school mcp (docs/agents.md has VS Code, Cursor and Codex too).`,
    examples: ['school mcp', 'school mcp --profile work --toolsets courses,students', 'school mcp --allow-write'],
  },
  {
    name: 'skill',
    group: 'Use the API:',
    description: 'print an Agent Skill (SKILL.md) for coding agents, made from the API description',
    args: [],
    flags: [
      {
        name: 'install',
        value: { type: 'string', placeholder: 'dir' },
        help: 'write <dir>/school/SKILL.md (replacing only a file written by school skill) and print its path',
        complete: { kind: 'files' },
      },
    ],
    details: `An Agent Skill tells a coding agent that has \`school\` on its PATH how to use it well and safely:
checking the login, the operations by area as \`school api\` commands with their scopes, writes
only when asked, never a token in the conversation. It is made from the cached API description.`,
    examples: ['school skill', 'school skill --install ~/.claude/skills', 'school skill --install .claude/skills'],
  },
  {
    name: 'whoami',
    group: 'Inspect:',
    description: 'show who is logged in',
    args: [],
    flags: [],
    examples: ['school whoami', 'school whoami --json --profile work'],
  },
  {
    name: 'status',
    group: 'Inspect:',
    description: 'show every profile: base URL, issuer, client, user, scopes, expiry, storage',
    args: [],
    flags: [],
    examples: ['school status', 'school status --json'],
  },
  {
    name: 'doctor',
    group: 'Inspect:',
    description: 'check the setup: server metadata, clock, keychain, proxy, file permissions, each profile',
    args: [],
    flags: [],
    examples: ['school doctor', 'school doctor --base-url https://your-school.example', 'school doctor --profile work --json'],
  },
  {
    name: 'completion',
    group: 'Shell:',
    description: 'print the shell completion script',
    args: [{ name: 'shell', required: true, value: { type: 'enum', values: SHELLS }, help: 'bash, zsh, fish or powershell', complete: { kind: 'words', words: SHELLS } }],
    flags: [],
    examples: [
      'source <(school completion bash)',
      'school completion zsh > ~/.zfunc/_school',
      'school completion fish > ~/.config/fish/completions/school.fish',
      'school completion powershell | Out-String | Invoke-Expression',
    ],
  },
  {
    name: 'help',
    group: 'Shell:',
    description: 'show help for a command, or a topic: environment, exit-codes, errors',
    args: [{ name: 'command', required: false, help: 'the command or topic to explain', complete: { kind: 'topics' } }],
    flags: [],
    examples: ['school help login', 'school help environment', 'school help exit-codes', 'school help errors'],
  },
  // The helpers the completion scripts and `login --no-wait` run; not for people.
  {
    name: '__complete',
    hidden: true,
    description: 'completion candidates',
    passthrough: true,
    args: [{ name: 'kind', required: true, help: 'profiles, scopes, paths, api-operations, api-flags <op>, api-values <op> <flag> or api-media-types <op>', complete: { kind: 'none' } }],
    flags: [],
    examples: [],
  },
  {
    name: '__complete-login',
    hidden: true,
    description: 'the background listener of `login --no-wait`',
    args: [],
    flags: [
      { name: 'port', value: { type: 'integer', min: 1024, max: 65535, check: 'loopback-port', placeholder: 'n' }, help: 'loopback port', hidden: true },
      { name: 'cached-redirect-uri', value: { type: 'string', placeholder: 'uri' }, help: 'the redirect URI registered last time', hidden: true },
      { name: 'timeout', value: { type: 'seconds', max: DAY, placeholder: 'seconds' }, help: 'how long to wait for the browser', hidden: true },
      { name: 'device', help: 'poll a device authorization instead', hidden: true },
    ],
    examples: [],
  },
];

/** The row of a command; throws for a name the table does not have (a programming error). */
export function commandSpec(name: string): CommandSpec {
  const spec = COMMAND_TABLE.find((c) => c.name === name);
  if (!spec) throw new Error(`No command "${name}" in the table.`);
  return spec;
}

/** The key of a flag in the options: `raw-field` → `rawField`, `no-browser` → `browser`. */
export function optionKey(flagName: string): string {
  return flagName.replace(/^no-/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export interface EnvironmentVariable {
  name: string;
  meaning: string;
}

/** Every environment variable school reads, for `school help environment` and the reference. */
export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  { name: 'SCHOOL_BASE_URL', meaning: "the service origin, like --base-url; it must match the profile's server when a profile is used" },
  { name: 'SCHOOL_PROFILE', meaning: 'the profile, like --profile (default "default")' },
  {
    name: 'SCHOOL_API_DESCRIPTION',
    meaning: 'where the API description lies, like --description: an https URL, an http URL on this machine, or a file, JSON or YAML (default <base URL>/openapi.json)',
  },
  {
    name: 'SCHOOL_CONFIG_DIR',
    meaning: 'where the configuration lives (default $XDG_CONFIG_HOME/school, i.e. ~/.config/school; %APPDATA%\\school on Windows); when set, job state and caches live under it too',
  },
  { name: 'SCHOOL_TOKEN', meaning: "an access token used as it is: no keychain, no refresh (with SCHOOL_BASE_URL or a profile's base URL)" },
  { name: 'SCHOOL_REFRESH_TOKEN', meaning: 'headless mode, with SCHOOL_CLIENT_ID: access tokens come from the refresh_token grant, never a browser' },
  { name: 'SCHOOL_CLIENT_ID', meaning: 'the client the SCHOOL_REFRESH_TOKEN was issued to (headless mode)' },
  { name: 'SCHOOL_CLIENT_SECRET', meaning: "a confidential client's secret (headless mode)" },
  { name: 'SCHOOL_CLIENT_METADATA_URL', meaning: 'a client ID metadata document URL to use as client_id, where the server supports it' },
  { name: 'CI', meaning: 'set to anything but empty, 0 or false: a CI job, where `school login` without --no-wait exits 4 at once' },
  { name: 'BROWSER', meaning: 'the command that opens the login URL (the URL is appended as its last argument); default: the system opener' },
  { name: 'HTTPS_PROXY', meaning: 'the http:// proxy for https requests (lower case too)' },
  { name: 'HTTP_PROXY', meaning: 'the http:// proxy for http requests (lower case too)' },
  { name: 'NO_PROXY', meaning: 'hosts reached without the proxy, comma-separated (lower case too)' },
  { name: 'NO_COLOR', meaning: 'set and not empty: no colour (colour and spinners appear only on a terminal anyway)' },
  { name: 'FORCE_COLOR', meaning: 'set: colour even off a terminal (0 or false: none); NO_COLOR wins' },
  { name: 'XDG_CONFIG_HOME', meaning: 'the base of the configuration directory when SCHOOL_CONFIG_DIR is not set' },
  { name: 'XDG_STATE_HOME', meaning: 'the base of the state directory (headless job state, audit.jsonl) when SCHOOL_CONFIG_DIR is not set' },
  { name: 'XDG_CACHE_HOME', meaning: 'the base of the cache directory (server metadata, API descriptions) when SCHOOL_CONFIG_DIR is not set' },
];
