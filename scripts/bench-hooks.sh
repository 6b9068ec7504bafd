#!/usr/bin/env bash
# Time `gk hook prompt`, `gk hook stop`, `gk hook session`, the switch
# guard (`gk hook pre-model-switch`, asking) and `gk statusline` against
# a no-op process (/bin/true with the same stdin)
# and the Python reference hooks, and print the ratios. One command:
#
#   scripts/bench-hooks.sh [RUNS] [REF_RUNS]   (defaults 1000 and 30)
#   scripts/bench-hooks.sh --write-order       (rewrite scripts/hot-path.order)
#
# Two gk builds are timed: the plain `cargo build --release` binary, and
# the same code linked statically and non-PIE (`cargo rustc --release
# --bin gk -- $(sh scripts/static-flags.sh)`, Linux), which skips the dynamic
# loader and is what scripts/install-gk.sh builds.
# The Python reference is looked for in $GK_REFERENCE_DIR, else
# ../shared/reference; it is slow, so it gets REF_RUNS runs (timed in the
# same interleaved run as gk) rather than RUNS.
# With GK_BENCH_BASELINE=<path of another gk build> (an older commit's
# static build, say) that binary's hooks and status line are timed in the
# same interleaved run, so a change is judged side by side, not against
# figures from another day.
# Put the baseline under target/bench/ beside the build: a copy of the
# same baseline run from /tmp measured 1.71x where its copy there measured
# 1.34x (docs/maintainers/benchmarks.md).
# Timing uses scripts/bench-spawn.rs (spawn + wait, stdin from a file, no
# shell in between): hyperfine 1.15, as Debian packages it, cannot give a
# command a stdin file without a shell, whose own start-up would swamp a
# sub-millisecond hook. The no-op runs before each command: a program
# started right after the same binary ran measured 4-9 % faster, so a
# command's figure depended on its neighbour in the list
# (docs/maintainers/benchmarks.md). Every run starts on one core
# (taskset) with that core's L2 cache written over first (16 MiB;
# BENCH_EVICT_MB), as a hook starts after seconds of the client's work.
set -euo pipefail
cd "$(dirname "$0")/.."
WRITE_ORDER=no
if [ "${1:-}" = --write-order ]; then WRITE_ORDER=yes; shift; fi
RUNS=${1:-1000}
REF_RUNS=${2:-30}
WARMUP=20
REF=${GK_REFERENCE_DIR:-../shared/reference}
PY=${PYTHON:-python3}

mkdir -p target/bench
log=target/bench/build.log
build() { "$@" >"$log" 2>&1 || { cat "$log"; exit 1; }; }
build cargo build --release
cp target/release/gk target/bench/gk-dynamic
# shellcheck disable=SC2046 # the flags are words
GK_LINK_ORDER_LOG="$PWD/target/bench/order.log" build cargo rustc --release --bin gk -- $(sh scripts/static-flags.sh)
cp target/release/gk target/bench/gk-static
# What scripts/link-in-order.sh found of scripts/hot-path.order (when gk
# was linked again: an unchanged build is not).
if [ -f target/bench/order.log ]; then
  echo "scripts/hot-path.order: $(tail -n 1 target/bench/order.log) in the static build"
  rm -f target/bench/order.log
fi
GK="$PWD/target/bench/gk-static"
GKD="$PWD/target/bench/gk-dynamic"
rustc -O --edition 2021 -o target/bench/bench-spawn scripts/bench-spawn.rs
SPAWN=(target/bench/bench-spawn)
if command -v taskset >/dev/null; then
  SPAWN=(taskset -c 0 target/bench/bench-spawn)
else
  echo "note: taskset not found; runs are not pinned to one core (figures depend on order)" >&2
