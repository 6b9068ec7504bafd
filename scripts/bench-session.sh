#!/usr/bin/env bash
# The session check (`gk hook session`) on a healthy setup and on hostile
# repositories, timed and with its peak memory, side by side in one run:
#
#   scripts/bench-session.sh [RUNS]          (default 20 runs per case)
#
# GK_BENCH_CASES="<case> …" runs only those cases.
#
# Cases, each a fresh project folder:
#   healthy     user settings with gk's three hooks and a few other tools',
#               a small project and local file;
#   handlers    project and local settings of ~15 MB each, 400,000 trivial
#               command handlers apiece;
#   spellings   230,000 distinct spellings of gk's prompt hook and 125,000
#               copies of one, split over the project and local files;
#   dropins     three 15 MiB managed drop-ins (managed-settings.d/);
#   plugins50   the healthy setup plus 50 plugins of a directory
#               marketplace, enabled in the project's settings, each with a
#               hooks file of three handlers and a manifest (the reading the
#               client does at every start, src/registry/plugins.rs).
# And the hostile plugin repositories (tests/it/adversarial_plugins.rs), each
# a project whose settings declare a folder marketplace and enable its
# plugins:
#   paths37k    a manifest naming 37,000 hooks paths (under 256 KiB);
#   root11k     one shell-form command holding ${CLAUDE_PLUGIN_ROOT} 11,000
#               times, under four folders each named with
#               $CLAUDE_PLUGIN_ROOT twelve times;
#   expand10    ten plugins of 12,000 ${CLAUDE_PLUGIN_ROOT} each;
#   ids18900    two settings files of 245 KiB enabling 18,900 plugins each;
#   handlers100 100 plugins of 5,300 handlers each (under 256 KiB a file).
# A no-op process (`true`, started the same way) is timed first: the
# session check's budget is 1.5 times it with 50 plugins.
# For each: the median wall time of RUNS runs and the largest maximum
# resident set size (`/usr/bin/time -v`) over them. The tests hold every
# hostile case to 0.5 s and 64 MiB (tests/it/adversarial_plugins.rs);
# these figures say how far under that it is.
#
# GK=<path> times that binary (default: a fresh `cargo build --release`);
# GK_BENCH_BASELINE=<path of another gk build> times it in the same run,
# case by case, so a change is judged side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-20}
if [ -z "${GK:-}" ]; then
  cargo build --release >/dev/null 2>&1 || cargo build --release
  GK="$PWD/target/release/gk"
fi
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" USERPROFILE="$tmp/home"
unset CLAUDE_CONFIG_DIR GK_STATE_DIR XDG_STATE_HOME
mkdir -p "$HOME/.claude/hooks"
cp "$GK" "$HOME/.claude/hooks/gk"

python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
home = os.path.join(tmp, "home")
gk = '"$HOME/.claude/hooks/gk" hook '
def handler(cmd):
    return {"type": "command", "command": cmd}
