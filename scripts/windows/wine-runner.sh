#!/usr/bin/env bash
# Cargo's runner for the test programs under Wine (scripts/windows-cross-test.sh
# test): `wine <test program> <args>`, and again (up to twice) when the run
# failed because Wine itself could not start or keep a process.
#
# Two signs mean that, and nothing gk or a test prints contains either:
#   "wine client error:"  the Wine process lost its wineserver connection
#                         (seen at a test program's start: no test had run);
#   "(os error 1359)" / "code: 1359,"
#                         ERROR_INTERNAL_ERROR from starting a program: Wine
#                         reports it when the new process died before its
#                         start-up was done, so the program never ran.
# Both were seen in one CI run of the suite, each once, among its thousands
# of process starts, and two 1359s in one hooks_parity run later
# (docs/maintainers/testing.md, "Wine's own faults"). A run that failed for
# any other reason is not repeated, and a third such failure stands.
# Every repeat is announced on stderr, so the CI log shows it.
set -uo pipefail

log="$(mktemp "${TMPDIR:-/tmp}/gk-wine-runner.XXXXXX")"
trap 'rm -f "$log"' EXIT
name="$(basename "${1:-?}")"
rc=0
for attempt in 1 2 3; do
    # One stream: the harness's own lines and Wine's both go to the log.
    wine "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] && exit 0
    if ! grep -qE 'wine client error:|\(os error 1359\)|code: 1359,' "$log"; then
        exit "$rc"
    fi
    if [ "$attempt" -lt 3 ]; then
        printf 'wine-runner: %s failed (exit %d) because Wine could not start or keep a process; running it again (%d of 2)\n' \
            "$name" "$rc" "$attempt" >&2
    fi
done
printf 'wine-runner: %s failed a third time (exit %d)\n' "$name" "$rc" >&2
exit "$rc"
