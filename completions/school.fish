# fish completion for school
#
# Made from the command table (src/commands/table.ts) by the build: edit the table, not this file.
# Install: copy this file to ~/.config/fish/completions/school.fish
# Or load it in the current shell:  school completion fish | source
# Profiles, scopes and API paths come from `school __complete`, which reads local caches only,
# so completing never waits on the network.

# Prints three lines: the subcommand on the command line (empty if none yet), how many
# arguments it has before the cursor, and the first of them (empty if none). The values of
# options are skipped, so that `school --profile work call` is the call command.
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
                case --base-url --profile --description --scope --add-scope --port --timeout --client-metadata-url --client-id --min-ttl --method -X --header -H --raw-field -f --field -F --input --jq --retry --content-type --format --columns --toolsets --install
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
            test $nargs = 0; and set first $t
            set nargs (math $nargs + 1)
        end
    end
    printf '%s\n' "$cmd" $nargs "$first"
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

# After the operation of `school <name> <operation>`: the operation's flags, or the values of
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
    contains -- "$state[1]" api; and test -n "$state[3]"; or return
    __school_complete api-media-types $state[3]
end

# --scope takes a list separated by commas: complete its last item, leaving out the ones
# already there.
function __school_scopes
    set -l token (string replace -r -- '^--[a-z-]+=' '' (commandline -ct))
    set -l head (string match -r -- '^.*,' $token)
    set -l chosen (string split , -- $head)
    for scope in (__school_complete scopes)
        contains -- $scope $chosen; or printf '%s%s\n' "$head" $scope
    end
end

# -F key=@file reads the file: complete the file name after the @.
function __school_field
    set -l token (string replace -r -- '^--[a-z-]+=' '' (commandline -ct))
    set -l head (string match -r -- '^[^=]*=@' $token)
    or return
    for path in (__fish_complete_path (string sub -s (math (string length -- $head) + 1) -- $token))
        printf '%s%s\n' $head $path
    end
end

# No file names unless an option takes a file.
complete -c school -f

# Options every command accepts.
complete -c school -l base-url -x -d 'The school service origin (env SCHOOL_BASE_URL); remembered in the profile'
complete -c school -l profile -x -a '(__school_complete profiles)' -d 'Which account or school to use (env SCHOOL_PROFILE)'
complete -c school -l description -r -F -d "The API description, JSON or YAML, when not at <base URL>/openapi.json (env SCHOOL_API_DESCRIPTION); remembered in the profile ('' forgets it)"
complete -c school -l json -d 'Structured output (and JSON errors on stderr)'
complete -c school -l verbose -d 'Trace HTTP on stderr, with every secret redacted'
complete -c school -s h -l help -d 'Show help'
complete -c school -n __school_needs_command -l version -d 'Print the version'

# Commands.
complete -c school -n __school_needs_command -a login -d 'Sign in through the browser and store the tokens in the OS keychain'
complete -c school -n __school_needs_command -a logout -d 'Revoke the tokens at the server and forget them locally'
complete -c school -n __school_needs_command -a token -d 'Print a valid access token (refreshed when about to expire)'
complete -c school -n __school_needs_command -a call -d 'Make an authenticated request to the school API'
complete -c school -n __school_needs_command -a api -d "The API's operations as commands, checked against its description before sending"
complete -c school -n __school_needs_command -a mcp -d 'Serve the school API as MCP tools on stdio, for agent hosts'
complete -c school -n __school_needs_command -a skill -d 'Print an Agent Skill (SKILL.md) for coding agents, made from the API description'
complete -c school -n __school_needs_command -a whoami -d 'Show who is logged in'
complete -c school -n __school_needs_command -a status -d 'Show every profile: base URL, issuer, client, user, scopes, expiry, storage'
complete -c school -n __school_needs_command -a doctor -d 'Check the setup: server metadata, clock, keychain, proxy, file permissions, each profile'
complete -c school -n __school_needs_command -a completion -d 'Print the shell completion script'
complete -c school -n __school_needs_command -a help -d 'Show help for a command, or a topic: environment, exit-codes, errors'

# login
complete -c school -n '__school_using login' -l scope -x -a '(__school_scopes)' -d 'The scopes to request instead of the default set, space- or comma-separated (repeatable)'
complete -c school -n '__school_using login' -l add-scope -x -a '(__school_scopes)' -d 'Request the scopes the profile holds now plus these (repeatable)'
complete -c school -n '__school_using login' -l no-browser -d 'Print the URL instead of opening a browser (SSH, headless)'
complete -c school -n '__school_using login' -l port -x -d 'Loopback port for the redirect (default: the one registered last time, else a free one)'
complete -c school -n '__school_using login' -l timeout -x -d 'How long to wait for the browser (default 300); with --wait, how long to wait at most'
complete -c school -n '__school_using login' -l wait -d 'Wait for the login started with --no-wait: exit 0 when it completed, 4 otherwise'
complete -c school -n '__school_using login' -l no-wait -d 'Start the login, print the URL and return at once; a background listener finishes it'
complete -c school -n '__school_using login' -l confidential -d 'Register as a confidential client (client_secret_post, or client_secret_basic where the server does not list it)'
complete -c school -n '__school_using login' -l insecure-storage -d 'Store secrets in a 0600 plain-text file instead of the keychain'
complete -c school -n '__school_using login' -l client-metadata-url -x -d 'Use this client ID metadata document URL as client_id, where supported'
complete -c school -n '__school_using login' -l device -d 'Sign in on any device with a code (device authorization, where the server offers it)'
complete -c school -n '__school_using login' -l no-dpop -d 'Get bearer tokens, usable by other tools, even where the server offers DPoP'
complete -c school -n '__school_using login' -l client-id -x -d 'Use a client registered out of band instead of registering one (its secret, if any, from SCHOOL_CLIENT_SECRET or --client-secret-stdin)'
complete -c school -n '__school_using login' -l client-secret-stdin -d "Read the --client-id client's secret from stdin"

