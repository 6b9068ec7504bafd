#!/usr/bin/env bash
# Measure `gk doctor` on a healthy install in a throwaway HOME:
#   1. `gk doctor --no-smoke`  (reads the settings scopes, the binary, the
#      state file, CLAUDE.md and gk.json; starts no process)
#   2. `gk doctor`             (the same plus one smoke run per hook)
# Uses hyperfine (Debian: apt-get install -y hyperfine). Release build.
# Usage: scripts/bench-doctor.sh [extra hyperfine args, e.g. --export-markdown out.md]
set -euo pipefail
cd "$(dirname "$0")/.."

command -v hyperfine >/dev/null || {
    echo "hyperfine not found (Debian: apt-get install -y hyperfine)" >&2
    exit 1
}

cargo build --release --quiet
GK="$PWD/target/release/gk"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" USERPROFILE="$WORK/home" NO_COLOR=1
export GK_MANAGED_SETTINGS="$WORK/etc/managed-settings.json"
unset CLAUDE_CONFIG_DIR
mkdir -p "$HOME/.claude" "$WORK/project/.claude"

# A lived-in user settings file: env with credentials, permissions, another
# tool's hooks; then gk installed on top of it.
{
    echo '{'
    echo '  "env": {"ANTHROPIC_API_KEY": "sk-bench-not-a-secret", "HTTPS_PROXY": "http://u:p@proxy:8080"},'
    echo '  "permissions": {"allow": ['
    for i in $(seq 1 300); do echo "    \"Bash(tool-$i:*)\","; done
    echo '    "Read"'
    echo '  ]},'
    echo '  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/bin/true"}]}]}'
    echo '}'
} >"$HOME/.claude/settings.json"
echo '{"permissions": {"allow": ["Read"]}}' >"$WORK/project/.claude/settings.json"
(cd "$WORK/project" && "$GK" install --yes --no-smoke >/dev/null)
cd "$WORK/project"

"$GK" doctor >/dev/null || {
    echo "the bench install is not healthy:" >&2
    "$GK" doctor >&2
    exit 1
}

echo "gk $("$GK" --version | cut -d' ' -f2), binary $(stat -c %s "$GK" 2>/dev/null || stat -f %z "$GK") bytes"
hyperfine --warmup 5 --runs 50 -N "$@" \
    --command-name "gk doctor --no-smoke" "$GK doctor --no-smoke" \
    --command-name "gk doctor" "$GK doctor"
