# PowerShell completion for school (Windows PowerShell 5.1 and PowerShell 7)
#
# Made from the command table (src/commands/table.ts) by the build: edit the table, not this file.
# Load it in the current session:  school completion powershell | Out-String | Invoke-Expression
# For every session, add that line to your profile (notepad $PROFILE).
# Profiles, scopes and API paths come from `school __complete`, which reads local caches only,
# so completing never waits on the network. Everything lives inside the script block, so that
# it works however the script was loaded (dot-sourced, run, or through Invoke-Expression).

Register-ArgumentCompleter -Native -CommandName 'school' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    # Options followed by a value: the word after them is that value, never a command or a path.
    # Compared case-sensitively (-ccontains, -ceq): -H takes a value, -h does not.
    $takesValue = @('--base-url', '--profile', '--description', '--scope', '--add-scope', '--port', '--timeout', '--client-metadata-url',
        '--client-id', '--min-ttl', '-X', '--method', '-H', '--header', '-f', '--raw-field', '-F', '--field', '--input', '--jq', '--retry',
        '--content-type', '--format', '--columns', '--toolsets', '--install')
    $globalFlags = @('--base-url', '--profile', '--description', '--json', '--verbose', '-h', '--help')
    $commandFlags = @{
        ''     = @('--version')
        login  = @('--scope', '--add-scope', '--no-browser', '--port', '--timeout', '--wait', '--no-wait', '--confidential',
            '--insecure-storage', '--client-metadata-url', '--device', '--no-dpop', '--client-id', '--client-secret-stdin')
        logout = @('--all')
        token  = @('--min-ttl', '--for-ci')
        call   = @('-X', '--method', '-H', '--header', '-f', '--raw-field', '-F', '--field', '--input', '-i', '--include', '--anonymous',
            '--list', '--paginate', '--slurp', '--jq', '--retry', '--timeout')
        api    = @('--refresh', '--dry-run', '--no-validate', '--input', '--content-type', '--anonymous', '--format', '--columns', '--jq',
            '--paginate', '--slurp', '-i', '--include', '--timeout', '--retry')
        mcp    = @('--allow-write', '--toolsets')
        skill  = @('--install')
    }
    $commands = @('login', 'logout', 'token', 'call', 'api', 'mcp', 'skill', 'whoami', 'status', 'doctor', 'completion', 'help')
    $topics = @('environment', 'exit-codes', 'errors')
    $shells = @('bash', 'zsh', 'fish', 'powershell')

    $unquote = {
        param($text)
        if ($text.Length -ge 2 -and (($text[0] -eq "'" -and $text[-1] -eq "'") -or ($text[0] -eq '"' -and $text[-1] -eq '"'))) {
            return $text.Substring(1, $text.Length - 2)
        }
        return $text
    }

    # The words before the one being completed; the first is `school` itself.
    $words = @(foreach ($element in $commandAst.CommandElements) {
            if ($element.Extent.EndOffset -lt $cursorPosition) { $element.Extent.Text }
        })

    # What precedes the word: the subcommand, how many arguments it has and the first of them,
    # the option whose value is being typed, and any --profile/--base-url to hand to
    # `school __complete`.
    $cmd = ''
    $first = ''
    $nargs = 0
    $valueOf = ''
    $dashdash = $false
    $context = @()
    for ($i = 1; $i -lt $words.Count; $i++) {
        $w = [string]$words[$i]
        if (-not $dashdash) {
            if ($w -ceq '--') { $dashdash = $true; continue }
            if ($w -clike '--profile=*' -or $w -clike '--base-url=*') {
                $name, $value = $w -split '=', 2
                $context += @($name, (& $unquote $value))
                continue
            }
            if ($w.StartsWith('-')) {
                # --opt, or the last of a cluster of short options such as -iX (in -XPOST the value is there already).
                $opt = ''
                if ($w.StartsWith('--')) {
                    if (-not $w.Contains('=') -and $takesValue -ccontains $w) { $opt = $w }
                }
                else {
                    for ($k = 1; $k -lt $w.Length; $k++) {
                        if ($takesValue -ccontains ('-' + $w[$k])) {
                            if ($k -eq $w.Length - 1) { $opt = '-' + $w[$k] }
                            break
                        }
                    }
                }
                if ($opt) {
                    if ($i + 1 -eq $words.Count) { $valueOf = $opt }
                    elseif ($opt -ceq '--profile' -or $opt -ceq '--base-url') { $context += @($opt, (& $unquote ([string]$words[$i + 1]))) }
                    $i++
                }
                continue
            }
        }
        if ($cmd -eq '') { $cmd = $w } else { if ($nargs -eq 0) { $first = $w }; $nargs++ }
    }

    # keep: the part of the word that stays as typed; cur: the part being completed.
    $keep = ''
    $cur = & $unquote ([string]$wordToComplete)
    if (-not $valueOf -and -not $dashdash -and $cur -clike '--*=*') {
        $name = $cur.Substring(0, $cur.IndexOf('='))
        if ($takesValue -ccontains $name) {
            $valueOf = $name
            $keep = $name + '='
            $cur = $cur.Substring($name.Length + 1)
        }
    }

    $found = New-Object System.Collections.Generic.List[string]
    # Adds prefix + item for each item that starts with $cur.
    $add = {
        param($prefix, $items)
        foreach ($item in @($items)) {
            if ($item -and ([string]$item).StartsWith($cur, [System.StringComparison]::Ordinal)) { $found.Add($prefix + $item) }
        }
    }
    $fromSchool = {
        # An array (a kind and its words) goes to the native command as one argument each.
        param($kind)
        @(& school @context __complete $kind 2>$null)
    }
    # File names for $partial, as PowerShell completes them, unquoted.
    $fileNames = {
        param($partial)
        foreach ($result in @([System.Management.Automation.CompletionCompleters]::CompleteFilename($partial))) {
            & $unquote $result.CompletionText
        }
    }

    if ($valueOf) {
        if ($valueOf -ceq '--profile') { & $add $keep (& $fromSchool 'profiles') }
        elseif ($valueOf -ceq '--description' -or $valueOf -ceq '--install') {
            & $add $keep @(& $fileNames $cur)
        }
        elseif ($valueOf -ceq '--scope' -or $valueOf -ceq '--add-scope') {
            # A list separated by commas: complete its last item, without repeating the others.
            $comma = $cur.LastIndexOf(',')
            $chosen = ''
            if ($comma -ge 0) {
                $chosen = $cur.Substring(0, $comma + 1)
                $cur = $cur.Substring($comma + 1)
            }
            $have = @($chosen.Split(',') | Where-Object { $_ })
            & $add ($keep + $chosen) @(& $fromSchool 'scopes' | Where-Object { $have -cnotcontains $_ })
        }
        elseif ($valueOf -ceq '-X' -or $valueOf -ceq '--method') { & $add $keep @('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS') }
        elseif (($valueOf -ceq '-F' -or $valueOf -ceq '--field') -and $cur.Contains('=@')) {
            # key=@file reads the file: complete the file name after the @.
            $at = $cur.IndexOf('=@') + 2
            $field = $cur.Substring(0, $at)
            $partial = $cur.Substring($at)
            foreach ($file in @(& $fileNames $partial)) { $found.Add($keep + $field + $file) }
        }
        elseif ($valueOf -ceq '--input') {
            & $add $keep @('-')
            & $add $keep @(& $fileNames $cur)
        }
        elseif (($valueOf -ceq '--content-type') -and $first -and ($cmd -ceq 'api')) {
            # The media types the operation on the line offers, from the cached API description.
            & $add $keep (& $fromSchool @('api-media-types', $first))
        }
        elseif ($valueOf -ceq '--format') { & $add $keep @('json', 'table') }
    }
    elseif ($cmd -ceq 'api' -and $first -and -not $dashdash -and $cur.StartsWith('-')) {
        # An operation's flags, from the cached API description.
        & $add '' (& $fromSchool @('api-flags', $first))
    }
    elseif ($cmd -ceq 'api' -and $first -and -not $dashdash -and ([string]$words[$words.Count - 1]) -clike '--?*') {
        # The value of an operation's flag: its enum values, or true and false.
        & $add '' (& $fromSchool @('api-values', $first, ([string]$words[$words.Count - 1]).Substring(2)))
    }
    elseif (-not $dashdash -and $cur.StartsWith('-')) {
        & $add '' ($globalFlags + @($commandFlags[$cmd]))
    }
    elseif ($cmd -eq '') { & $add '' $commands }
    elseif ($cmd -ceq 'call' -and $nargs -eq 0) { & $add '' (& $fromSchool 'paths') }
    elseif ($cmd -ceq 'api' -and $nargs -eq 0) { & $add '' (& $fromSchool 'api-operations') }
    elseif ($cmd -ceq 'completion' -and $nargs -eq 0) { & $add '' $shells }
    elseif ($cmd -ceq 'help' -and $nargs -eq 0) { & $add '' ($commands + $topics) }

    # Candidates from a server (scopes, API paths) are inserted into a command line: anything but
    # a plain name is single-quoted, so that no $, `, ;, ( or , in it can run or split the word.
    foreach ($text in $found) {
        $insert = $text
        if ($text -cnotmatch '^[A-Za-z0-9_./:=+-]+$') { $insert = "'" + $text.Replace("'", "''") + "'" }
        $type = 'ParameterValue'
        if ($text.StartsWith('-') -and -not $valueOf) { $type = 'ParameterName' }
        [System.Management.Automation.CompletionResult]::new($insert, $text, $type, $text)
    }
}
