# bash completion for school                                -*- shell-script -*-
#
# Made from the command table (src/commands/table.ts) by the build: edit the table, not this file.
# Load it in the current shell:  source <(school completion bash)
# or install it for every shell: copy it to ~/.local/share/bash-completion/completions/school
# Works in bash 3.2 (macOS's own) and later: no mapfile, associative arrays or case changes. In
# bash 3.2 load it with eval "$(school completion bash)", since source cannot read <(…) there.
# Profiles, scopes and API paths come from `school __complete`, which reads local caches only,
# so completing never waits on the network.

# Options followed by a value: the word after them is that value, never a command or a path.
_school_takes_value() {
    case $1 in
        --base-url | --profile | --description | --scope | --add-scope | --port | --timeout | \
            --client-metadata-url | --client-id | --min-ttl | -X | --method | -H | --header | -f | \
            --raw-field | -F | --field | --input | --jq | --retry | --content-type | --format | \
            --columns | --toolsets | --install)
            return 0 ;;
    esac
    return 1
}

# Sets _school_opt to the option of word $1 whose value is the next word, if any: --opt, or the
# last of a cluster of short options such as -iX (in -XPOST the value is already there).
_school_value_option() {
    local w=$1 k
    _school_opt=''
    if [[ $w == --* ]]; then
        [[ $w != *=* ]] && _school_takes_value "$w" && _school_opt=$w
        return 0
    fi
    for ((k = 1; k < ${#w}; k++)); do
        if _school_takes_value "-${w:k:1}"; then
            ((k == ${#w} - 1)) && _school_opt=-${w:k:1}
            return 0
        fi
    done
    return 0
}

# Adds "$1$c" to COMPREPLY for each candidate c (from $3 on) that starts with $2. Candidates come
# from a server (scopes, API paths): readline inserts them as they are, so anything but a plain
# name is quoted with printf %q, and a ';', '$', '`' or space can never run when Enter is pressed.
_school_add() {
    local keep=$1 cur=$2 c
    shift 2
    for c; do
        [[ $c == "$cur"* ]] || continue
        if [[ $c == *[!A-Za-z0-9_.:/{}~+,@=-]* || $c == [~]* ]]; then
            printf -v c %q "$c"
        fi
        COMPREPLY+=("$keep$c")
    done
}

# Sets the array _school_list to the lines of `school __complete "$@"` for the --profile and
# --base-url of the line (in ctx, the caller's).
_school_candidates() {
    local line
    _school_list=()
    while IFS= read -r line; do
        _school_list+=("$line")
    done < <(command school ${ctx[@]+"${ctx[@]}"} __complete "$@" 2>/dev/null)
}

# File names under $2, each prefixed with $1; directories get a slash and no trailing space.
_school_add_files() {
    local keep=$1 f
    while IFS= read -r f; do
        if [[ -d $f ]]; then
            COMPREPLY+=("$keep$f/")
            compopt -o nospace 2>/dev/null
        else
            COMPREPLY+=("$keep$f")
        fi
    done < <(compgen -f -- "$2")
}

# A flag's value that is a file name ($2, after $1 on the same word): readline quotes and marks
# file names itself when told they are file names (bash 4 and later: bash 3.2 has no compopt).
_school_file_value() {
    if [[ -z $1 ]] && compopt -o filenames 2>/dev/null; then
        local f
        while IFS= read -r f; do
            COMPREPLY+=("$f")
        done < <(compgen -f -- "$2")
    else
        _school_add_files "$1" "$2"
    fi
}

_school() {
    # The line is split here rather than taken from COMP_WORDS, which breaks words at ':' and
    # '=': a scope such as courses:read or a URL with a port must stay one word.
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words
    read -r -a words <<<"$line"
    if [[ ${#words[@]} -eq 0 || $line == *[[:space:]] ]]; then
        words+=('')
    fi
    local n=${#words[@]}
    local word=${words[n-1]}

    # What precedes the word being completed: the subcommand, how many arguments it has, the
    # option whose value is being typed, and any --profile/--base-url for `school __complete`.
    local cmd='' first='' nargs=0 valopt='' dashdash='' i w _school_opt
    local -a ctx=()
    for ((i = 1; i < n - 1; i++)); do
        w=${words[i]}
        if [[ -z $dashdash ]]; then
            case $w in
                --)
                    dashdash=1
                    continue ;;
                --profile=* | --base-url=*)
                    ctx+=("$(_school_dequote "$w")")
                    continue ;;
                -*)
                    _school_value_option "$w"
                    if [[ -n $_school_opt ]]; then
                        if ((i + 1 == n - 1)); then
                            valopt=$_school_opt
                        elif [[ $w == --profile || $w == --base-url ]]; then
                            ctx+=("$w" "$(_school_dequote "${words[i+1]}")")
                        fi
                        i=$((i + 1))
                    fi
                    continue ;;
            esac
        fi
        if [[ -z $cmd ]]; then
            cmd=$w
        else
            [[ $nargs -eq 0 ]] && first=$w
            nargs=$((nargs + 1))
        fi
    done

    # keep: the part of the word that stays as typed; cur: the part being completed.
    local keep='' cur=$word
    if [[ -z $valopt && -z $dashdash && $cur == --*=* ]] && _school_takes_value "${cur%%=*}"; then
        valopt=${cur%%=*}
        keep="$valopt="
        cur=${cur#*=}
    fi

    COMPREPLY=()
    local -a _school_list
    local -a commands=(login logout token call api mcp skill whoami status doctor completion help)
    if [[ -n $valopt ]]; then
        case $valopt in
            --profile)
                _school_candidates profiles
                _school_add "$keep" "$cur" "${_school_list[@]}" ;;
            --description | --install)
                _school_file_value "$keep" "$cur" ;;
            --scope | --add-scope)
                # A list separated by commas: complete its last item, without repeating the others.
                local chosen=${cur%"${cur##*,}"} s
                keep+=$chosen
                cur=${cur##*,}
                _school_candidates scopes
                for s in "${_school_list[@]}"; do
                    [[ ,$chosen == *",$s,"* ]] || _school_add "$keep" "$cur" "$s"
                done ;;
            -X | --method)
                _school_add "$keep" "$cur" GET POST PUT PATCH DELETE HEAD OPTIONS ;;
            -F | --field)
                # key=@file reads the file: complete the file name after the @.
                if [[ $cur == *=@* ]]; then
                    _school_add_files "$keep${cur%%=@*}=@" "${cur#*=@}"
                fi ;;
            --input)
                _school_add "$keep" "$cur" -
                _school_file_value "$keep" "$cur" ;;
            --content-type)
                # The media types the operation on the line offers, from the cached API description.
                if [[ -n $first && ( $cmd == api ) ]]; then
                    _school_candidates api-media-types "$first"
                    _school_add "$keep" "$cur" "${_school_list[@]}"
                fi ;;
            --format)
                _school_add "$keep" "$cur" json table ;;
        esac
    elif [[ $cmd == api && -n $first && -z $dashdash && $cur == -* ]]; then
        # An operation's flags come from the cached API description.
        _school_candidates api-flags "$first"
        _school_add "" "$cur" "${_school_list[@]}"
    elif [[ $cmd == api && -n $first && -z $dashdash && ${words[n-2]} == --?* ]]; then
        # The value of an operation's flag: its enum values, or true and false.
        _school_candidates api-values "$first" "${words[n-2]#--}"
        _school_add "" "$cur" "${_school_list[@]}"
    elif [[ -z $dashdash && $cur == -* ]]; then
        local -a opts=(--base-url --profile --description --json --verbose -h --help)
        case $cmd in
            '') opts+=(--version) ;;
            login) opts+=(--scope --add-scope --no-browser --port --timeout --wait --no-wait
                --confidential --insecure-storage --client-metadata-url --device --no-dpop --client-id
                --client-secret-stdin) ;;
            logout) opts+=(--all) ;;
            token) opts+=(--min-ttl --for-ci) ;;
            call) opts+=(-X --method -H --header -f --raw-field -F --field --input -i --include
                --anonymous --list --paginate --slurp --jq --retry --timeout) ;;
            api) opts+=(--refresh --dry-run --no-validate --input --content-type --anonymous --format
                --columns --jq --paginate --slurp -i --include --timeout --retry) ;;
            mcp) opts+=(--allow-write --toolsets) ;;
            skill) opts+=(--install) ;;
        esac
        _school_add "" "$cur" "${opts[@]}"
    else
        case $cmd/$nargs in
            /*) _school_add "" "$cur" "${commands[@]}" ;;
            call/0)
                _school_candidates paths
                _school_add "" "$cur" "${_school_list[@]}" ;;
            api/0)
                _school_candidates api-operations
                _school_add "" "$cur" "${_school_list[@]}" ;;
            completion/0) _school_add "" "$cur" bash zsh fish powershell ;;
            help/0) _school_add "" "$cur" "${commands[@]}" environment exit-codes errors ;;
        esac
    fi

    # Readline replaces only the text after the last COMP_WORDBREAKS character of the word
    # (':', '=' and '@' by default; bash keeps '@' and '$' in the replaced text), so each
    # candidate loses what comes before.
    local k
    for ((k = ${#word}; k > 0; k--)); do
        [[ $COMP_WORDBREAKS == *"${word:k-1:1}"* ]] && break
    done
    [[ $k -gt 0 && ${word:k-1:1} == [@\$] ]] && k=$((k - 1))
    if ((k > 0)); then
        local brk=${word:0:k}
        COMPREPLY=("${COMPREPLY[@]#"$brk"}")
    fi
    return 0
}

# Removes one pair of quotes around a word, or around the value of --opt='value'. Patterns, not
# a regular expression: bash 3.2 quotes and macOS's regex back-references differ.
_school_dequote() {
    local w=$1 opt='' q
    if [[ $w == --[a-z]*=* ]]; then
        opt=${w%%=*}=
        w=${w#*=}
    fi
    for q in '"' "'"; do
        if [[ ${#w} -ge 2 && $w == "$q"*"$q" ]]; then
            w=${w:1:${#w}-2}
            break
        fi
    done
    printf '%s' "$opt$w"
}

complete -F _school school