def write(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f, separators=(",", ":"))
user = {
    "env": {"HTTPS_PROXY": "http://proxy.internal:8080"},
    "permissions": {"allow": ["Bash(git status:*)", "Bash(cargo test:*)"]},
    "hooks": {
        "UserPromptSubmit": [{"hooks": [handler(gk + "prompt")]}],
        "Stop": [{"hooks": [handler(gk + "stop")]}, {"hooks": [handler("notify-send done")]}],
        "SessionStart": [{"hooks": [handler(gk + "session")]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [handler("/usr/local/bin/bash-guard --strict")]}],
    },
}
write(os.path.join(home, ".claude/settings.json"), user)
healthy = os.path.join(tmp, "healthy")
write(os.path.join(healthy, ".claude/settings.json"),
      {"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [handler("cargo fmt")]}]}})
write(os.path.join(healthy, ".claude/settings.local.json"),
      {"permissions": {"allow": ["Bash(make:*)"]}})
trivial = [handler("true")] * 400_000
for name in ["settings.json", "settings.local.json"]:
    write(os.path.join(tmp, "handlers/.claude", name),
          {"hooks": {"PreToolUse": [{"hooks": trivial}]}})
distinct = [handler(f"/opt/{i}/gk hook prompt") for i in range(230_000)]
copies = [handler(gk + "prompt")] * 125_000
write(os.path.join(tmp, "spellings/.claude/settings.json"),
      {"hooks": {"UserPromptSubmit": [{"hooks": distinct}]}})
write(os.path.join(tmp, "spellings/.claude/settings.local.json"),
      {"hooks": {"UserPromptSubmit": [{"hooks": copies}]}})
os.makedirs(os.path.join(tmp, "dropins"), exist_ok=True)
per = (15 << 20) // 34
for i in range(3):
    write(os.path.join(tmp, f"managed/managed-settings.d/{i}0-big.json"),
          {"hooks": {"PreToolUse": [{"hooks": [handler("true")] * per}]}})
PY
python3 scripts/bench-plugins.py "$tmp/mkt" "$HOME/.claude/plugins" "$tmp/plugins50/.claude/settings.json"
python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
def write(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(value if isinstance(value, str) else json.dumps(value, separators=(",", ":")))
def short(i):
    d = "0123456789abcdefghijklmnopqrstuvwxyz"; s = ""
    while True:
        s = d[i % 36] + s; i //= 36
        if i == 0: return s
def repo(case, plugins, ids=None, files=("settings.json",)):
    """plugins: {name: (folder, {relative path: text})}"""
    root = os.path.join(tmp, case)
    mkt = os.path.join(root, "mkt")
    write(os.path.join(mkt, ".claude-plugin/marketplace.json"),
          {"name": "m", "plugins": [{"name": n, "source": "./" + f} for n, (f, _) in plugins.items()]})
    for name, (folder, texts) in plugins.items():
        for rel, text in texts.items():
            write(os.path.join(mkt, folder, rel), text)
    ids = ids if ids is not None else [n + "@m" for n in plugins]
    doc = {"extraKnownMarketplaces": {"m": {"source": {"source": "directory", "path": mkt}}},
           "enabledPlugins": {i: True for i in ids}}
    for name in files:
        write(os.path.join(root, ".claude", name), doc)
def hooks(event, handlers):
    return {"hooks": {event: [{"hooks": handlers}]}}
cmd = lambda c: {"type": "command", "command": c}
repo("paths37k", {"p": ("p", {".claude-plugin/plugin.json":
     {"name": "p", "hooks": [short(i) for i in range(37000)]}})})
level = "d" + "$CLAUDE_PLUGIN_ROOT" * 12
repo("root11k", {"p": ("/".join([level] * 4), {"hooks/hooks.json":
     hooks("UserPromptSubmit", [cmd("gk " + "${CLAUDE_PLUGIN_ROOT}" * 11000)])})})
repo("expand10", {f"p{i}": (f"p{i}", {"hooks/hooks.json":
     hooks("Stop", [cmd("gk " + "${CLAUDE_PLUGIN_ROOT}" * 12000)])}) for i in range(10)})
repo("ids18900", {}, ids=[short(i) + "@m" for i in range(18900)],
     files=("settings.json", "settings.local.json"))
repo("handlers100", {f"p{i:03}": (f"p{i:03}", {"hooks/hooks.json":
     hooks("Stop", [cmd("gk")] * 5300)}) for i in range(100)})
PY

run_case() { # binary case -> "median_ms max_rss_kib"
  local bin=$1 case=$2 managed
  managed="$tmp/none/managed-settings.json"
  [ "$case" = dropins ] && managed="$tmp/managed/managed-settings.json"
  printf '{"session_id":"s","transcript_path":"/t.jsonl","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}' \
    "$tmp/$case" > "$tmp/event.json"
  GK_MANAGED_SETTINGS="$managed" python3 - "$bin" "$tmp/event.json" "$RUNS" <<'PY'
import re, statistics, subprocess, sys, time
binary, event, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
times, peak = [], 0
for _ in range(runs):
    with open(event, "rb") as stdin:
        start = time.perf_counter()
        try:
            out = subprocess.run(["/usr/bin/time", "-v", binary, "hook", "session"],
                                 stdin=stdin, capture_output=True, timeout=120)
        except subprocess.TimeoutExpired as e:
            out = e  # a build that runs away: counted as the 120 s it was given
            out.stderr = out.stderr or b""
        times.append(time.perf_counter() - start)
    m = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", out.stderr)
    peak = max(peak, int(m.group(1)) if m else 0)
print(f"{statistics.median(times) * 1000:.1f} {peak}")
PY
}

printf '%-10s %-10s %10s %12s\n' case build "median ms" "max RSS MiB"
read -r ms kib < <(run_case "$(command -v true)" healthy)
printf '%-10s %-10s %10s %12s\n' noop true "$ms" "$(awk -v k="$kib" 'BEGIN{printf "%.1f", k/1024}')"
for case in ${GK_BENCH_CASES:-healthy plugins50 handlers spellings dropins paths37k root11k expand10 ids18900 handlers100}; do
  for which in gk baseline; do
    bin=$GK
    if [ "$which" = baseline ]; then
      [ -n "${GK_BENCH_BASELINE:-}" ] || continue
      bin=$GK_BENCH_BASELINE
    fi
    read -r ms kib < <(run_case "$bin" "$case")
    printf '%-10s %-10s %10s %12s\n' "$case" "$which" "$ms" "$(awk -v k="$kib" 'BEGIN{printf "%.1f", k/1024}')"
  done
done
