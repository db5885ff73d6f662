#!/usr/bin/env bash
# Runs vitest with its output plain where no terminal reads it: its reporter colours whenever TERM
# is not "dumb", even into a file, a pipe or a CI log, where the codes are noise. A caller's
# FORCE_COLOR or NO_COLOR wins.
#
#   bash test/helpers/run-vitest.sh run [vitest arguments...]
set -euo pipefail
if [[ ! -t 1 && -z "${FORCE_COLOR+set}" && -z "${NO_COLOR+set}" ]]; then export NO_COLOR=1; fi
exec vitest "$@"