fi
# The floor under the 50-plugin figure: a process that only reads the
# plugins' 100 files (linked as gk is).
# shellcheck disable=SC2046
rustc -O --edition 2021 $(sh scripts/static-flags.sh) -o target/bench/bench-read scripts/bench-read.rs

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" USERPROFILE="$tmp/home"
unset CLAUDE_CONFIG_DIR
mkdir -p "$HOME/.claude/hooks"
# A realistic state, per session (the default scope): this session's record
# says a task is in progress, written a few minutes ago, in a state folder
# holding GK_BENCH_RECORDS (default 10,000) other sessions' records (the
# hooks read files by name, so the others must cost nothing).
RECORDS=${GK_BENCH_RECORDS:-10000}
export GK_STATE_DIR="$tmp/state"
unset XDG_STATE_HOME CLAUDE_PROJECT_DIR
mkdir -p "$GK_STATE_DIR"
for i in $(seq 1 "$RECORDS"); do
  printf '{"status": "clean", "task": "", "detail": "", "project": "", "cwd": "", "updated": ""}\n' \
    > "$GK_STATE_DIR/$(printf '%08x' "$i")-0000-4000-8000-000000000000.json"
done
cat > "$GK_STATE_DIR/3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f.json" <<'JSON'
{
  "status": "in_progress",
  "task": "Writing bfsi-case.ttl",
  "detail": "Phase P1 -- new shared case module",
  "project": "BFSI",
  "cwd": "/home/u/work/BFSI",
  "updated": "2026-09-26T14:32:00"
}
JSON
touch -d '-7 minutes' "$GK_STATE_DIR/3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f.json"
# The shared record says the same (what a v5 build, e.g. GK_BENCH_BASELINE, reads).
cp "$GK_STATE_DIR/3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f.json" "$HOME/.claude/hooks/task_state.json"
touch -d '-7 minutes' "$HOME/.claude/hooks/task_state.json"
# The payloads Claude Code sends (shape measured on the real client).
printf '%s' '{"session_id":"3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f","transcript_path":"/home/u/.claude/projects/-home-u-work/3f2a9c1e.jsonl","cwd":"/home/u/work","prompt_id":"p-0001","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"Please review all the SPARQL queries in the ontology folder and explain what each one does"}' > "$tmp/prompt.json"
printf '%s' '{"session_id":"3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f","transcript_path":"/home/u/.claude/projects/-home-u-work/3f2a9c1e.jsonl","cwd":"/home/u/work","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done.","background_tasks":[],"session_crons":[]}' > "$tmp/stop.json"
# The session check's input (shape measured on the real client), for a
# project with settings of its own, and the settings files it reads: user
# settings with gk's three hooks (the program in place), other tools' hooks,
# an env block and permissions, as `gk install` leaves them beside a few
# other tools; a project file with a hook; a local file with permissions.
# Healthy, so the check prints nothing. The same again with one problem (a
# second spelling of the prompt hook in the local file) shows what printing
# the warning costs.
cp "$GK" "$HOME/.claude/hooks/gk"
unset GK_MANAGED_SETTINGS
PROJ="$tmp/work/BFSI"
mkdir -p "$PROJ/.claude"
cat > "$HOME/.claude/settings.json" <<'JSON'
{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "env": {
    "ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-5-5",
    "HTTPS_PROXY": "http://proxy.internal:8080",
    "BASH_DEFAULT_TIMEOUT_MS": "300000"
  },
  "permissions": {
    "allow": [
      "Bash(git status:*)",
      "Bash(cargo test:*)",
      "Read(~/.local/state/gk/*.json)",
      "Edit(~/.local/state/gk/*.json)"
    ],
    "deny": ["Read(./.env)"]
  },
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "\"$HOME/.claude/hooks/gk\" hook prompt",
            "statusMessage": "Gatekeeper assessing prompt..."
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "\"$HOME/.claude/hooks/gk\" hook stop",
            "timeout": 5
          }
        ]
      },
      {
        "hooks": [{"type": "command", "command": "notify-send 'Claude finished'"}]
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "\"$HOME/.claude/hooks/gk\" hook session",
            "timeout": 5
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "$HOME/.local/bin/bash-guard --strict", "timeout": 10}]
      },
      {
        "matcher": "Edit|Write",
        "hooks": [{"type": "command", "command": "python3 ~/tools/protect_paths.py"}]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [{"type": "command", "command": "npx prettier --write \"$CLAUDE_PROJECT_DIR\"", "timeout": 30}]
      }
    ],
    "Notification": [
      {
        "hooks": [{"type": "command", "command": "notify-send 'Claude needs you'"}]
      }
    ]
  },
  "model": "opus",
  "includeCoAuthoredBy": false
}
JSON
cat > "$PROJ/.claude/settings.json" <<'JSON'
{
  "permissions": {
    "allow": ["Bash(make:*)", "Bash(npm run lint)"]
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit",
        "hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/scripts/lint-changed.sh"}]
      }
    ]
  }
}
JSON
cat > "$PROJ/.claude/settings.local.json" <<'JSON'
{
  "permissions": {
    "allow": ["Bash(docker compose up:*)", "WebFetch(domain:docs.internal)"]
  }
}
JSON
printf '{"session_id":"3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f","transcript_path":"/home/u/.claude/projects/-home-u-work/3f2a9c1e.jsonl","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}' "$PROJ" > "$tmp/session.json"
PROJ2="$tmp/work/twice"
mkdir -p "$PROJ2/.claude"
cp "$PROJ/.claude/settings.json" "$PROJ2/.claude/settings.json"
printf '{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/.claude/hooks/gk hook prompt"}]}]}}\n' > "$PROJ2/.claude/settings.local.json"
sed "s|$PROJ|$PROJ2|" "$tmp/session.json" > "$tmp/session-warn.json"
# The session check in a project that enables 50 plugins of a directory
# marketplace, each with a manifest and a hooks file of three
# handlers: what it reads at every start besides the settings files.
PROJ3="$tmp/work/plugins50"
mkdir -p "$PROJ3/.claude"
"$PY" scripts/bench-plugins.py "$tmp/mkt" "$HOME/.claude/plugins" "$PROJ3/.claude/settings.json" "$PROJ/.claude/settings.json"
sed "s|$PROJ|$PROJ3|" "$tmp/session.json" > "$tmp/session-plugins.json"
# The worst hostile repository for the session check (measured with
# tests/it/adversarial_plugins.rs's cases): two settings files of 245 KiB, each
# enabling the same 18,900 plugins of a folder marketplace. Within the one
# budget it parses both files, merges the ids (one hash look-up each), looks
# for 100 plugins and names the rest in one line.
PROJ4="$tmp/work/hostile"
mkdir -p "$PROJ4/.claude"
"$PY" - "$PROJ4/.claude" <<'PYEOF'
import json, sys
def short(i):
    d = "0123456789abcdefghijklmnopqrstuvwxyz"; s = ""
    while True:
        s = d[i % 36] + s; i //= 36
        if i == 0: return s
