// The fish completion script (completions/school.fish), made from the table.
import { flagHelp } from '../../src/commands/syntax.js';
import type { CompletionKind, FlagSpec } from '../../src/commands/table.js';
import { GLOBAL_FLAGS } from '../../src/commands/table.js';
import { COMPLETED_ARGS, HELP_FLAG, OPERATION_COMMANDS, TOPICS, VALUE_FLAGS, VERSION_FLAG, VISIBLE, capitalised } from './model.js';

/** A word for fish: single-quoted, or double-quoted when it holds a single quote. */
function quoted(text: string): string {
  return text.includes("'") ? `"${text.replace(/["$\\]/g, (c) => `\\${c}`)}"` : `'${text}'`;
}

/** The options of `complete` that offer a value of this kind (none for a switch). */
function valueOptions(flag: FlagSpec): string {
  if (!flag.value) return '';
  const complete: CompletionKind | undefined = flag.complete;
  switch (complete?.kind) {
    case 'files':
      return ' -r -F';
    case 'profiles':
      return " -x -a '(__school_complete profiles)'";
    case 'scopes':
      return " -x -a '(__school_scopes)'";
    case 'field':
      return " -x -a '(__school_field)'";
    case 'words':
      return ` -x -a ${quoted(complete.words.join(' '))}`;
    case 'media-types':
      return " -x -a '(__school_media_types)'";
    default:
      return ' -x';
  }
}

function flagLine(flag: FlagSpec, condition: string): string {
  return `complete -c school${condition}${flag.short ? ` -s ${flag.short}` : ''} -l ${flag.name}${valueOptions(flag)} -d ${quoted(capitalised(flagHelp(flag)))}`;
}

