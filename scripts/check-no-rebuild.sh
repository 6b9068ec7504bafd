#!/usr/bin/env bash
# The variables that only the tests read rebuild nothing: `cargo build
# --tests` once, then again with each of them changed (set, unset, naming a
# file that is there and one that is not), and any unit of gk compiled
# again fails the check. The end-to-end tests decide at run time whether
# the client, Wine and the rest are there (tests/e2e/harness.rs), so no
# build step may read these variables.
#
#   scripts/check-no-rebuild.sh   # uses CARGO_TARGET_DIR like cargo does
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'check-no-rebuild: %s\n' "$*" >&2; }

# gk's units that cargo compiled in a build with the environment changed
# as `env "$@"` changes it (none when all were fresh).
compiled() {
    env "$@" cargo build --tests --locked --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and not m.get("fresh") \
            and m["target"]["src_path"].startswith(sys.argv[1]):
        print(" ".join(m["target"]["kind"]), m["target"]["name"])
' "$PWD/"
}

say "building the tests once"
cargo build --tests --locked -q

variations=(
    "GK_E2E_CLAUDE=/nonexistent/claude"
    "GK_E2E_CLAUDE=/bin/sh"
    "GK_E2E_CLAUDE="
    "GK_E2E_CLAUDE_OLD=/bin/sh"
    "CI=true"
    "CI=0"
    "WINEPREFIX=/nonexistent/prefix"
    "GK_E2E_GK_EXE=/bin/sh"
    "GK_E2E_CLAUDE_WIN=/bin/sh"
    "GK_E2E_WINDOWS_ARCHIVE=/bin/sh"
    "GK_WINE=1"
)
failed=0
for v in "${variations[@]}" "-u GK_E2E_CLAUDE -u CI"; do
    # shellcheck disable=SC2086 # "-u A -u B" is meant to split
    units="$(compiled $v)"
    if [ -n "$units" ]; then
        say "with $v, cargo compiled gk again:"
        printf '  %s\n' "$units" >&2
        failed=1
    else
        say "with $v: nothing of gk compiled again"
    fi
done
[ "$failed" -eq 0 ] || exit 1
say "ok: the tests' variables rebuild nothing"