ids = {short(i) + "@m": True for i in range(18900)}
doc = {"extraKnownMarketplaces": {"m": {"source": {"source": "directory", "path": "mkt"}}}, "enabledPlugins": ids}
for name in ("settings.json", "settings.local.json"):
    with open(sys.argv[1] + "/" + name, "w") as f:
        f.write(json.dumps(doc, separators=(",", ":")))
PYEOF
sed "s|$PROJ|$PROJ4|" "$tmp/session.json" > "$tmp/session-hostile.json"
"$GK" hook session < "$tmp/session-hostile.json" | grep -q 'too many to check at session start'
# The session check at the start of a successor in $PROJ: the folder's
# pointer names an earlier session's record that is in progress there (a
# record is followed only into the folder its `cwd` names, or below it).
sed 's/3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f/7c1d0b2a-0000-4000-8000-00000000beef/' "$tmp/session.json" > "$tmp/session-next.json"
earlier=5d6e7f80-9a1b-4c2d-8e3f-405162738495
sed "s|\"cwd\": \"/home/u/work/BFSI\"|\"cwd\": \"$PROJ\"|" \
  "$GK_STATE_DIR/3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f.json" > "$GK_STATE_DIR/$earlier.json"
touch -d '-7 minutes' "$GK_STATE_DIR/$earlier.json"
printf '{"session_id":"7c1d0b2a-0000-4000-8000-00000000beef","cwd":"%s","prompt":"go"}' "$PROJ" > "$tmp/prompt-proj.json"
pointer=$("$GK" hook prompt < "$tmp/prompt-proj.json" | grep -o 'folder\.[0-9a-f]\{32\}\.json' | head -1)
printf '{"session": "%s"}\n' "$earlier" > "$GK_STATE_DIR/$pointer"
"$GK" hook session < "$tmp/session-next.json" | grep -q 'an earlier session in this folder left'

