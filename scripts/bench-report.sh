#!/usr/bin/env bash
# `gk report` on about 1 GB of transcripts, side by side in one run with
# the floor of reading the same bytes (`cat`) and of finding the lines it
# parses (`grep` for one marker), each timed with its peak memory:
#
#   scripts/bench-report.sh [MB]            (default 1024)
#
# The transcripts are made at run time in a temp folder from the recorded
# fixtures (tests/fixtures/report/), never committed: each copy gets its
# own uuids and session ids (so nothing is counted away as a fork's copy),
# and the bulk lines the fixtures keep only the shape of (prompt_snapshot,
# api-request-shape) get back a body of the size measured on the client
# (57 KB and 38 KB), so about half of the bytes are lines the report must
# skip unparsed, as in real transcripts. 20 project folders.
#
# Prints, per case: wall seconds (best of RUNS=3), MB/s, the CPU time
# (user + system) of that run, and the maximum resident set size
# (`/usr/bin/time -v`). On a shared machine the wall time is mostly
# waiting for a core: read the CPU time beside it. Then, with the same transcripts
# at a quarter of the size, gk's peak memory again: it must not grow with
# the bytes read.
#
# GK=<path> times that binary (default: a fresh `cargo build --release`).
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${1:-1024}
RUNS=${RUNS:-3}
if [ -z "${GK:-}" ]; then
  cargo build --release >/dev/null 2>&1 || cargo build --release
  GK="$PWD/target/release/gk"
fi
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make() { # make <dir> <MB>
  python3 - "$1" "$2" <<'PY'
import os, re, sys
out, mb = sys.argv[1], int(sys.argv[2])
src = "tests/fixtures/report/projects"
files = []
for d in sorted(os.listdir(src)):
    for f in sorted(os.listdir(os.path.join(src, d))):
        files.append(open(os.path.join(src, d, f), "rb").read())
# Bulk bodies of the measured sizes, holding (escaped, as a JSON string
# holds them) the markers a careless reader would parse them for.
piece = b'\\"type\\":\\"assistant\\", <command-name>/model</command-name> \\"is_error\\":true '
snapshot = b'"content":"' + piece * (57000 // len(piece)) + b'"'
shape = b'"shape":"' + piece * (38000 // len(piece)) + b'"'
UUID = re.compile(rb'"([0-9a-f]{8})-([0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})')
target, written, copy = mb << 20, 0, 0
while written < target:
    project = os.path.join(out, "projects", "-home-u-work-p%02d" % (copy % 20))
    os.makedirs(project, exist_ok=True)
    for i, text in enumerate(files):
        tag = b"%08x" % ((copy << 4) | i)
        text = UUID.sub(lambda m: b'"' + tag + b"-" + m.group(2), text)
        text = text.replace(b'"content":"[bulk dropped]"', snapshot)
        text = text.replace(b'{"type":"api-request-shape",', b'{"type":"api-request-shape",' + shape + b",")
        with open(os.path.join(project, "%s-%d.jsonl" % (tag.decode(), i)), "wb") as f:
            f.write(text)
        written += len(text)
    copy += 1
print(written)
PY
}

measure() { # measure <label> <bytes> <cmd...>: best wall time, MB/s, CPU time, peak RSS
  local label=$1 bytes=$2; shift 2
  local best="" cpu="" rss=0
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -v "$@" >/dev/null 2>"$tmp/time" || { cat "$tmp/time" >&2; exit 1; }
    local wall kb used
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tmp/time")
    used=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$tmp/time")
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; cpu=$used; fi
    [ "$kb" -gt "$rss" ] && rss=$kb
  done
  awk -v l="$label" -v w="$best" -v c="$cpu" -v b="$bytes" -v r="$rss" \
    'BEGIN{printf "%-28s %7.2f s wall %7.0f MB/s %6.2f s CPU %7.1f MiB peak RSS\n", l, w, b/1e6/(w>0?w:0.001), c, r/1024}'
}

echo "making ${MB} MB of transcripts in $tmp ..." >&2
bytes=$(make "$tmp/big" "$MB")
files=$(find "$tmp/big/projects" -name '*.jsonl' | wc -l)
echo "$bytes bytes in $files files; $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg); $("$GK" --version)"
export HOME="$tmp/home" CLAUDE_CONFIG_DIR="$tmp/big" GK_STATE_DIR="/home/u/t/home/.local/state/gk"
mkdir -p "$HOME"
measure "cat (read floor)" "$bytes" sh -c "cat \"$tmp\"/big/projects/*/*.jsonl"
measure "grep -c promptSource" "$bytes" sh -c "cat \"$tmp\"/big/projects/*/*.jsonl | grep -c '\"promptSource\"'"
measure "gk report --json" "$bytes" "$GK" report --json
"$GK" report | sed -n '1p;/^total/p;/^Advice/p'

quarter=$((MB / 4))
rm -rf "$tmp/big"
qbytes=$(make "$tmp/small" "$quarter")
export CLAUDE_CONFIG_DIR="$tmp/small"
measure "gk report --json (1/4 size)" "$qbytes" "$GK" report --json
