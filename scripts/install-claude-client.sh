#!/usr/bin/env bash
# Install the pinned Claude Code client that tests/e2e_claude.rs drives, and
# print the path of its `claude` executable on stdout (everything else goes
# to stderr).
#
# The client lands in a cache folder outside the work tree, so CI runs on the
# same machine reuse it: $GK_E2E_CACHE, else $XDG_CACHE_HOME/gk-e2e, else
# ~/.cache/gk-e2e. When that exact version is already there and starts, this
# is a no-op. The version is the one in tests/e2e/claude-version.
#
#   scripts/install-claude-client.sh --windows
# installs the same version's Windows build instead (npm package
# @anthropic-ai/claude-code-win32-x64: one claude.exe, ~400 MB) into
# claude-code-win32-x64-<version>/ of the same cache, checks that it answers
# --version under Wine (in the prefix scripts/windows-cross-test.sh sets up,
# WINEPREFIX if set) and prints the path of claude.exe.
#
#   scripts/install-claude-client.sh --old
# installs the older client version in tests/e2e/claude-version-old (one
# that does not know every hook event gk can register) the same way, into
# claude-code-<old version>/ of the same cache, and prints the path of its
# `claude`: tests/e2e_claude.rs reads it from GK_E2E_CLAUDE_OLD.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
version_file="$repo/tests/e2e/claude-version"
if [ "${1:-}" = --old ]; then
    version_file="$repo/tests/e2e/claude-version-old"
    shift
fi
version="$(tr -d '[:space:]' < "$version_file")"
cache="${GK_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gk-e2e}"
dest="$cache/claude-code-$version"
bin_rel="node_modules/.bin/claude"

say() { printf 'install-claude-client: %s\n' "$*" >&2; }

if [ "${1:-}" = --windows ]; then
    dest="$cache/claude-code-win32-x64-$version"
    prefix="$(bash "$repo/scripts/windows-cross-test.sh" prefix)"
    export WINEPREFIX="$prefix" WINEDEBUG="${WINEDEBUG:--all}"
    win_reports_version() {
        local out
        [ -f "$1" ] || return 1
        out="$(cd "$(dirname "$1")" && timeout 300 wine "$1" --version 2>/dev/null | tr -d '\r' || true)"
        [ "${out%% *}" = "$version" ]
    }
    if win_reports_version "$dest/claude.exe"; then
        say "claude.exe $version already in $dest"
        printf '%s\n' "$dest/claude.exe"
        exit 0
    fi
    command -v npm >/dev/null || { say "npm not found: install Node.js and npm first"; exit 1; }
    mkdir -p "$cache"
    staging="$(mktemp -d "$cache/.staging-win-$version.XXXXXX")"
    trap 'rm -rf "$staging"' EXIT
    say "fetching @anthropic-ai/claude-code-win32-x64@$version into $dest"
    # npm pack fetches the package without installing it (it is marked os:
    # win32, so npm install would refuse it on Linux).
    (cd "$staging" && npm pack --loglevel=error "@anthropic-ai/claude-code-win32-x64@$version" >&2)
    tar -xzf "$staging"/*.tgz -C "$staging"
    win_reports_version "$staging/package/claude.exe" \
        || { say "claude.exe from the package does not report version $version under Wine"; exit 1; }
    rm -rf "$dest"
    mv "$staging/package" "$dest"
    say "installed claude.exe $version in $dest"
    printf '%s\n' "$dest/claude.exe"
    exit 0
fi

# `claude --version` prints "<version> (Claude Code)". Run it with a
# throw-away HOME so checking never touches the user's ~/.claude.
reports_version() {
    local bin="$1" scratch out
    [ -x "$bin" ] || return 1
    scratch="$(mktemp -d)"
    out="$(env -u CLAUDE_CONFIG_DIR HOME="$scratch" "$bin" --version 2>/dev/null || true)"
    rm -rf "$scratch"
    [ "${out%% *}" = "$version" ]
}

if reports_version "$dest/$bin_rel"; then
    say "claude $version already in $dest"
    printf '%s\n' "$dest/$bin_rel"
    exit 0
fi

command -v npm >/dev/null || { say "npm not found: install Node.js and npm first"; exit 1; }

mkdir -p "$cache"
staging="$(mktemp -d "$cache/.staging-$version.XXXXXX")"
trap 'rm -rf "$staging"' EXIT

say "installing @anthropic-ai/claude-code@$version into $dest"
# The package declares node >= 22 but ships a native executable per platform
# (an optional dependency) and only uses node for its postinstall copy step,
# so the engine warning on older node is harmless.
npm install --prefix "$staging" --no-save --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$version" >&2

if ! reports_version "$staging/$bin_rel"; then
    # The postinstall step puts the platform's native executable in place of
    # a placeholder; run it by hand when npm was told to skip scripts.
    say "running the package's postinstall step by hand"
    (cd "$staging/node_modules/@anthropic-ai/claude-code" && node install.cjs) >&2
fi
if ! reports_version "$staging/$bin_rel"; then
    say "the installed client does not report version $version"
    exit 1
fi

rm -rf "$dest"
mv "$staging" "$dest"
chmod 755 "$dest"
trap - EXIT
say "installed claude $version in $dest"
printf '%s\n' "$dest/$bin_rel"