# The prompt hook beside a 50 MB transcript (the tail of a long session:
# system-prompt snapshots, tool results, replies; the last reply on Opus,
# then the Stop hook's lines). The hook reads its last 64 KiB only; the
# other prompt runs point at a transcript that does not exist.
mkdir -p "$HOME/.claude/projects/-home-u-work"
TRANSCRIPT="$HOME/.claude/projects/-home-u-work/3f2a9c1e.jsonl"
"$PY" - "$TRANSCRIPT" <<'PYEOF'
import json, sys
snapshot = json.dumps({"type": "attachment", "attachment": {"type": "prompt_snapshot", "content": "s" * 60000}})
tool = json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": "r" * 4000}]}})
def reply(model, text):
    return json.dumps({"type": "assistant", "isSidechain": False, "effort": "medium",
                       "message": {"model": model, "role": "assistant", "content": [{"type": "text", "text": text}]}})
with open(sys.argv[1], "w") as f:
    size = 0
    while size < 50 * 1000 * 1000:
        for line in (snapshot, tool, tool, reply("claude-sonnet-5", "d" * 2000)):
            f.write(line + "\n"); size += len(line) + 1
    for line in (reply("claude-opus-5-5", "Done."),
                 json.dumps({"type": "attachment", "attachment": {"type": "hook_success", "hookEvent": "Stop"}}),
                 json.dumps({"type": "system", "subtype": "stop_hook_summary", "hookCount": 1})):
        f.write(line + "\n")
PYEOF
sed "s|\"transcript_path\":\"[^\"]*\"|\"transcript_path\":\"$TRANSCRIPT\"|; s|Please review all the SPARQL queries in the ontology folder and explain what each one does|there is a deadlock in the scheduler, find the race and fix it|" \
  "$tmp/prompt.json" > "$tmp/prompt-transcript.json"

# Two prompts of 2,000 characters, about the most the recommender reads
# (HEAD_BYTES): a bug report with a pasted traceback, as long prompts are
# (real prompts: median 98 characters, 95th percentile 382), and its first
# paragraph repeated to the same length (fewer distinct features: the
# figure the first measurement of length took).
"$PY" - "$tmp/prompt.json" "$tmp/prompt-2000-pasted.json" "$tmp/prompt-2000-repeated.json" <<'PYEOF'
import json, sys
report = """The nightly export job on staging broke again after yesterday's merge of the retry refactor, and I need you to track it down properly this time rather than bumping the timeout. Here is what I see in the worker log around 02:14 UTC:

Traceback (most recent call last):
  File "/srv/exporter/app/jobs/nightly.py", line 212, in run_batch
    uploaded = client.put_object(bucket, key, body, checksum=digest)
  File "/srv/exporter/app/storage/client.py", line 88, in put_object
    resp = self._session.request("PUT", url, data=body, timeout=self.timeout)
  File "/usr/lib/python3.11/site-packages/requests/sessions.py", line 589, in request
    resp = self.send(prep, **send_kwargs)
requests.exceptions.ConnectionError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))

After that the scheduler marks batch 7f3c as failed, but the retry wrapper in app/storage/retry.py catches the exception, logs "retrying in 0s" and tries again immediately, four hundred times in under a minute, until the rate limiter on the storage gateway locks the whole service account out for an hour. Every other job sharing that account then fails too, which is how we lost the invoice sync on Tuesday.

Things I already checked: the gateway itself is healthy, other clients upload fine at the same time, and the payloads are under the 5 MB limit. The backoff settings in config/staging.yaml look right (base 2s, factor 2, cap 120s, jitter on), so my guess is the refactor reads them from the wrong section or the exception type no longer matches the tuple the decorator filters on.

Please find the actual cause, fix the backoff so a reset waits as configured, make sure a persistent failure gives up after the configured attempts instead of spinning, and add a regression test that simulates a connection reset against a fake server. Keep the public interface of the client unchanged; two other services import it. When you are done, summarise what was wrong in a few sentences I can paste into the incident ticket."""
first = report.split("\n\n")[0] + " "
doc = json.load(open(sys.argv[1]))
for path, text in ((sys.argv[2], report), (sys.argv[3], first * 10)):
    assert len(text) >= 2000
    doc["prompt"] = text[:2000]
    with open(path, "w") as f:
        json.dump(doc, f)
