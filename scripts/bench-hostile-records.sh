#!/usr/bin/env bash
# Time `gk hook prompt` and `gk hook stop` on hostile task records (issue
# 17, item 5) against a no-op process, side by side with another build:
#
#   GK_BENCH_BASELINE=<older gk> scripts/bench-hostile-records.sh [RUNS]
#
# Records, one per session in one state folder: an ordinary one, one of
# 4 MiB (a 4 MiB task), one of 190,000 keys (3 MB), and one of about 5,000
# keys just under the hooks' 64 KiB read bound. Prints the median, mean and
# 10th percentile per command (scripts/bench-spawn.rs, runs interleaved)
# and the output size of each hook on each record.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-200}
mkdir -p target/bench
cargo build --release >target/bench/build.log 2>&1 || { cat target/bench/build.log; exit 1; }
GK="$PWD/target/release/gk"
OLD=${GK_BENCH_BASELINE:-}
rustc -O --edition 2021 -o target/bench/bench-spawn scripts/bench-spawn.rs

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" USERPROFILE="$tmp/home" GK_STATE_DIR="$tmp/state"
export XDG_STATE_HOME="$tmp/xdg-state" XDG_DATA_HOME="$tmp/xdg-data"
unset CLAUDE_CONFIG_DIR
mkdir -p "$HOME/.claude/hooks" "$GK_STATE_DIR"
python3 - "$GK_STATE_DIR" "$tmp" <<'PY'
import json, sys
state, tmp = sys.argv[1], sys.argv[2]
ids = {
    "normal": "00000001-0000-4000-8000-000000000000",
    "4mib": "00000002-0000-4000-8000-000000000000",
    "190k": "00000003-0000-4000-8000-000000000000",
    "5k": "00000004-0000-4000-8000-000000000000",
}
rec = {"status": "in_progress", "task": "Writing bfsi-case.ttl",
       "detail": "Phase P1 -- new shared case module", "project": "BFSI"}
records = {
    "normal": rec,
    "4mib": dict(rec, task="T" * ((4 << 20) - 200)),
    "190k": dict(rec, **{f"k{i}": i for i in range(190_000)}),
    "5k": dict(rec, **{f"k{i}": i for i in range(5_000)}),
}
for name, r in records.items():
    with open(f"{state}/{ids[name]}.json", "w") as f:
        json.dump(r, f, separators=(",", ":"))
    for hook, event in (("prompt", "UserPromptSubmit"), ("stop", "Stop")):
        with open(f"{tmp}/{hook}-{name}.json", "w") as f:
            json.dump({"session_id": ids[name], "hook_event_name": event,
                       "prompt": "refactor the parser", "cwd": "/w"}, f)
PY
ls -l "$GK_STATE_DIR" | awk 'NR>1 {print $5, $9}'
spec="$tmp/spec"
printf 'no-op\t%s\t/bin/true\n' "$tmp/stop-normal.json" > "$spec"
for rec in normal 5k 190k 4mib; do
  for hook in prompt stop; do
    printf 'gk %s %s\t%s\t%s\thook\t%s\n' "$hook" "$rec" "$tmp/$hook-$rec.json" "$GK" "$hook" >> "$spec"
    if [ -n "$OLD" ]; then
      printf 'old %s %s\t%s\t%s\thook\t%s\n' "$hook" "$rec" "$tmp/$hook-$rec.json" "$OLD" "$hook" >> "$spec"
    fi
  done
done
target/bench/bench-spawn "$RUNS" 10 "$spec"
echo "output bytes per call:"
for rec in normal 5k 190k 4mib; do
  for hook in prompt stop; do
    new=$("$GK" hook "$hook" < "$tmp/$hook-$rec.json" | wc -c)
    line="  $hook $rec: gk $new"
    if [ -n "$OLD" ]; then line="$line, old $("$OLD" hook "$hook" < "$tmp/$hook-$rec.json" | wc -c)"; fi
    echo "$line"
  done
done
