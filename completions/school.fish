# fish completion for school
#
# Install: copy this file to ~/.config/fish/completions/school.fish
# Or load it in the current shell:  school completion fish | source
# Profiles, scopes and API paths come from `school __complete`, which reads local caches only,
# so completing never waits on the network.

# Prints two lines: the subcommand on the command line (empty if none yet) and how many
# arguments it has before the cursor. The values of options are skipped, so that
# `school --profile work call` is the call command.
function __school_state
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cmd ''
    set -l nargs 0
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
                case --base-url --profile --scope --add-scope --port --timeout --client-metadata-url --min-ttl -X --method -H --header -f --raw-field -F --field --input --jq --retry --format --columns
                    set skip 1
                    continue
                case '-*'
                    # In a cluster such as -iX, a last short option that takes a value takes the next word.
                    string match -qr -- '^-[^-XHfF]*[XHfF]$' $t; and set skip 1
                    continue
            end
        end
        if test -z "$cmd"
            set cmd $t
        else
            set nargs (math $nargs + 1)
        end
    end
    printf '%s\n' "$cmd" $nargs
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

# Candidates of one kind, for the --profile/--base-url already on the command line.
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

# For `school api <operation>`: the operation's flags, or the values of the flag before the
# cursor (its enum values, true/false), from the cached API description.
function __school_api -a what
    set -l tokens (commandline -opc)
    set -l op ''
    set -l seen 0
    set -l skip 0
    for t in $tokens[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $t
            case --base-url --profile --input --format --columns --jq --timeout --retry
                set skip 1
                continue
            case '-*'
                continue
        end
        if test $seen = 0
            test "$t" = api; or return
            set seen 1
        else
            set op $t
            break
        end
    end
    test -n "$op"; or return
    switch $what
        case flags
            string match -q -- '-*' (commandline -ct); and __school_complete api-flags $op
        case values
            set -l prev $tokens[-1]
            string match -q -- '--?*' $prev; or return
            __school_complete api-values $op (string replace -r -- '^--' '' $prev)
    end
end

# --scope takes a list separated by commas: complete its last item, leaving out the ones
# already there.
function __school_scopes
    set -l token (string replace -r -- '^--(add-)?scope=' '' (commandline -ct))
    set -l head (string match -r -- '^.*,' $token)
    set -l chosen (string split , -- $head)
    for scope in (__school_complete scopes)
        contains -- $scope $chosen; or printf '%s%s\n' "$head" $scope
    end
end

# -F key=@file reads the file: complete the file name after the @.
function __school_field
    set -l token (string replace -r -- '^--field=' '' (commandline -ct))
    set -l head (string match -r -- '^[^=]*=@' $token)
    or return
    for path in (__fish_complete_path (string sub -s (math (string length -- $head) + 1) -- $token))
        printf '%s%s\n' $head $path
    end
end

# No file names unless an option takes a file.
complete -c school -f

# Options every command accepts.
complete -c school -l base-url -x -d 'The school service origin'
complete -c school -l profile -x -a '(__school_complete profiles)' -d 'Which account or school to use'
complete -c school -l json -d 'Structured output (and JSON errors on stderr)'
complete -c school -l verbose -d 'Trace HTTP on stderr, secrets redacted'
complete -c school -s h -l help -d 'Show help'
complete -c school -n __school_needs_command -l version -d 'Print the version'

# Commands.
complete -c school -n __school_needs_command -a login -d 'Sign in through the browser'
complete -c school -n __school_needs_command -a logout -d 'Revoke the tokens and forget them locally'
complete -c school -n __school_needs_command -a whoami -d 'Show who is logged in'
complete -c school -n __school_needs_command -a token -d 'Print a valid access token'
complete -c school -n __school_needs_command -a call -d 'Make an authenticated request to the school API'
complete -c school -n __school_needs_command -a api -d "The API's operations as commands, checked before sending"
complete -c school -n __school_needs_command -a mcp -d 'Serve the school API as MCP tools on stdio, for agent hosts'
complete -c school -n __school_needs_command -a status -d 'Show every profile'
complete -c school -n __school_needs_command -a doctor -d 'Check the setup and say how to fix what is wrong'
complete -c school -n __school_needs_command -a completion -d 'Print the shell completion script'
complete -c school -n __school_needs_command -a help -d 'Show help for a command'

# login
complete -c school -n '__school_using login' -l scope -x -a '(__school_scopes)' -d 'Scopes to request, comma-separated'
complete -c school -n '__school_using login' -l add-scope -x -a '(__school_scopes)' -d 'Scopes to add to the ones held, comma-separated'
complete -c school -n '__school_using login' -l no-browser -d 'Print the URL instead of opening a browser'
complete -c school -n '__school_using login' -l port -x -d 'Loopback port for the redirect'
complete -c school -n '__school_using login' -l timeout -x -d 'Seconds to wait for the browser'
complete -c school -n '__school_using login' -l confidential -d 'Register as a confidential client'
complete -c school -n '__school_using login' -l insecure-storage -d 'Store secrets in a 0600 file, not the keychain'
complete -c school -n '__school_using login' -l client-metadata-url -x -d 'Client ID metadata document URL'
complete -c school -n '__school_using login' -l wait -d 'Wait for the login started with --no-wait'
complete -c school -n '__school_using login' -l no-wait -d 'Start the login, print the URL and return at once'
complete -c school -n '__school_using login' -l device -d 'Sign in on any device with a code'
complete -c school -n '__school_using login' -l no-dpop -d 'Get bearer tokens even where the server offers DPoP'

# logout
complete -c school -n '__school_using logout' -l all -d 'Log out of every profile'

# token
complete -c school -n '__school_using token' -l min-ttl -x -d 'Seconds the printed token must stay valid'
complete -c school -n '__school_using token' -l for-ci -d 'Print the variables a CI job needs, hand the profile over'

# call
complete -c school -n '__school_first_arg call' -a '(__school_complete paths)' -d 'API path'
complete -c school -n '__school_using call' -s X -l method -x -a 'GET POST PUT PATCH DELETE HEAD OPTIONS' -d 'HTTP method'
complete -c school -n '__school_using call' -s H -l header -x -d "Add a request header 'Name: value'"
complete -c school -n '__school_using call' -s f -l raw-field -x -d 'Add a string field key=value'
complete -c school -n '__school_using call' -s F -l field -x -a '(__school_field)' -d 'Add a typed field key=value (@file reads a file)'
complete -c school -n '__school_using call' -l input -r -F -d 'Send the file as the request body (- for stdin)'
complete -c school -n '__school_using call' -s i -l include -d 'Print the status line and headers too'
complete -c school -n '__school_using call' -l anonymous -d 'Send no token'
complete -c school -n '__school_using call' -l list -d 'List the API operations and the scope each needs'
complete -c school -n '__school_using call' -l paginate -d 'Follow Link rel="next" pages and print each'
complete -c school -n '__school_using call' -l slurp -d 'With --paginate: one JSON array of every page'
complete -c school -n '__school_using call' -l jq -x -d 'Filter the JSON response through a jq expression'
complete -c school -n '__school_using call' -l retry -x -d 'Retries on 429/503, for any method'
complete -c school -n '__school_using call' -l timeout -x -d 'Deadline in seconds for the whole request, retries included (default 60)'

# api
complete -c school -n '__school_first_arg api' -a '(__school_complete api-operations)' -d 'Operation'
complete -c school -n '__school_using api' -a '(__school_api flags)' -d 'Flag'
complete -c school -n '__school_using api' -l refresh -d 'Fetch the API description now'
complete -c school -n '__school_using api' -l dry-run -d 'Print the request and send nothing'
complete -c school -n '__school_using api' -l no-validate -d 'Send even when the request does not match the description'
complete -c school -n '__school_using api' -l input -r -F -d 'The whole JSON body from a file (- for stdin)'
complete -c school -n '__school_using api' -l anonymous -d 'Send no token'
complete -c school -n '__school_using api' -l format -x -a 'json table' -d 'json, or table'
complete -c school -n '__school_using api' -l columns -x -d 'With --format table: the columns, comma-separated'
complete -c school -n '__school_using api' -l jq -x -d 'Filter the JSON response through a jq expression'
complete -c school -n '__school_using api' -l paginate -d 'Follow Link rel="next" pages'
complete -c school -n '__school_using api' -l slurp -d 'With --paginate: one JSON array of every page'
complete -c school -n '__school_using api' -s i -l include -d 'Print the status line and headers too'
complete -c school -n '__school_using api' -l timeout -x -d 'Deadline in seconds for the whole request (default 60)'
complete -c school -n '__school_using api' -l retry -x -d 'Retries on 429/503, for any method'
complete -c school -n '__school_using api' -a '(__school_api values)' -d 'Value'

# mcp
complete -c school -n '__school_using mcp' -l allow-write -d 'Offer and send writes too (POST, PUT, PATCH, DELETE)'
complete -c school -n '__school_using mcp' -l toolsets -x -d 'Only the operations of these scope areas, comma-separated'

# completion, help
complete -c school -n '__school_first_arg completion' -a 'bash zsh fish powershell' -d 'Shell'
complete -c school -n '__school_first_arg help' -a 'login logout whoami token call api mcp status doctor completion help' -d 'Command'