PYEOF

# The status line's input (shape from the client's docs).
printf '%s' '{"session_id":"3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f","transcript_path":"/home/u/.claude/projects/-home-u-work/3f2a9c1e.jsonl","cwd":"/home/u/work","model":{"id":"claude-opus-5-5","display_name":"Opus 5.5"},"workspace":{"current_dir":"/home/u/work","project_dir":"/home/u/work"},"version":"2.1.332"}' > "$tmp/statusline.json"

# A successor: another session in the same folder, with no record yet
# (after /clear or a fork); the folder's pointer names the first session,
# so its hooks read the pointer and that record too. The
# pointer's name is the one the prompt hook asks Claude to write.
sed 's/3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f/7c1d0b2a-0000-4000-8000-00000000beef/' "$tmp/prompt.json" > "$tmp/prompt-next.json"
sed 's/3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f/7c1d0b2a-0000-4000-8000-00000000beef/' "$tmp/stop.json" > "$tmp/stop-next.json"
pointer=$("$GK" hook prompt < "$tmp/prompt-next.json" | grep -o 'folder\.[0-9a-f]\{32\}\.json' | head -1)
printf '{"session": "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f"}\n' > "$GK_STATE_DIR/$pointer"
"$GK" hook stop < "$tmp/stop-next.json" | grep -q 'left by an earlier session in this folder'

# A `/model sonnet` mid-task (shape measured on the real client): the
# guard finds the task in progress and asks.
printf '%s' '{"session_id":"3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f","transcript_path":"/home/u/.claude/projects/-home-u-work/3f2a9c1e.jsonl","cwd":"/home/u/work","prompt_id":"p-0002","hook_event_name":"PreModelSwitch","from_model":"claude-opus-5-5","to_model":"claude-sonnet-5-5","requested_model":"sonnet","source":"command","context_tokens":180000,"prompt_cache_warm":true,"cache_ttl":"5m","estimated_cache_write_usd":0.42,"pricing":"catalog"}' > "$tmp/switch.json"

# Sanity: the hooks answer before they are timed.
"$GK" hook pre-model-switch < "$tmp/switch.json" | grep -q '"permissionDecision": "ask"'
"$GK" hook prompt < "$tmp/prompt.json" | grep -q '"systemMessage"'
"$GK" hook prompt < "$tmp/prompt-transcript.json" | grep -q 'For the next task: the current model fits'
"$GK" hook prompt < "$tmp/prompt-2000-pasted.json" | grep -q 'Suggested model: Opus'
"$GK" hook stop < "$tmp/stop.json" | grep -q 'STATE \[DIRTY\]'
"$GK" hook prompt < "$tmp/prompt.json" | grep -q "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f.json"
"$GK" statusline < "$tmp/statusline.json" | grep -q 'gk DIRTY'
out=$("$GK" hook session < "$tmp/session.json")
[ -z "$out" ] || { echo "the session check is not silent on the healthy setup: $out"; exit 1; }
out=$("$GK" hook session < "$tmp/session-plugins.json")
[ -z "$out" ] || { echo "the session check is not silent with 50 healthy plugins: $out"; exit 1; }
"$GK" hook session < "$tmp/session-warn.json" | grep -q 'runs twice on every UserPromptSubmit'

TAB=$'\t'

# --write-order: the functions each hook runs here (callgrind), in the
# order of the hooks below, written to scripts/hot-path.order as `nm -C`
# spells them (scripts/link-in-order.sh looks them up by that name).
if [ "$WRITE_ORDER" = yes ]; then
  command -v valgrind >/dev/null || { echo "--write-order needs valgrind (its callgrind)"; exit 1; }
  : > "$tmp/called"
  while IFS="$TAB" read -r input cmd; do
    read -ra words <<< "$cmd"
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/cg.out" \
      "$GK" "${words[@]}" < "$input" > /dev/null 2>&1
    grep -oE '^c?fn=\([0-9]+\) .*' "$tmp/cg.out" | sed -E 's/^c?fn=\([0-9]+\) //' >> "$tmp/called"
  done <<HOOKS
