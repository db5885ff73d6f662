// The completion scripts, exercised in the real shells against the built CLI (dist/, built by
// `npm test` before vitest runs). `school` on PATH is a wrapper around this checkout's
// bin/school.cjs; the configuration and caches live in a temporary SCHOOL_CONFIG_DIR.
//
// bash: the script is sourced and the function registered for `school` is called with COMP_*
//       set; a few lines are also typed into an interactive bash on a pseudo-terminal (zsh's
//       zpty) to see what readline really inserts.
// zsh:  an interactive zsh on a pseudo-terminal loads _school through $fpath + compinit (and
//       once through eval), gets the line and a Tab; a compadd wrapper records every match.
// fish: `complete -C` after sourcing the script (or autoloading it from fish_complete_path).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellCommand } from '@school/sandbox/command-line';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiCacheFile, serverCacheFile } from '../../src/state/cache-files.js';
import { resolvePaths } from '../../src/state/paths.js';
import { buildProgram } from '../../src/program.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPTS = {
  bash: join(ROOT, 'completions', 'school.bash'),
  zsh: join(ROOT, 'completions', '_school'),
  fish: join(ROOT, 'completions', 'school.fish'),
} as const;
type Shell = keyof typeof SCRIPTS;
// No PowerShell runs on the Linux test machine: its script is checked by reading it (see below).
const POWERSHELL_SCRIPT = join(ROOT, 'completions', 'school.ps1');

const SCHOOL = 'https://school.example';
const LIBRARY = 'https://library.example:8443';
// A server whose names are shell syntax and terminal escapes: none of them may be offered.
const HOSTILE = 'https://hostile.example';
const HOSTILE_SCOPES = ['courses:read;touch$IFS/tmp/pwned', 'evil:read', 'a b', '$(id)', 'x`id`', 'esc\u001b]52;c;aGk=\u0007:read'];
const HOSTILE_PATHS = ['/api/ok', '/api/x;touch /tmp/pwned', '/api/$(id)', '/api/\u001b[2J', '/api/a b', "/api/it's", '/api/\u202egnp.exe'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
// The school's API description: operations with flags of their own (a query enum with a value no
// shell may receive, a body field), a body offered in several media types (some no shell may
// receive); the other paths get operation names made from method and path.
const COURSE_FIELDS = { type: 'object', properties: { title: { type: 'string' }, seats: { type: 'integer' } } };
const SCHOOL_OPERATIONS: Record<string, unknown> = {
  '/api/courses': {
    get: {
      operationId: 'listCourses',
      parameters: [
        { name: 'status', in: 'query', schema: { type: 'string', enum: ['active', 'archived', 'x;touch$IFS/tmp/pwned'] } },
        { name: 'limit', in: 'query', schema: { type: 'integer' } },
      ],
    },
    post: {
      operationId: 'createCourse',
      requestBody: {
        content: {
          'application/json': { schema: COURSE_FIELDS },
          'application/json; charset=utf-8': { schema: COURSE_FIELDS },
          'application/merge-patch+json': { schema: COURSE_FIELDS },
          'application/x-www-form-urlencoded': { schema: COURSE_FIELDS },
          'text/csv; header=present': { schema: { type: 'string' } },
          '*/*': {},
          'x;touch$IFS/tmp/pwned': {},
          'text/\u001b]52;c;aGk=\u0007csv': {},
        },
      },
    },
  },
  '/api/courses/{id}': { get: { operationId: 'getCourse', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] } },
};
const COURSE_MEDIA_TYPES = ['application/json', 'application/merge-patch+json', 'application/x-www-form-urlencoded', 'text/csv'];
const SCHOOL_OPERATION_NAMES = ['list-courses', 'create-course', 'get-course', 'get-api-calendar', 'get-api-grades', 'get-api-me'];
/** What every operation accepts besides its own flags (src/commands/api/flags.ts), and the global flags. */
const API_BUILTIN_LONG = [
  '--dry-run',
  '--no-validate',
  '--input',
  '--content-type',
  '--anonymous',
  '--format',
  '--columns',
  '--jq',
  '--paginate',
  '--slurp',
  '--include',
  '--timeout',
  '--retry',
  '--refresh',
  '--help',
];

