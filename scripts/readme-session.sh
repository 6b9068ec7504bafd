#!/usr/bin/env bash
# README's "What you will see" block, taken from a real interactive session:
# the pinned Claude Code client in tmux, offline against the loopback mock
# (tests/e2e/mock_messages.py), in a temporary HOME where `gk install` has
# just run. Two prompts are typed — one the recommender has nothing to say
# about, one it advises a model for — and the screen lines from each prompt
# to its Stop line are kept.
#
#   scripts/readme-session.sh            # print the block
#   scripts/readme-session.sh --write    # also put it into README.md
#   scripts/readme-session.sh --check    # exit 1 when README.md's block differs
#
# Needs: GK_E2E_CLAUDE (scripts/install-claude-client.sh prints it), tmux,
# python3; gk from GK_BIN, else the debug build (cargo build first).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:-print}"
client="${GK_E2E_CLAUDE:?set GK_E2E_CLAUDE (scripts/install-claude-client.sh prints it)}"
gk="${GK_BIN:-${CARGO_TARGET_DIR:-$repo/target}/debug/gk}"
[ -n "${GK_BIN:-}" ] || (cd "$repo" && cargo build --quiet)
command -v tmux >/dev/null || { echo "readme-session: tmux not found" >&2; exit 1; }

work="$(mktemp -d)"
session="gk-readme-$$"
mock_pid=""
cleanup() {
    tmux kill-session -t "$session" 2>/dev/null || true
    if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; fi
    sleep 0.5  # the client's last writes under HOME
    rm -rf "$work" 2>/dev/null || true
}
trap cleanup EXIT
home="$work/home"; proj="$work/project"
mkdir -p "$home" "$proj"
printf '{"hasCompletedOnboarding": true, "theme": "dark", "projects": {"%s": {"hasTrustDialogAccepted": true}}}\n' \
    "$proj" > "$home/.claude.json"
(cd "$proj" && HOME="$home" XDG_DATA_HOME="$work/data" GK_MANAGED_SETTINGS="$work/none.json" \
    "$gk" install --yes --no-smoke >/dev/null)

# The mock prints "PORT <n>" and stops when its stdin closes.
mkfifo "$work/mock-in"
python3 "$repo/tests/e2e/mock_messages.py" "$work/mock.log" < "$work/mock-in" > "$work/port" &
mock_pid=$!
exec 3> "$work/mock-in"
for _ in $(seq 100); do grep -q PORT "$work/port" 2>/dev/null && break; sleep 0.1; done
port="$(awk '/PORT/ {print $2}' "$work/port")"
[ -n "$port" ] || { echo "readme-session: the mock did not start" >&2; exit 1; }

tmux new-session -d -s "$session" -x 150 -y 50 -c "$proj" \
    "env HOME='$home' ANTHROPIC_BASE_URL=http://127.0.0.1:$port ANTHROPIC_API_KEY=sk-readme-not-a-key '$client'; sleep 600"
screen() { tmux capture-pane -p -t "$session"; }
wait_for() {
    for _ in $(seq 150); do screen | grep -q "$1" && return 0; sleep 0.2; done
    echo "readme-session: timed out waiting for: $1" >&2; screen >&2; exit 1
}
wait_for "API key"
tmux send-keys -t "$session" Up; sleep 0.3; tmux send-keys -t "$session" Enter
wait_for "auto mode"
prompts=("add a --verbose flag to the cli" "design the schema for multi-tenant billing and explain the tradeoffs")
for p in "${prompts[@]}"; do
    tmux send-keys -t "$session" "$p"; sleep 0.3; tmux send-keys -t "$session" Enter
    wait_for "❯ $p"
    for _ in $(seq 150); do
        screen | sed -n "/❯ $p/,\$p" | grep -q "Stop says" && break; sleep 0.2
    done
done
# From the first prompt to the last Stop line; the timing lines vary.
block="$(screen | sed -n "/❯ ${prompts[0]}/,\$p" | grep -v '^\s*$' \
    | grep -v '^✻' | sed -n '1,/Stop says.*/{p}' ; \
    screen | sed -n "/❯ ${prompts[1]}/,\$p" | grep -v '^\s*$' | grep -v '^✻' | sed -n '1,/Stop says/p')"
block="$(printf '%s\n' "$block" | sed 's/[[:space:]]*$//')"

case "$mode" in
print) printf '%s\n' "$block" ;;
--write | --check)
    python3 - "$repo/README.md" "$mode" "$block" <<'EOF'
import sys
path, mode, block = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path, encoding="utf-8").read()
begin, end = "<!-- readme-session:begin -->\n", "<!-- readme-session:end -->"
i, j = text.index(begin) + len(begin), text.index(end)
new = text[:i] + "```\n" + block + "\n```\n" + text[j:]
if mode == "--check":
    if new != text:
        print("README.md: the 'What you will see' block differs from a fresh session", file=sys.stderr)
        sys.exit(1)
else:
    open(path, "w", encoding="utf-8").write(new)
EOF
    ;;
*) echo "usage: $0 [--write|--check]" >&2; exit 2 ;;
esac