$tmp/prompt.json${TAB}hook prompt
$tmp/prompt-transcript.json${TAB}hook prompt
$tmp/prompt-2000-pasted.json${TAB}hook prompt
$tmp/stop.json${TAB}hook stop
$tmp/prompt-next.json${TAB}hook prompt
$tmp/stop-next.json${TAB}hook stop
$tmp/statusline.json${TAB}statusline
$tmp/switch.json${TAB}hook pre-model-switch
$tmp/session.json${TAB}hook session
$tmp/session-warn.json${TAB}hook session
$tmp/session-plugins.json${TAB}hook session
HOOKS
  sh scripts/link-in-order.sh --names "$GK" > "$tmp/names"
  {
    echo "# The functions gk's hooks run, in the order they are to be linked"
    echo "# (scripts/link-in-order.sh). Written by scripts/bench-hooks.sh"
    echo "# --write-order: rerun it when the hooks' code changes much."
    awk -F "$TAB" '
      FNR == NR { demangled[$1] = $2; next }
      ($0 in demangled) && !(demangled[$0] in done) { done[demangled[$0]] = 1; print demangled[$0] }
    ' "$tmp/names" "$tmp/called"
  } > scripts/hot-path.order
  echo "scripts/hot-path.order: $(grep -vc '^#' scripts/hot-path.order) functions"
  exit 0
fi

P="$tmp/prompt.json"
S="$tmp/stop.json"
L="$tmp/statusline.json"
SS="$tmp/session.json"
SW="$tmp/session-warn.json"
{
  echo "no-op(/bin/true)${TAB}$P${TAB}/bin/true"
  echo "gk-prompt(static)${TAB}$P${TAB}$GK${TAB}hook${TAB}prompt"
  echo "gk-prompt-transcript50MB(static)${TAB}$tmp/prompt-transcript.json${TAB}$GK${TAB}hook${TAB}prompt"
  echo "gk-prompt-2000-pasted(static)${TAB}$tmp/prompt-2000-pasted.json${TAB}$GK${TAB}hook${TAB}prompt"
  echo "gk-prompt-2000-repeated(static)${TAB}$tmp/prompt-2000-repeated.json${TAB}$GK${TAB}hook${TAB}prompt"
  echo "gk-stop(static)${TAB}$S${TAB}$GK${TAB}hook${TAB}stop"
  echo "gk-prompt-successor(static)${TAB}$tmp/prompt-next.json${TAB}$GK${TAB}hook${TAB}prompt"
  echo "gk-stop-successor(static)${TAB}$tmp/stop-next.json${TAB}$GK${TAB}hook${TAB}stop"
  echo "gk-statusline(static)${TAB}$L${TAB}$GK${TAB}statusline"
  echo "gk-pre-model-switch(static)${TAB}$tmp/switch.json${TAB}$GK${TAB}hook${TAB}pre-model-switch"
  echo "gk-session(static)${TAB}$SS${TAB}$GK${TAB}hook${TAB}session"
  echo "gk-session-warn(static)${TAB}$SW${TAB}$GK${TAB}hook${TAB}session"
  echo "gk-session-successor(static)${TAB}$tmp/session-next.json${TAB}$GK${TAB}hook${TAB}session"
  echo "gk-session-plugins50(static)${TAB}$tmp/session-plugins.json${TAB}$GK${TAB}hook${TAB}session"
  printf 'read-plugin-files(static)\t%s\t%s' "$tmp/session-plugins.json" "$PWD/target/bench/bench-read"
  for f in "$tmp"/mkt/plugins/*/.claude-plugin/plugin.json "$tmp"/mkt/plugins/*/hooks/hooks.json; do
    printf '\t%s' "$f"
  done
  echo
  echo "gk-prompt(dynamic)${TAB}$P${TAB}$GKD${TAB}hook${TAB}prompt"
  echo "gk-stop(dynamic)${TAB}$S${TAB}$GKD${TAB}hook${TAB}stop"
  if [ -n "${GK_BENCH_BASELINE:-}" ]; then
    echo "baseline-prompt${TAB}$P${TAB}$GK_BENCH_BASELINE${TAB}hook${TAB}prompt"
    echo "baseline-stop${TAB}$S${TAB}$GK_BENCH_BASELINE${TAB}hook${TAB}stop"
    echo "baseline-prompt-2000-pasted${TAB}$tmp/prompt-2000-pasted.json${TAB}$GK_BENCH_BASELINE${TAB}hook${TAB}prompt"
    echo "baseline-session-plugins50${TAB}$tmp/session-plugins.json${TAB}$GK_BENCH_BASELINE${TAB}hook${TAB}session"
    echo "baseline-session${TAB}$SS${TAB}$GK_BENCH_BASELINE${TAB}hook${TAB}session"
    echo "baseline-statusline${TAB}$L${TAB}$GK_BENCH_BASELINE${TAB}statusline"
  fi
} > "$tmp/spec1.tsv"

