#!/usr/bin/env bash
# The client's speed with gk installed, beside no hooks and an empty hook
# (scripts/bench-in-situ.rs says how): the pinned Claude Code client runs
# ROUNDS turns per arm offline against the end-to-end tests' mock, and the
# medians of what it reports are printed. One command:
#
#   scripts/bench-in-situ.sh [ROUNDS]   (default 3)
#
# The client is the one GK_E2E_CLAUDE names, else the pinned one
# scripts/install-claude-client.sh installs (or finds in its cache). gk is
# the release build (`cargo bench`). Needs python3 for the mock.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${GK_E2E_CLAUDE:-}" ]; then
    GK_E2E_CLAUDE="$(bash scripts/install-claude-client.sh)"
    export GK_E2E_CLAUDE
fi
exec cargo bench --locked --bench in_situ -- "${1:-3}"