let tmp: string;
let env: NodeJS.ProcessEnv;
let files: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], options: { cwd?: string; timeout?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...env, ...options.env }, cwd: options.cwd ?? tmp, timeout: options.timeout ?? 20_000, maxBuffer: 1 << 24 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const sorted = (xs: string[]) => [...new Set(xs)].sort();

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'school-completion-'));
  const bin = join(tmp, 'bin');
  const configDir = join(tmp, 'config');
  files = join(tmp, 'files');
  await Promise.all([bin, configDir, files, join(tmp, 'home')].map((d) => mkdir(d, { recursive: true })));
  await writeFile(join(bin, 'school'), `#!/bin/sh\nexec ${shellCommand(process.execPath, join(ROOT, 'bin', 'school.cjs'))} "$@"\n`, { mode: 0o755 });
  await mkdir(join(files, 'nested'));
  await writeFile(join(files, 'notes.json'), '{}\n');

  const profile = (baseUrl: string, clientId: string) => ({ baseUrl, issuer: baseUrl, clientId, authMethod: 'none', storage: 'file' });
  await writeFile(join(configDir, 'config.json'), JSON.stringify({ version: 1, profiles: { default: profile(SCHOOL, 'cid-1'), work: profile(LIBRARY, 'cid-2') }, clients: {} }));
  const { cacheDir } = resolvePaths({ SCHOOL_CONFIG_DIR: configDir });
  const cache = async (baseUrl: string, scopes: string[], paths: string[], operations: Record<string, unknown> = {}) => {
    const servers = serverCacheFile(cacheDir, baseUrl);
    const openapi = openapiCacheFile(cacheDir, baseUrl);
    await mkdir(join(servers, '..'), { recursive: true });
    await mkdir(join(openapi, '..'), { recursive: true });
    await writeFile(servers, JSON.stringify({ baseUrl, as: { issuer: baseUrl, scopes_supported: scopes } }));
    await writeFile(openapi, JSON.stringify({ baseUrl, doc: { openapi: '3.1.0', paths: Object.fromEntries(paths.map((p) => [p, operations[p] ?? { get: {} }])) } }));
  };
  await cache(
    SCHOOL,
    ['openid', 'profile', 'email', 'courses:read', 'courses:write', 'grades:read'],
    ['/api/courses', '/api/courses/{id}', '/api/calendar', '/api/grades', '/api/me'],
    SCHOOL_OPERATIONS,
  );
  await cache(LIBRARY, ['openid', 'library:read'], ['/api/books', '/api/loans']);
  await cache(HOSTILE, HOSTILE_SCOPES, HOSTILE_PATHS);

  // A clean environment: nothing from the developer's shell setup or school settings leaks in.
  env = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: join(tmp, 'home'),
    XDG_CONFIG_HOME: join(tmp, 'home', '.config'),
    XDG_DATA_HOME: join(tmp, 'home', '.local', 'share'),
    XDG_CACHE_HOME: join(tmp, 'home', '.cache'),
    SCHOOL_CONFIG_DIR: configDir,
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    INPUTRC: '/dev/null',
  };

  // Interactive shells for the pseudo-terminal tests. Their start-up files only load the
  // completion and arm the capture, then say READY.
  await mkdir(join(tmp, 'zdot'));
  await writeFile(join(tmp, 'zdot', '.zshenv'), 'unsetopt GLOBAL_RCS\n');
  await writeFile(join(tmp, 'zdot', '.zshrc'), ZSHRC);
  await writeFile(join(tmp, 'bashrc'), BASHRC);
  await writeFile(join(tmp, 'pty.zsh'), PTY_DRIVER);
}, 60_000);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Drivers

/** Splits a line the way bash fills COMP_WORDS: at blanks, and around runs of ':', '=' and '@'. */
function compWords(line: string): string[] {
  const words = line.split(/\s+/).filter((w) => w !== '');
  if (line === '' || /\s$/.test(line)) words.push('');
  return words.flatMap((w) => (w === '' ? [''] : w.split(/([:=@]+)/).filter((p) => p !== '')));
}

const BASH_CALL = `
if [[ $1 == command ]]; then source <(school completion bash); else source "$1"; fi || exit 3
spec=$(complete -p school) || exit 4
fn=\${spec##*-F }
fn=\${fn%% *}
COMP_LINE=$2
COMP_POINT=\${#COMP_LINE}
COMP_WORDS=("\${@:3}")
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
COMPREPLY=()
"$fn" school "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"
`;

// bash 3.2 (macOS's) as far as this bash can play it: its compatibility level, and without the
// builtins bash 4 added that a completion script would use.
const BASH_32 = `BASH_COMPAT=3.2; enable -n mapfile readarray compopt || exit 5\n`;