echo "gk $("$GK" --version | cut -d' ' -f2); $(nproc) CPUs; $(uname -sr)"
echo
echo "== gk against a no-op process ($RUNS interleaved runs each)"
"${SPAWN[@]}" "$RUNS" "$WARMUP" "$tmp/spec1.tsv" | tee "$tmp/result1.txt"
# The hostile session check runs 20 ms, fifty times the others; in the same
# round it lifted the short hooks' ratios by up to 0.13 (the prompt hook
# 1.20x -> 1.33x, docs/maintainers/benchmarks.md), so it is timed apart.
HRUNS=$(( RUNS / 10 > 30 ? RUNS / 10 : 30 ))
{
  echo "no-op(/bin/true)${TAB}$P${TAB}/bin/true"
  echo "gk-session-hostile(static)${TAB}$tmp/session-hostile.json${TAB}$GK${TAB}hook${TAB}session"
} > "$tmp/spec1h.tsv"
echo
echo "== the session check in a hostile repository, apart ($HRUNS interleaved runs)"
"${SPAWN[@]}" "$HRUNS" 3 "$tmp/spec1h.tsv" | tee "$tmp/result1h.txt"

have_ref=no
if [ -f "$REF/gatekeeper.py" ] && command -v "$PY" >/dev/null; then
  have_ref=yes
  PYBIN=$(command -v "$PY")
  {
    echo "gk-prompt(static)${TAB}$P${TAB}$GK${TAB}hook${TAB}prompt"
    echo "gk-stop(static)${TAB}$S${TAB}$GK${TAB}hook${TAB}stop"
    echo "python-gatekeeper.py${TAB}$P${TAB}$PYBIN${TAB}$REF/gatekeeper.py"
    echo "python-state_monitor.py${TAB}$S${TAB}$PYBIN${TAB}$REF/state_monitor.py"
  } > "$tmp/spec2.tsv"
  echo
  echo "== gk against the Python reference ($REF_RUNS interleaved runs each)"
  "${SPAWN[@]}" "$REF_RUNS" 3 "$tmp/spec2.tsv" | tee "$tmp/result2.txt"
else
  echo "(no reference at $REF: gk and /bin/true only)"
fi

