#!/usr/bin/env bash
# Runs a command inside a private D-Bus session that has an unlocked, throwaway
# gnome-keyring (Secret Service), so keychain code is exercised for real without touching
# the user's own keyring and without a desktop session.
#
#   bash test/helpers/with-keyring.sh <command> [args...]
#
# The exit code is the command's. The keyring lives in temporary directories that are
# removed afterwards. With SCHOOL_TEST_KEYRING=0 the command simply runs as it is.
set -euo pipefail

if [[ $# -eq 0 ]]; then
  echo "usage: with-keyring.sh <command> [args...]" >&2
  exit 64
fi

if [[ "${SCHOOL_TEST_KEYRING:-}" == "0" ]]; then
  exec "$@"
fi

for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "with-keyring.sh: $tool is not installed (apt-get install -y --no-install-recommends gnome-keyring dbus);" \
      "set SCHOOL_TEST_KEYRING=0 to run without a keyring" >&2
    exit 69
  fi
done

scratch="$(mktemp -d "${TMPDIR:-/tmp}/school-keyring.XXXXXX")"

# The daemon outlives the bus it was started on, so it is found again by the private
# runtime directory in its environment (unique to this run) and stopped.
stop_keyring() {
  local environ pid
  for environ in /proc/[0-9]*/environ; do
    pid="${environ#/proc/}"
    pid="${pid%/environ}"
    [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == gnome-keyring-d* ]] || continue
    if { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qxF "XDG_RUNTIME_DIR=$scratch/runtime"; then
      kill "$pid" 2>/dev/null || true
    fi
  done
}
cleanup() {
  stop_keyring
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# dbus-daemon running as root complains on every start that it cannot raise its file
# descriptor limit. Its stderr is discarded (a bus that fails to start is still reported
# by dbus-run-session), so the command's own output stays clean.
cat >"$scratch/dbus-daemon" <<'WRAPPER'
#!/bin/sh
exec dbus-daemon "$@" 2>/dev/null
WRAPPER
chmod 700 "$scratch/dbus-daemon"

# gnome-keyring keeps its keyrings under XDG_DATA_HOME and its sockets under
# XDG_RUNTIME_DIR, which must be private to the user (mode 700) or it refuses to start.
mkdir -p "$scratch/data" "$scratch/runtime"
chmod 700 "$scratch" "$scratch/data" "$scratch/runtime"
export XDG_DATA_HOME="$scratch/data"
export XDG_RUNTIME_DIR="$scratch/runtime"

# --unlock reads the password of the (new) login keyring from stdin; the daemon then
# serves org.freedesktop.secrets on the private bus (and is stopped by cleanup).
status=0
dbus-run-session --dbus-daemon="$scratch/dbus-daemon" -- bash -c '
  set -euo pipefail
  printf %s "school-test-keyring" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  exec "$@"
' with-keyring "$@" || status=$?
exit "$status"