# logout
complete -c school -n '__school_using logout' -l all -d 'Log out of every profile, and forget headless CI job state'

# token
complete -c school -n '__school_using token' -l min-ttl -x -d 'The printed token stays valid at least this long (refreshed first when needed) (default 0)'
complete -c school -n '__school_using token' -l for-ci -d 'Print SCHOOL_BASE_URL, SCHOOL_CLIENT_ID and SCHOOL_REFRESH_TOKEN for a CI secret store and hand the profile over'

# call
complete -c school -n '__school_using call' -s X -l method -x -a 'GET POST PUT PATCH DELETE HEAD OPTIONS' -d 'HTTP method (default GET, or POST with fields)'
complete -c school -n '__school_using call' -s H -l header -x -d "Add a request header 'Name: value' (repeatable)"
complete -c school -n '__school_using call' -s f -l raw-field -x -d 'Add a string field (repeatable)'
complete -c school -n '__school_using call' -s F -l field -x -a '(__school_field)' -d 'Add a typed field: number, true/false, null, @file (repeatable)'
complete -c school -n '__school_using call' -l input -r -F -d 'Send the file as the request body ("-" for stdin)'
complete -c school -n '__school_using call' -s i -l include -d 'Print the status line and headers too'
complete -c school -n '__school_using call' -l anonymous -d 'Send no token'
complete -c school -n '__school_using call' -l list -d 'List the API operations and the scope each needs (from /openapi.json)'
complete -c school -n '__school_using call' -l paginate -d 'Follow Link rel="next" pages on the same origin and print each page'
complete -c school -n '__school_using call' -l slurp -d 'With --paginate: print one JSON array holding every page'
complete -c school -n '__school_using call' -l jq -x -d 'Filter the JSON response through jq (each page, or the whole array with --slurp)'
complete -c school -n '__school_using call' -l retry -x -d 'Retries on 429/503 for any method (GET and HEAD get 3 without it; others none)'
complete -c school -n '__school_using call' -l timeout -x -d 'Deadline for the whole request: body, retries and their waits included; each page its own (default 60)'

# api
complete -c school -n '__school_using api' -l refresh -d 'Fetch the API description now instead of using the cached copy'
complete -c school -n '__school_using api' -l dry-run -d 'Print the request that would be sent (token as [REDACTED]) and send nothing; needs no login'
complete -c school -n '__school_using api' -l no-validate -d 'Send the request even when it does not match the description'
complete -c school -n '__school_using api' -l input -r -F -d "The whole body from a file (\"-\" for stdin): JSON (a form's fields as a JSON object), other media types byte for byte; flags override its fields"
complete -c school -n '__school_using api' -l content-type -x -a '(__school_media_types)' -d "The body's media type, where the operation offers several (the first offered without it)"
complete -c school -n '__school_using api' -l anonymous -d 'Send no token (for operations that answer anonymous callers)'
complete -c school -n '__school_using api' -l format -x -a 'json table' -d 'Json (default) or table: an array, or the items of a list, as a table'
complete -c school -n '__school_using api' -l columns -x -d 'With --format table: the columns, comma-separated'
complete -c school -n '__school_using api' -l jq -x -d 'Filter the JSON response through jq'
complete -c school -n '__school_using api' -l paginate -d 'Follow Link rel="next" pages on the same origin'
complete -c school -n '__school_using api' -l slurp -d 'With --paginate: one JSON array holding every page'
complete -c school -n '__school_using api' -s i -l include -d 'Print the status line and headers too'
complete -c school -n '__school_using api' -l timeout -x -d 'Deadline for the whole request, in seconds (default 60)'
complete -c school -n '__school_using api' -l retry -x -d 'Retries on 429/503 for any method (GET and HEAD get 3 without it)'

# mcp
complete -c school -n '__school_using mcp' -l allow-write -d 'Offer and send writes too (POST, PUT, PATCH, DELETE); reading only without it'
complete -c school -n '__school_using mcp' -l toolsets -x -d 'Only the operations of these scope areas, comma-separated (e.g. courses,students)'

# skill
complete -c school -n '__school_using skill' -l install -r -F -d 'Write <dir>/school/SKILL.md (replacing only a file written by school skill) and print its path'

# Arguments.
complete -c school -n '__school_first_arg call' -a '(__school_complete paths)' -d 'Path'
complete -c school -n '__school_first_arg api' -a '(__school_complete api-operations)' -d 'Operation'
complete -c school -n '__school_first_arg completion' -a 'bash zsh fish powershell' -d 'Shell'
complete -c school -n '__school_first_arg help' -a 'login logout token call api mcp skill whoami status doctor completion help environment exit-codes errors' -d 'Command'

# The operations' own flags and values.
complete -c school -n '__school_using api' -a '(__school_operation api flags)' -d 'Flag'
complete -c school -n '__school_using api' -a '(__school_operation api values)' -d 'Value'