echo
echo "== ratios (medians)"
# In this order: the first no-op is the main run's, the second the hostile run's.
cat "$tmp/result1.txt" "$tmp/result1h.txt" "$tmp"/result2.txt 2>/dev/null | awk -v have_ref="$have_ref" '
  $1 != "command" { if (!($1 in med)) med[$1] = $2; else med2[$1] = $2 }
  END {
    t = med["no-op(/bin/true)"]
    printf "gk hook prompt, static  / no-op   %5.2fx  (target <= 1.3x)\n", med["gk-prompt(static)"] / t
    printf "gk hook prompt, 50 MB transcript / no-op %5.2fx  (target <= 1.3x; its last 64 KiB read)\n", med["gk-prompt-transcript50MB(static)"] / t
    printf "gk hook prompt, 50 MB transcript / no transcript %5.3fx\n", med["gk-prompt-transcript50MB(static)"] / med["gk-prompt(static)"]
    printf "gk hook prompt, 2,000 characters / no-op %5.2fx  (a report with a pasted traceback)\n", med["gk-prompt-2000-pasted(static)"] / t
    printf "gk hook prompt, 2,000 characters / no-op %5.2fx  (one paragraph repeated)\n", med["gk-prompt-2000-repeated(static)"] / t
    printf "gk hook stop,   static  / no-op   %5.2fx  (target <= 1.2x)\n", med["gk-stop(static)"] / t
    printf "gk hook prompt, successor / no-op %5.2fx  (target <= 1.3x; no record, the earlier session'"'"'s read)\n", med["gk-prompt-successor(static)"] / t
    printf "gk hook stop,   successor / no-op %5.2fx  (target <= 1.2x; no record, the earlier session'"'"'s read)\n", med["gk-stop-successor(static)"] / t
    printf "gk statusline,  static  / no-op   %5.2fx  (target <= 1.3x)\n", med["gk-statusline(static)"] / t
    printf "gk hook pre-model-switch / no-op  %5.2fx  (target <= 1.2x; task in progress, asks)\n", med["gk-pre-model-switch(static)"] / t
    printf "gk hook session, static / no-op   %5.2fx  (target <= 1.5x; healthy, silent)\n", med["gk-session(static)"] / t
    printf "gk hook session, static / no-op   %5.2fx  (one problem, one line printed)\n", med["gk-session-warn(static)"] / t
    printf "gk hook session, successor / no-op %5.2fx (healthy; the earlier session'"'"'s task told)\n", med["gk-session-successor(static)"] / t
    printf "gk hook session, 50 plugins / no-op %5.2fx (target <= 1.5x; healthy, silent)\n", med["gk-session-plugins50(static)"] / t
    printf "reading those 100 files alone / no-op %5.2fx (the floor: open, fstat, one read, close each)\n", med["read-plugin-files(static)"] / t
    printf "gk hook session, 50 plugins / floor %5.2fx (target <= 1.3x)\n", med["gk-session-plugins50(static)"] / med["read-plugin-files(static)"]
    printf "gk hook session, hostile / no-op  %5.2fx (18,900 ids in two 245 KiB files; one line; its own run)\n", med["gk-session-hostile(static)"] / med2["no-op(/bin/true)"]
    printf "gk hook prompt, dynamic / no-op   %5.2fx\n", med["gk-prompt(dynamic)"] / t
    printf "gk hook stop,   dynamic / no-op   %5.2fx\n", med["gk-stop(dynamic)"] / t
    if ("baseline-prompt" in med) {
      printf "baseline prompt         / no-op   %5.2fx  (GK_BENCH_BASELINE)\n", med["baseline-prompt"] / t
      printf "baseline stop           / no-op   %5.2fx  (GK_BENCH_BASELINE)\n", med["baseline-stop"] / t
      printf "baseline prompt, 2,000 characters / no-op %5.2fx (GK_BENCH_BASELINE; the pasted traceback)\n", med["baseline-prompt-2000-pasted"] / t
      printf "baseline session, 50 plugins / no-op %5.2fx (GK_BENCH_BASELINE)\n", med["baseline-session-plugins50"] / t
      printf "baseline session        / no-op   %5.2fx  (GK_BENCH_BASELINE)\n", med["baseline-session"] / t
      printf "baseline statusline     / no-op   %5.2fx  (GK_BENCH_BASELINE)\n", med["baseline-statusline"] / t
      printf "this build / baseline: prompt of 2,000 characters %5.3fx\n", med["gk-prompt-2000-pasted(static)"] / med["baseline-prompt-2000-pasted"]
      printf "this build / baseline: prompt %5.3fx, stop %5.3fx, session %5.3fx, statusline %5.3fx, session 50 plugins %5.3fx\n", med["gk-prompt(static)"] / med["baseline-prompt"], med["gk-stop(static)"] / med["baseline-stop"], med["gk-session(static)"] / med["baseline-session"], med["gk-statusline(static)"] / med["baseline-statusline"], med["gk-session-plugins50(static)"] / med["baseline-session-plugins50"]
    }
    if (have_ref == "yes") {
      printf "python gatekeeper.py    / gk      %5.0fx  (target >= 25x)\n", med["python-gatekeeper.py"] / med2["gk-prompt(static)"]
      printf "python state_monitor.py / gk      %5.0fx  (target >= 25x)\n", med["python-state_monitor.py"] / med2["gk-stop(static)"]
    }
  }'
