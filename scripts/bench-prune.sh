#!/usr/bin/env bash
# Measure `gk state prune --yes` (N clean records, all deleted) and
# `gk state clean --all --yes` (N in-progress records, all rewritten) in a
# throwaway HOME and state folder, for N = 1,000, 10,000 and 100,000.
# One run per case (each run changes every record, so the folder is made
# again before it); the wall time of the whole command, plan shown to
# /dev/null. Release build.
#
# With GK_BASE=/path/to/an/older/gk the same cases run with that binary
# too, side by side in one run, each capped at GK_BENCH_CAP seconds
# (default 120; a capped run shows as "> cap").
# Usage: scripts/bench-prune.sh [N ...]
set -euo pipefail
cd "$(dirname "$0")/.."

command -v python3 >/dev/null || {
    echo "python3 not found (it writes the records)" >&2
    exit 1
}

cargo build --release --quiet
GK="$PWD/target/release/gk"
CAP="${GK_BENCH_CAP:-120}"
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 10000 100000)

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" USERPROFILE="$WORK/home" NO_COLOR=1
export GK_STATE_DIR="$WORK/state" XDG_DATA_HOME="$WORK/data"
export GK_MANAGED_SETTINGS="$WORK/etc/managed-settings.json"
unset CLAUDE_CONFIG_DIR XDG_STATE_HOME
mkdir -p "$HOME/.claude/hooks"

# N records named as Claude Code's session ids are, in a fresh folder.
make_records() {
    rm -rf "$GK_STATE_DIR"
    python3 - "$GK_STATE_DIR" "$1" "$2" <<'EOF'
import json, os, sys, uuid
folder, n, status = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(folder, mode=0o700)
rng = uuid.UUID(int=0x6b8b4567)  # fixed ids: the same folder every run
for i in range(n):
    sid = str(uuid.UUID(int=(rng.int * (i + 1)) % (1 << 128)))
    rec = {"status": status, "task": "" if status == "clean" else f"task {i}",
           "detail": "", "project": "bench", "cwd": "/work/bench", "updated": ""}
    with open(os.path.join(folder, sid + ".json"), "w") as f:
        json.dump(rec, f)
EOF
}

# Seconds one command takes, or "> CAP" when it is stopped at the cap.
time_it() {
    local start end rc=0
    start=$(date +%s.%N)
    timeout "$CAP" "$@" >/dev/null 2>"$WORK/err" || rc=$?
    end=$(date +%s.%N)
    case $rc in
    0) echo "$end - $start" | bc | awk '{printf "%.2f", $1}' ;;
    124) echo "> $CAP" ;;
    *)
        echo "exit $rc: $(head -c 300 "$WORK/err")" >&2
        echo failed
        ;;
    esac
}

# Records left after a run (0 after a prune of clean records).
left() { find "$GK_STATE_DIR" -maxdepth 1 -name '*.json' | wc -l; }

printf '%-8s %-22s %12s %12s\n' records command "gk (s)" "${GK_BASE:+base (s)}"
for n in "${SIZES[@]}"; do
    for case in prune clean; do
        if [ "$case" = prune ]; then
            status=clean args=(state prune --yes)
        else
            status=in_progress args=(state clean --all --yes)
        fi
        make_records "$n" "$status"
        now=$(time_it "$GK" "${args[@]}")
        if [ "$case" = prune ] && [ "$(left)" -ne 0 ]; then
            echo "prune left $(left) of $n records" >&2
            exit 1
        fi
        base=""
        if [ -n "${GK_BASE:-}" ]; then
            make_records "$n" "$status"
            base=$(time_it "$GK_BASE" "${args[@]}")
        fi
        printf '%-8s %-22s %12s %12s\n' "$n" "${args[*]}" "$now" "$base"
    done
done