export function fishScript(): string {
  const valueWords = VALUE_FLAGS.flatMap((f) => [`--${f.name}`, ...(f.short ? [`-${f.short}`] : [])]);
  const shortValueLetters = VALUE_FLAGS.flatMap((f) => (f.short ? [f.short] : [])).join('');
  const globals = [...GLOBAL_FLAGS, HELP_FLAG].map((f) => flagLine(f, '')).join('\n');
  const commands = VISIBLE.map((c) => `complete -c school -n __school_needs_command -a ${c.name} -d ${quoted(capitalised(c.description))}`).join('\n');
  const perCommand = VISIBLE.filter((c) => c.flags.length)
    .map((c) => `# ${c.name}\n${c.flags.map((f) => flagLine(f, ` -n '__school_using ${c.name}'`)).join('\n')}`)
    .join('\n\n');
  const args = COMPLETED_ARGS.map(({ command, arg, complete }) => {
    const candidates =
      complete.kind === 'paths'
        ? "'(__school_complete paths)'"
        : complete.kind === 'topics'
          ? quoted([...VISIBLE.map((c) => c.name), ...TOPICS.map((t) => t.name)].join(' '))
          : complete.kind === 'operations'
            ? "'(__school_complete api-operations)'"
            : complete.kind === 'words'
              ? quoted(complete.words.join(' '))
              : complete.kind === 'profiles'
                ? "'(__school_complete profiles)'"
                : "'(__school_scopes)'";
    return `complete -c school -n '__school_first_arg ${command}' -a ${candidates} -d ${quoted(capitalised(arg.name))}`;
  }).join('\n');
  const operations = OPERATION_COMMANDS.map(
    (command) =>
      `complete -c school -n '__school_using ${command}' -a '(__school_operation ${command} flags)' -d 'Flag'\ncomplete -c school -n '__school_using ${command}' -a '(__school_operation ${command} values)' -d 'Value'`,
  ).join('\n');
  return `# fish completion for school
#
# Made from the command table (src/commands/table.ts) by the build: edit the table, not this file.
# Install: copy this file to ~/.config/fish/completions/school.fish
# Or load it in the current shell:  school completion fish | source
# Profiles, scopes and API paths come from \`school __complete\`, which reads local caches only,
# so completing never waits on the network.

# Prints three lines: the subcommand on the command line (empty if none yet), how many
# arguments it has before the cursor, and the first of them (empty if none). The values of
# options are skipped, so that \`school --profile work call\` is the call command.
function __school_state
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cmd ''
    set -l nargs 0
    set -l first ''
    set -l skip 0
    set -l dashdash 0
    for t in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        if test $dashdash = 0
            switch $t
                case --
                    set dashdash 1
                    continue
                case ${valueWords.join(' ')}
                    set skip 1
                    continue
                case '-*'
                    # In a cluster such as -iX, a last short option that takes a value takes the next word.
                    string match -qr -- '^-[^-${shortValueLetters}]*[${shortValueLetters}]$' $t; and set skip 1
                    continue
            end
        end
        if test -z "$cmd"
            set cmd $t
        else
            test $nargs = 0; and set first $t
            set nargs (math $nargs + 1)
        end
    end
    printf '%s\\n' "$cmd" $nargs "$first"
end

function __school_needs_command
    set -l state (__school_state)
    test -z "$state[1]"
end

function __school_using -a name
    set -l state (__school_state)
    test "$state[1]" = "$name"
end

# True at the first argument of the given subcommand.
function __school_first_arg -a name
    set -l state (__school_state)
    test "$state[1]" = "$name" -a "$state[2]" = 0
end

# Candidates of one kind (and its words), for the --profile/--base-url already on the command line.
function __school_complete
    set -l tokens (commandline -opc)
    set -l ctx
    set -l n (count $tokens)
    for i in (seq 2 $n)
        switch $tokens[$i]
            case --
                break
            case --profile --base-url
                if test $i -lt $n
                    set -a ctx $tokens[$i] $tokens[(math $i + 1)]
                end
            case '--profile=*' '--base-url=*'
                set -a ctx $tokens[$i]
        end
    end
    command school $ctx __complete $argv 2>/dev/null
end

# After the operation of \`school <name> <operation>\`: the operation's flags, or the values of
# the flag before the cursor (its enum values, true/false), from the cached API description.
function __school_operation -a name what
    set -l state (__school_state)
    test "$state[1]" = "$name" -a -n "$state[3]"; or return
    switch $what
        case flags
            string match -q -- '-*' (commandline -ct); and __school_complete api-flags $state[3]
        case values
            set -l tokens (commandline -opc)
            string match -q -- '--?*' $tokens[-1]; or return
            __school_complete api-values $state[3] (string replace -r -- '^--' '' $tokens[-1])
    end
end

# The media types the operation on the line offers (for --content-type), from the cached API
# description; none before the operation.
function __school_media_types
    set -l state (__school_state)
    contains -- "$state[1]" ${OPERATION_COMMANDS.join(' ')}; and test -n "$state[3]"; or return
    __school_complete api-media-types $state[3]
end

# --scope takes a list separated by commas: complete its last item, leaving out the ones
# already there.
function __school_scopes
    set -l token (string replace -r -- '^--[a-z-]+=' '' (commandline -ct))
    set -l head (string match -r -- '^.*,' $token)
    set -l chosen (string split , -- $head)
    for scope in (__school_complete scopes)
        contains -- $scope $chosen; or printf '%s%s\\n' "$head" $scope
    end
end

# -F key=@file reads the file: complete the file name after the @.
function __school_field
    set -l token (string replace -r -- '^--[a-z-]+=' '' (commandline -ct))
    set -l head (string match -r -- '^[^=]*=@' $token)
    or return
    for path in (__fish_complete_path (string sub -s (math (string length -- $head) + 1) -- $token))
        printf '%s%s\\n' $head $path
    end
end

# No file names unless an option takes a file.
complete -c school -f

# Options every command accepts.
${globals}
${flagLine(VERSION_FLAG, ' -n __school_needs_command')}

# Commands.
${commands}

${perCommand}

# Arguments.
${args}

# The operations' own flags and values.
${operations}
`;
}
