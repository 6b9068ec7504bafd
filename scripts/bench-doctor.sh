#!/usr/bin/env bash
# Measure `gk doctor` on a healthy install in a throwaway HOME:
#   1. `gk doctor --no-smoke`  (reads the settings scopes, the binary, the
#      state file, CLAUDE.md and gk.json; starts no process)
#   2. `gk doctor`             (the same plus one smoke run per hook)
# and on a settings.json with 10,000 hook entries (5,000 groups of another
# tool, 5,000 spellings of gk's prompt hook), where doctor, doctor --fix
# and install would be slow if quadratic in the entries:
#   3. `gk doctor --no-smoke`
#   4. `gk doctor --no-smoke --fix --dry-run`  (plans and shows the fix)
#   5. `gk install --dry-run --no-smoke`       (plans and shows the install)
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

# The crowded file, in a HOME of its own.
CROWD="$WORK/crowd"
mkdir -p "$CROWD/home/.claude" "$CROWD/project"
{
    echo '{'
    echo '  "env": {"ANTHROPIC_API_KEY": "sk-bench-not-a-secret"},'
    echo '  "hooks": {'
    echo '    "PreToolUse": ['
    for i in $(seq 0 4999); do
        sep=','; [ "$i" = 4999 ] && sep=''
        echo "      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"/usr/bin/tool-$i --check\"}]}$sep"
    done
    echo '    ],'
    echo '    "UserPromptSubmit": ['
    spellings=('"$HOME/.claude/hooks/gk" hook prompt' '~/.claude/hooks/gk hook prompt' '$HOME/.claude/hooks/gk hook prompt')
    for i in $(seq 0 4999); do
        sep=','; [ "$i" = 4999 ] && sep=''
        pad=''; [ $((i / 3 % 2)) = 1 ] && pad=' '
        cmd=${spellings[$((i % 3))]}
        echo "      {\"hooks\": [{\"type\": \"command\", \"command\": \"${cmd//\"/\\\"}$pad\"}]}$sep"
    done
    echo '    ]'
    echo '  }'
    echo '}'
} >"$CROWD/home/.claude/settings.json"
entries=$(grep -c '"type": "command"' "$CROWD/home/.claude/settings.json")
[ "$entries" = 10000 ] || { echo "the crowded file has $entries entries, not 10000" >&2; exit 1; }
IN_CROWD="env HOME=$CROWD/home USERPROFILE=$CROWD/home"

echo "gk $("$GK" --version | cut -d' ' -f2), binary $(stat -c %s "$GK" 2>/dev/null || stat -f %z "$GK") bytes"
hyperfine --warmup 5 --runs 50 -N "$@" \
    --command-name "gk doctor --no-smoke" "$GK doctor --no-smoke" \
    --command-name "gk doctor" "$GK doctor"
cd "$CROWD/project"
hyperfine --warmup 2 --runs 10 -N -i "$@" \
    --command-name "10,000 entries: gk doctor --no-smoke" "$IN_CROWD $GK doctor --no-smoke" \
    --command-name "10,000 entries: gk doctor --no-smoke --fix --dry-run" "$IN_CROWD $GK doctor --no-smoke --fix --dry-run" \
    --command-name "10,000 entries: gk install --dry-run --no-smoke" "$IN_CROWD $GK install --dry-run --no-smoke"
