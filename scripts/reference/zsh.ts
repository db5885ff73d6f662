// The zsh completion script (completions/_school), made from the table.
import { flagHelp, flagWords } from '../../src/commands/syntax.js';
import type { ArgumentSpec, CompletionKind, FlagSpec } from '../../src/commands/table.js';
import { GLOBAL_FLAGS } from '../../src/commands/table.js';
import { HELP_FLAG, OPERATION_COMMANDS, TOPICS, VERSION_FLAG, VISIBLE, pairOf } from './model.js';

/** Text inside single quotes. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A description inside _arguments' brackets: `]` and `\` escaped. */
function bracketed(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\]/g, '\\]');
}

/** The action of _arguments that completes a value of this kind. */
function action(complete: CompletionKind | undefined): string {
  switch (complete?.kind) {
    case 'profiles':
      return '_school_profiles';
    case 'scopes':
      return '_school_scopes';
    case 'paths':
      return '_school_paths';
    case 'operations':
      return '_school_operations';
    case 'files':
      return '_files';
    case 'field':
      return '_school_field';
    case 'words':
      return `(${complete.words.join(' ')})`;
    case 'topics':
      return '_school_topics';
    default:
      return ' ';
  }
}

/** One flag as _arguments takes it: exclusions, repetition, names, description, value. */
function flagSpec(flag: FlagSpec, flags: readonly FlagSpec[]): string {
  const pair = pairOf(flags, flag);
  const names = [...(flag.short ? [`-${flag.short}`] : []), `--${flag.name}`];
  // A repeated flag excludes nothing, not even itself.
  const exclusions = flag.repeat ? '' : flag.short ? `(${names.join(' ')})` : pair ? `(--${pair.name})` : '';
  const repeat = flag.repeat ? '*' : '';
  const value = flag.value ? `:${flag.value.placeholder}:${action(flag.complete)}` : '';
  const describe = `[${bracketed(flagHelp(flag))}]${value}`;
  if (flag.short) {
    const forms = flag.value ? `{-${flag.short}+,--${flag.name}=}` : `{-${flag.short},--${flag.name}}`;
    return `${quoted(`${repeat}${exclusions}`)}${forms}${quoted(describe)}`;
  }
  return quoted(`${repeat}${exclusions}--${flag.name}${flag.value ? '=' : ''}${describe}`);
}

function argumentSpec(arg: ArgumentSpec, position: number): string {
  return quoted(`${position}:${arg.name}:${action(arg.complete)}`);
}