/** bash: COMPREPLY from the function registered for `school`. */
async function bashComplete(line: string, load: 'file' | 'command' = 'file', asBash32 = false): Promise<string[]> {
  const script = asBash32 ? BASH_32 + BASH_CALL : BASH_CALL;
  const r = await run('bash', ['--norc', '--noprofile', '-c', script, 'bash', load === 'file' ? SCRIPTS.bash : 'command', line, ...compWords(line)]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

/** fish: the candidates `complete -C` prints (the text before each description). */
async function fishComplete(line: string, load: 'source' | 'command' | 'autoload' = 'source'): Promise<string[]> {
  const loader = {
    source: 'source $argv[1]',
    command: 'school completion fish | source',
    autoload: 'set -p fish_complete_path (path dirname $argv[1])',
  }[load];
  const r = await run('fish', ['--no-config', '-c', `${loader}; or exit 3; complete -C $argv[2]`, SCRIPTS.fish, line]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t')[0]);
}

const ZSHRC = `
PS1='%# ' RPS1=''
unsetopt BEEP AUTO_LIST
autoload -Uz compinit
case $SCHOOL_TEST_LOAD in
  fpath) fpath=($SCHOOL_TEST_COMPLETIONS $fpath); compinit -u -D ;;
  eval) compinit -u -D; eval "$(school completion zsh)" ;;
esac
# Every match the completion adds is recorded: compadd -O does the same matching against the
# word as compadd, and stores the matches instead of adding them. Calls that only compute into
# an array (-O, -A, -D) pass through untouched.
compadd() {
  setopt localoptions extendedglob
  local a
  for a in "$@"; do
    [[ $a == -- ]] && break
    [[ $a == -[^-]#[OAD]* ]] && { builtin compadd "$@"; return }
  done
  local -a __matches
  builtin compadd -O __matches "$@"
  (( $#__matches )) && print -rl -- $__matches >>$CAPTURE
  builtin compadd "$@"
}
_school_test_complete() {
  zle complete-word
  print -r -- "<<buffer>>$BUFFER" >>$CAPTURE
  print -r -- '<<done>>' >>$CAPTURE
}
zle -N _school_test_complete
bindkey '^I' _school_test_complete
print -r -- "<<registered>>$_comps[school]" >>$CAPTURE
print READY
`;

const BASHRC = `
source "$SCHOOL_TEST_BASH_SCRIPT"
bind 'set bell-style none'
bind -x '"\\C-x": printf "<<buffer>>%s\\n<<done>>\\n" "$READLINE_LINE" >>"$CAPTURE"'
echo "$(complete -p school)" >>"$CAPTURE"
echo READY
`;

// Starts an interactive shell on a pseudo-terminal, waits for READY, types the line and a Tab
// (for bash then C-x, bound to record the line), and waits until the record is complete.
const PTY_DRIVER = `
zmodload zsh/zpty zsh/zselect || exit 3
shell=$1 line=$2
if [[ $shell == zsh ]]; then
  zpty s zsh -i
  keys=$line$'\\t'
else
  zpty s bash --noprofile --rcfile $SCHOOL_TEST_BASHRC -i
  keys=$line$'\\t\\C-x'
fi
out='' chunk=''
integer i
for (( i = 0; i < 1000; i++ )); do
  while zpty -rt s chunk 2>/dev/null; do out+=$chunk; done
  [[ $out == *READY* ]] && break
  zselect -t 2
done
if [[ $out != *READY* ]]; then
  print -u2 -r -- "the shell did not start: $out"
  zpty -d s
  exit 4
fi
zpty -w -n s $keys
for (( i = 0; i < 1000; i++ )); do
  while zpty -rt s chunk 2>/dev/null; do out+=$chunk; done
  [[ $(<$CAPTURE) == *'<<done>>'* ]] && break
  zselect -t 2
done
zpty -d s
[[ $(<$CAPTURE) == *'<<done>>'* ]] || { print -u2 -r -- "no completion recorded: $out"; exit 5 }
`;

interface PtyResult {
  /** The matches zsh's compadd received (zsh only). */
  matches: string[];
  /** The command line after the Tab. */
  buffer: string;
  /** What the start-up recorded about the registration. */
  registered: string;
}

let ptyCount = 0;
async function ptyComplete(shell: 'zsh' | 'bash', line: string, load: 'fpath' | 'eval' = 'fpath'): Promise<PtyResult> {
  const capture = join(tmp, `capture-${++ptyCount}.txt`);
  await writeFile(capture, '');
  const r = await run('zsh', ['-f', join(tmp, 'pty.zsh'), shell, line], {
    timeout: 30_000,
    env: {
      CAPTURE: capture,
      ZDOTDIR: join(tmp, 'zdot'),
      SCHOOL_TEST_LOAD: load,
      SCHOOL_TEST_COMPLETIONS: join(ROOT, 'completions'),
      SCHOOL_TEST_BASH_SCRIPT: SCRIPTS.bash,
      SCHOOL_TEST_BASHRC: join(tmp, 'bashrc'),
    },
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const lines = (await readFile(capture, 'utf8')).split('\n').filter((l) => l !== '');
  const buffer = lines.find((l) => l.startsWith('<<buffer>>'));
  return {
    matches: lines.filter((l) => !l.startsWith('<<') && !l.startsWith('complete ')),
    buffer: buffer?.slice('<<buffer>>'.length) ?? '',
    registered: lines.find((l) => l.startsWith('<<registered>>') || l.startsWith('complete ')) ?? '',
  };
}

async function candidates(shell: Shell | 'bash 3.2', line: string): Promise<string[]> {
  if (shell === 'bash') return bashComplete(line);
  if (shell === 'bash 3.2') return bashComplete(line, 'file', true);
  if (shell === 'fish') return fishComplete(line);
  return (await ptyComplete('zsh', line)).matches;
}

// ---------------------------------------------------------------------------------------------
// The same cases in the three shells

const COMMANDS = ['login', 'logout', 'whoami', 'token', 'call', 'api', 'mcp', 'skill', 'status', 'doctor', 'completion', 'help'];
const GLOBAL_LONG = ['--base-url', '--profile', '--description', '--json', '--verbose', '--help'];
const LOGIN_LONG = [
  '--scope',
  '--add-scope',
  '--no-browser',
  '--port',
  '--timeout',
  '--confidential',
  '--insecure-storage',
  '--client-metadata-url',
  '--wait',
  '--no-wait',
  '--device',
  '--no-dpop',
  '--client-id',
  '--client-secret-stdin',
];

const CASES: Array<[string, string, string[]]> = [
  ['subcommands', 'school ', COMMANDS],
  ['a command prefix', 'school lo', ['login', 'logout']],
  ['login flags', 'school login --', [...GLOBAL_LONG, ...LOGIN_LONG]],
  ['mcp flags', 'school mcp --', [...GLOBAL_LONG, '--allow-write', '--toolsets']],
  ['profiles for --profile', 'school --profile ', ['default', 'work']],
  ['profiles for --profile after the command', 'school call --profile ', ['default', 'work']],
  ['scopes for login --scope', 'school login --scope cour', ['courses:read', 'courses:write']],
  ['scopes for login --add-scope', 'school login --add-scope cour', ['courses:read', 'courses:write']],
  // A templated path is offered up to its parameter, for the value to be typed.
  ['cached API paths for call', 'school call /api/c', ['/api/calendar', '/api/courses', '/api/courses/']],
  ['the paths of the --profile on the line', 'school --profile work call /api/', ['/api/books', '/api/loans']],
  ['the paths of the --base-url on the line', `school call --base-url ${LIBRARY} /api/`, ['/api/books', '/api/loans']],
  ['scopes of the --profile on the line', 'school login --profile work --scope ', ['openid', 'library:read']],
  ['scopes after a global flag', 'school login --json --scope open', ['openid']],
  ['global flags after the command', 'school login --j', ['--json']],
  ['HTTP methods for call -X', 'school call -X ', METHODS],
  ['HTTP methods for call --method', 'school call --method P', ['POST', 'PUT', 'PATCH']],
  ['HTTP methods after a cluster of short flags', 'school call -iX P', ['POST', 'PUT', 'PATCH']],
  ['the path after a cluster of short flags and its value', 'school call -iX POST /api/m', ['/api/me']],
  ['shells for completion', 'school completion ', ['bash', 'zsh', 'fish', 'powershell']],
  ['commands for help', 'school help st', ['status']],
  ['help topics for help', 'school help e', ['environment', 'errors', 'exit-codes']],
  ['nothing but flags after the path', 'school call /api/me /', []],
  ['only the plain paths a hostile server names', `school call --base-url ${HOSTILE} /api/`, ['/api/ok']],
  ['only the plain scopes a hostile server names', `school login --base-url ${HOSTILE} --scope `, ['evil:read']],
  ['the API operations for api', 'school api ', SCHOOL_OPERATION_NAMES],
  ['an API operation prefix', 'school api get-api-', ['get-api-calendar', 'get-api-grades', 'get-api-me']],
  ['the operations of the --profile on the line', 'school --profile work api ', ['get-api-books', 'get-api-loans']],
  ["an operation's flags, its own and every operation's", 'school api list-courses --', ['--status', '--limit', ...API_BUILTIN_LONG, ...GLOBAL_LONG]],
  ["an operation's flags by prefix", 'school api list-courses --s', ['--status', '--slurp']],
  ["a body field's flag", 'school api create-course --t', ['--title', '--timeout']],
  ["the plain enum values of an operation's flag", 'school api list-courses --status ', ['active', 'archived']],
  ['the values of a flag of api after the operation', 'school api list-courses --format ', ['json', 'table']],
  ['profiles for --profile after the operation', 'school api list-courses --profile ', ['default', 'work']],
  ['the flags of an operation after flags of api and their values', 'school api --dry-run --format json list-courses --st', ['--status']],
  ["an operation's enum value after flags of api", 'school api -i --jq . list-courses --status ac', ['active']],
  ["an operation's enum value by prefix", 'school --profile default api list-courses --limit 5 --status ar', ['archived']],
  // Each media type as --content-type takes it (parameters aside), none a shell or a terminal would act on.
  ['the media types the operation offers, for --content-type', 'school api create-course --content-type ', COURSE_MEDIA_TYPES],
  ['media types by prefix', 'school api --dry-run create-course --title T --content-type application/', COURSE_MEDIA_TYPES.filter((t) => t.startsWith('application/'))],
  ['no media types for an operation without a body', 'school api list-courses --content-type ', []],
  ['no media types before the operation', 'school api --content-type ', []],
];

describe.concurrent.each(['bash', 'bash 3.2', 'zsh', 'fish'] as const)('%s completion', (shell) => {
  it.each(CASES)('completes %s', async (_name, line, want) => {
    expect(sorted(await candidates(shell, line))).toEqual(sorted(want));
  });

  it('completes --content-type=<value> with the media types of the operation on the line', async () => {
    // fish shows the whole word; the others the part after '='.
    const got = await candidates(shell, 'school api create-course --content-type=text');
    expect(got.map((c) => c.replace(/^--content-type=/, ''))).toEqual(['text/csv']);
  });

  it('completes every flag of call, short forms included', async () => {
    const got = await candidates(shell, 'school call -');
    expect(got).toEqual(expect.arrayContaining(['-X', '--method', '-H', '--header', '-f', '--raw-field', '-F', '--field', '--input', '-i', '--include', '--anonymous', '--list', '-h', '--help']));
  });

  it('offers --version before the command only', async () => {
    expect(await candidates(shell, 'school --v')).toEqual(expect.arrayContaining(['--version', '--verbose']));
    expect(await candidates(shell, 'school login --v')).toEqual(['--verbose']);
  });

  it('does not offer the hidden command', async () => {
    expect(await candidates(shell, 'school _')).toEqual([]);
  });
});

describe.concurrent('bash completion, details', () => {
  it('completes the last item of a comma-separated scope list, leaving out those already there', async () => {
    // A ':' ends a word for readline, so after "courses:" only the rest of the scope is offered.
    expect(sorted(await bashComplete('school login --scope openid,'))).toEqual(sorted(['openid,profile', 'openid,email', 'openid,courses:read', 'openid,courses:write', 'openid,grades:read']));
    expect(sorted(await bashComplete('school login --scope openid,courses:'))).toEqual(['read', 'write']);
    expect(await bashComplete('school login --scope=prof')).toEqual(['profile']);
    expect(sorted(await bashComplete('school login --add-scope courses:read,cour'))).toEqual(['read,courses:write']);
  });

  it('completes --profile=<value>', async () => {
    expect(sorted(await bashComplete('school --profile='))).toEqual(['default', 'work']);
  });

  it('completes file names for --input and after -F key=@', async () => {
    expect(sorted(await bashComplete(`school call --input ${files}/`))).toEqual(sorted([`${files}/nested/`, `${files}/notes.json`]));
    expect(await bashComplete(`school call -F body=@${files}/no`)).toEqual([`@${files}/notes.json`]);
  });

  it('quotes a candidate that is not a plain name, so it cannot run as shell syntax', async () => {
    // An older or foreign `school` on PATH answering with shell syntax: the script quotes it itself.
    const fakeBin = join(tmp, 'fake-bin');
    await mkdir(fakeBin, { recursive: true });
    await writeFile(join(fakeBin, 'school'), `#!/bin/sh\nprintf '%s\\n' '/api/x;touch$IFS/tmp/pwned' '/api/$(id)' '/api/ok'\n`, { mode: 0o755 });
    const line = 'school call /api/';
    const r = await run('bash', ['--norc', '--noprofile', '-c', BASH_CALL, 'bash', SCRIPTS.bash, line, ...compWords(line)], { env: { PATH: `${fakeBin}:${env.PATH}` } });
    expect(r.stderr).toBe('');
    const got = r.stdout.split('\n').filter((l) => l !== '');
    expect(sorted(got)).toEqual(sorted(['/api/x\\;touch\\$IFS/tmp/pwned', '/api/\\$\\(id\\)', '/api/ok']));
    // What readline would insert, read back by the shell, is the name itself and runs nothing.
    const echoed = await run('bash', ['--norc', '--noprofile', '-c', `printf '%s\\n' ${got.join(' ')}`]);
    expect(sorted(echoed.stdout.split('\n').filter((l) => l !== ''))).toEqual(sorted(['/api/x;touch$IFS/tmp/pwned', '/api/$(id)', '/api/ok']));
  });

  it("completes scope lists, --profile=, quoted values and file names with bash 3.2's features too", async () => {
    for (const line of ['school login --scope openid,', 'school login --scope openid,courses:', 'school --profile=', "school --profile='work' call /api/"]) {
      expect(sorted(await bashComplete(line, 'file', true)), line).toEqual(sorted(await bashComplete(line)));
    }
    expect(sorted(await bashComplete(`school call --input ${files}/`, 'file', true))).toEqual(sorted([`${files}/nested/`, `${files}/notes.json`]));
    expect(await bashComplete(`school call -F body=@${files}/no`, 'file', true)).toEqual([`@${files}/notes.json`]);
  });

  it('uses nothing bash 3.2 lacks', async () => {
    const script = await readFile(SCRIPTS.bash, 'utf8');
    const code = script
      .split('\n')
      .filter((l) => !/^\s*#/.test(l))
      .join('\n');
    // mapfile/readarray, associative arrays, case changes, namerefs, negative subscripts, |&, &>>, ;& and ;;&, coproc, declare -g.
    for (const bash4 of [/\b(mapfile|readarray|coproc)\b/, /\b(declare|local|typeset)\s+-[a-zA-Z]*[An]/, /\$\{[^}]*(,,|\^\^)\}/, /\$\{[^}]*\[-\d+\]\}/, /\|&/, /&>>/, /;;?&/, /declare\s+-g/]) {
      expect(code, String(bash4)).not.toMatch(bash4);
    }
  });

  it('works when loaded with source <(school completion bash)', async () => {
    expect(await bashComplete('school lo', 'command')).toEqual(['login', 'logout']);
  });

  it.each([
    ['school lo', 'school log'],
    ['school login --scope courses:r', 'school login --scope courses:read '],
    ['school login --scope openid,courses:w', 'school login --scope openid,courses:write '],
    ['school --profile=wo', 'school --profile=work '],
    [`school --base-url ${LIBRARY} call /api/bo`, `school --base-url ${LIBRARY} call /api/books `],
    ['school call -X PA', 'school call -X PATCH '],
    ['school api create-course --content-type application/merge', 'school api create-course --content-type application/merge-patch+json '],
  ])('readline turns "%s" into "%s"', async (line, want) => {
    const r = await ptyComplete('bash', line);
    expect(r.registered).toBe('complete -F _school school');
    expect(r.buffer).toBe(want);
  });

  it('readline keeps the @ of -F key=@file', async () => {
    // bash leaves '@' in the word it replaces although '@' is in COMP_WORDBREAKS.
    const r = await ptyComplete('bash', `school call -F body=@${files}/no`);
    expect(r.buffer).toBe(`school call -F body=@${files}/notes.json `);
  });
});

describe.concurrent('zsh completion, details', () => {
  it('is autoloaded from $fpath by compinit', async () => {
    const r = await ptyComplete('zsh', 'school lo');
    expect(r.registered).toBe('<<registered>>_school');
    expect(r.buffer).toBe('school log');
  });

  it('works when loaded with eval "$(school completion zsh)"', async () => {
    const r = await ptyComplete('zsh', 'school login --scope cour', 'eval');
    expect(r.registered).toBe('<<registered>>_school');
    expect(sorted(r.matches)).toEqual(['courses:read', 'courses:write']);
  });

  it('completes the last item of a comma-separated scope list, leaving out those already there', async () => {
    const r = await ptyComplete('zsh', 'school login --scope openid,email,c');
    expect(sorted(r.matches)).toEqual(['courses:read', 'courses:write']);
    const one = await ptyComplete('zsh', 'school login --scope openid,courses:w');
    expect(one.buffer).toBe('school login --scope openid,courses:write,');
  });

  it('completes --profile=<value>', async () => {
    expect(sorted((await ptyComplete('zsh', 'school --profile=')).matches)).toEqual(['default', 'work']);
  });

  it('completes file names for --input and after -F key=@', async () => {
    expect((await ptyComplete('zsh', `school call --input ${files}/no`)).buffer).toBe(`school call --input ${files}/notes.json `);
    expect((await ptyComplete('zsh', `school call -F body=@${files}/no`)).buffer).toBe(`school call -F body=@${files}/notes.json `);
  });

  it('passes the syntax check', async () => {
    const r = await run('zsh', ['-n', SCRIPTS.zsh]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
  });
});

describe.concurrent('fish completion, details', () => {
  it('completes the last item of a comma-separated scope list, leaving out those already there', async () => {
    expect(sorted(await fishComplete('school login --scope openid,email,c'))).toEqual(['openid,email,courses:read', 'openid,email,courses:write']);
    expect(sorted(await fishComplete('school login --add-scope=openid,c'))).toEqual(['--add-scope=openid,courses:read', '--add-scope=openid,courses:write']);
  });

  it('completes file names for --input and after -F key=@', async () => {
    expect(await fishComplete(`school call --input ${files}/no`)).toEqual([`${files}/notes.json`]);
    expect(await fishComplete(`school call -F body=@${files}/no`)).toEqual([`body=@${files}/notes.json`]);
  });

  it('works when autoloaded from fish_complete_path and when piped to source', async () => {
    expect(sorted(await fishComplete('school lo', 'autoload'))).toEqual(['login', 'logout']);
    expect(sorted(await fishComplete('school lo', 'command'))).toEqual(['login', 'logout']);
  });
});

// ---------------------------------------------------------------------------------------------
// The scripts stay in step with the command tree

const program = await buildProgram(
  () => {
    throw new Error('no command runs here');
  },
  () => undefined,
);

describe.concurrent('the scripts cover the whole command tree', () => {
  const help = program.createHelp();
  const flagsOf = (cmd: typeof program) => help.visibleOptions(cmd).flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
  const commands = help.visibleCommands(program);
  // Global options are accepted after the command too; --version only makes sense before it.
  const globalFlags = flagsOf(program).filter((f) => f !== '--version');

  it('knows the commands and flags it checks', () => {
    expect(commands.map((c) => c.name())).toEqual(expect.arrayContaining(['login', 'call', 'completion']));
    expect(flagsOf(program)).toEqual(expect.arrayContaining(['--base-url', '--profile', '--version', '-h']));
  });

  describe.each(['bash', 'bash 3.2', 'zsh', 'fish'] as const)('%s', (shell) => {
    it('completes exactly the visible commands', async () => {
      expect(sorted(await candidates(shell, 'school '))).toEqual(sorted(commands.map((c) => c.name())));
    });

    it('completes every global flag', async () => {
      expect(await candidates(shell, 'school -')).toEqual(expect.arrayContaining(flagsOf(program)));
    });

    it.each(commands.map((c) => [c.name(), c] as const))('completes every flag of %s', async (name, cmd) => {
      const got = await candidates(shell, `school ${name} -`);
      expect(got).toEqual(expect.arrayContaining([...flagsOf(cmd), ...globalFlags]));
      // and nothing the command does not accept
      const known = new Set([...flagsOf(cmd), ...flagsOf(program)]);
      expect(got.filter((f) => !known.has(f))).toEqual([]);
    });
  });
});

describe('the PowerShell script, read (no PowerShell runs here)', async () => {
  const script = await readFile(POWERSHELL_SCRIPT, 'utf8');
  const help = program.createHelp();
  const flagsOf = (cmd: typeof program) => help.visibleOptions(cmd).flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
  const list = (name: string) => {
    const m = new RegExp(`\\$${name} = @\\(([^)]*)\\)`).exec(script);
    expect(m, name).not.toBeNull();
    return [...m![1].matchAll(/'([^']*)'/g)].map((x) => x[1]);
  };
  const commandFlags = (name: string) => {
    const m = new RegExp(`\\n\\s+${name}\\s+= @\\(([^)]*)\\)`).exec(script);
    return m ? [...m[1].matchAll(/'([^']*)'/g)].map((x) => x[1]) : [];
  };

  it('registers a native completer for school that asks `school __complete` for profiles, scopes and paths', () => {
    expect(script).toMatch(/^Register-ArgumentCompleter -Native -CommandName 'school' -ScriptBlock \{$/m);
    expect(script).toContain('& school @context __complete $kind');
    for (const kind of ['profiles', 'scopes', 'paths', 'api-operations']) expect(script).toContain(`& $fromSchool '${kind}'`);
  });

  it("asks for an operation's flags and their values once the operation is on the line", () => {
    expect(script).toContain("elseif ($cmd -ceq 'api' -and $nargs -eq 0) { & $add '' (& $fromSchool 'api-operations') }");
    expect(script).toContain("& $add '' (& $fromSchool @('api-flags', $first))");
    expect(script).toContain("& $add '' (& $fromSchool @('api-values', $first, ([string]$words[$words.Count - 1]).Substring(2)))");
  });

  it('asks for the media types of the operation on the line for --content-type, and none before one', () => {
    expect(script).toContain("elseif (($valueOf -ceq '--content-type') -and $first -and ($cmd -ceq 'api')) {");
    expect(script).toContain("& $add $keep (& $fromSchool @('api-media-types', $first))");
    expect(script).toContain('if ($nargs -eq 0) { $first = $w }');
  });

  it('knows exactly the visible commands, the shells, and every flag of each command', () => {
    expect(sorted(list('commands'))).toEqual(sorted(help.visibleCommands(program).map((c) => c.name())));
    expect(list('shells')).toEqual(['bash', 'zsh', 'fish', 'powershell']);
    const globals = flagsOf(program).filter((f) => f !== '--version');
    expect(sorted(list('globalFlags'))).toEqual(sorted(globals));
    for (const cmd of help.visibleCommands(program)) {
      expect(sorted([...list('globalFlags'), ...commandFlags(cmd.name())]), cmd.name()).toEqual(sorted([...new Set([...flagsOf(cmd), ...globals])]));
    }
  });

  it('knows every option that takes a value', () => {
    const takes = (cmd: typeof program) =>
      help
        .visibleOptions(cmd)
        .filter((o) => o.required || o.optional)
        .flatMap((o) => [o.short, o.long].filter((f): f is string => Boolean(f)));
    const all = [...takes(program), ...help.visibleCommands(program).flatMap(takes)];
    expect(sorted(list('takesValue'))).toEqual(sorted(all));
  });

  it('compares flags case-sensitively (-H takes a value, -h does not) and quotes what is not a plain name', () => {
    const code = script
      .split('\n')
      .filter((l) => !/^\s*#/.test(l))
      .join('\n');
    expect(code).not.toMatch(/\s-(contains|notcontains|eq|like|match|notmatch)\s+['"$]-/);
    expect(code).toContain(`$insert = "'" + $text.Replace("'", "''") + "'"`);
  });
});

// ---------------------------------------------------------------------------------------------
// `school completion <shell>`

describe('school completion <shell>', () => {
  it.each(['bash', 'zsh', 'fish'] as const)('prints completions/ for %s byte for byte, from any directory', async (shell) => {
    const out = await new Promise<Buffer>((resolve, reject) => {
      execFile('school', ['completion', shell], { env, cwd: tmpdir(), encoding: 'buffer' }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    expect(out.equals(await readFile(SCRIPTS[shell]))).toBe(true);
  });

  it('prints completions/school.ps1 for powershell byte for byte, from any directory', async () => {
    const out = await new Promise<Buffer>((resolve, reject) => {
      execFile('school', ['completion', 'powershell'], { env, cwd: tmpdir(), encoding: 'buffer' }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    expect(out.equals(await readFile(POWERSHELL_SCRIPT))).toBe(true);
  });

  it('rejects an unknown shell with exit status 2', async () => {
    const r = await run('school', ['completion', 'ksh']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Unknown shell "ksh": use bash, zsh, fish or powershell.');
  });

  it.each([
    ['bash', ['-n']],
    ['fish', ['--no-execute']],
  ] as const)('the %s script passes the syntax check', async (shell, args) => {
    const r = await run(shell, [...args, SCRIPTS[shell]]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
  });
});