export function zshScript(): string {
  const commands = VISIBLE.map((c) => `    ${quoted(`${c.name}:${c.description}`)}`).join('\n');
  const topics = TOPICS.map((t) => `    ${quoted(`${t.name}:${t.description}`)}`).join('\n');
  const globals = [...GLOBAL_FLAGS, HELP_FLAG].map((f) => `    ${flagSpec(f, GLOBAL_FLAGS)}`).join('\n');
  const cases = VISIBLE.filter((c) => c.flags.length || c.args.length)
    .map((c) => {
      const specs = [...c.flags.map((f) => flagSpec(f, c.flags)), ...c.args.map((a, i) => argumentSpec(a, i + 1))];
      if (OPERATION_COMMANDS.includes(c.name)) {
        // The global flags and the command's own keep their completion after the operation.
        const valueCases = [...GLOBAL_FLAGS, ...c.flags]
          .filter((f) => f.value && f.complete && f.complete.kind !== 'none')
          .map((f) => {
            const act = action(f.complete);
            // The media types are the operation's: asked for with it.
            const call = f.complete?.kind === 'media-types' ? '_school_media_types $operation' : act.startsWith('(') ? `compadd -- ${act.slice(1, -1)}` : act;
            return `            ${[...(f.short ? [`-${f.short}`] : []), `--${f.name}`].join('|')})\n              ${call} && ret=0 ;;`;
          })
          .join('\n');
        const takesValue = [...GLOBAL_FLAGS, ...c.flags]
          .filter((f) => f.value)
          .flatMap(flagWords)
          .join('|');
        const table = `        _arguments -s $globals \\\n${specs.map((s) => `          ${s} \\\n`).join('')}          && ret=0`;
        return `    ${c.name})
      # After the operation, its own flags and their values, from the cached API description.
      # The operation is the first word before the cursor that is neither a flag nor a flag's value.
      local expl operation='' i
      for (( i = 2; i < CURRENT; i++ )); do
        case $words[i] in
          ${takesValue}) (( i++ )) ;;
          -*) ;;
          *) operation=$words[i]; break ;;
        esac
      done
      if [[ -n $operation ]]; then
        # The flag whose value is typed: the word before, or the flag of --flag=value.
        local flag=$words[CURRENT-1] inline=''
        if [[ $PREFIX == --?*=* ]]; then
          flag=\${PREFIX%%=*} inline=1
          compset -P '*='
        fi
        if [[ -z $inline && $PREFIX == -* ]]; then
          local -a flags=(\${(f)"$(_school_ask api-flags $operation)"})
          _wanted flags expl flag compadd -a flags && ret=0
        else
          case $flag in
${valueCases}
            --?*)
              local -a values=(\${(f)"$(_school_ask api-values $operation \${flag#--})"})
              (( $#values )) && _wanted values expl value compadd -a values && ret=0 ;;
          esac
        fi
      else
${table}
      fi ;;`;
      }
      return `    ${c.name})\n      _arguments -s $globals \\\n${specs.map((s) => `        ${s} \\\n`).join('')}        && ret=0 ;;`;
    })
    .join('\n');
  return `#compdef school
# zsh completion for school
#
# Made from the command table (src/commands/table.ts) by the build: edit the table, not this file.
# Install: put this file, named _school, in a directory on $fpath before compinit runs.
# Or load it in a shell where compinit has run:  source <(school completion zsh)
# Profiles, scopes and API paths come from \`school __complete\`, which reads local caches only,
# so completing never waits on the network.

# Candidates of one kind (and its words), one a line, for the --profile/--base-url already on the
# command line. Reads the words saved by _school: inside a subcommand $words no longer holds the
# global options.
_school_ask() {
  local -a ctx
  local i w
  for (( i = 2; i < _school_current; i++ )); do
    w=\${_school_words[i]}
    [[ $w == -- ]] && break
    case $w in
      --profile|--base-url) (( i + 1 < _school_current )) && ctx+=($w \${(Q)_school_words[i+1]}) ;;
      --profile=*|--base-url=*) ctx+=(\${(Q)w}) ;;
    esac
  done
  command school $ctx __complete "$@" 2>/dev/null
}

_school_commands() {
  local -a commands=(
${commands}
  )
  _describe -t commands 'school command' commands
}

# After \`school help\`: a command, or one of the topics.
_school_topics() {
  local -a topics=(
${topics}
  )
  _school_commands
  _describe -t topics 'help topic' topics
}

_school_profiles() {
  local -a profiles=(\${(f)"$(_school_ask profiles)"})
  local expl
  _wanted profiles expl profile compadd -a profiles
}

# --scope takes a list separated by commas (or spaces inside quotes): complete its last item,
# leaving out the ones already there. The comma added after it goes away if a space follows.
_school_scopes() {
  local -a scopes=(\${(f)"$(_school_ask scopes)"}) chosen
  if [[ $PREFIX == *[,\\ ]* ]]; then
    chosen=(\${=\${\${PREFIX%[, ]*}//,/ }})
    scopes=(\${scopes:|chosen})
    compset -P '*[, ]'
  fi
  local expl
  _wanted scopes expl scope compadd -q -S , -a scopes
}

_school_paths() {
  local -a api_paths=(\${(f)"$(_school_ask paths)"})
  local expl
  _wanted api-paths expl 'API path' compadd -a api_paths
}

_school_operations() {
  local -a operations=(\${(f)"$(_school_ask api-operations)"})
  local expl
  _wanted operations expl operation compadd -a operations
}

# The media types operation $1 offers (for --content-type), from the cached API description.
_school_media_types() {
  local -a types=(\${(f)"$(_school_ask api-media-types $1)"})
  local expl
  (( $#types )) && _wanted media-types expl 'media type' compadd -a types
}

# -F key=@file reads the file: complete the file name after the @.
_school_field() {
  if compset -P '*=@'; then
    _files
  else
    _message 'key=value (number, true/false, null, @file)'
  fi
}

_school() {
  local -a _school_words=("\${words[@]}")
  local _school_current=$CURRENT
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args

  local -a globals=(
${globals}
  )

  # -A: options after the command belong to the command's own _arguments below, which also
  # knows the global ones; without it this call would claim them and stop there.
  _arguments -C -A '-*' $globals \\
    ${flagSpec(VERSION_FLAG, [])} \\
    '1:command:_school_commands' \\
    '*::argument:->command' && ret=0

  [[ $state == command ]] || return ret
  curcontext=\${curcontext%:*:*}:school-$words[1]:
  case $words[1] in
${cases}
    *)
      _arguments -s $globals && ret=0 ;;
  esac
  return ret
}

# Autoloaded from $fpath, this file is the body of _school: complete now. Sourced or evaluated,
# it only defines the functions: register them.
if [[ $funcstack[1] == _school ]]; then
  _school "$@"
elif (( $+functions[compdef] )); then
  compdef _school school
else
  print -u2 'school: run compinit before loading its completion'
fi
`;
}
