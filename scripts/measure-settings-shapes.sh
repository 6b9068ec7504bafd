#!/usr/bin/env bash
# Measure the pinned Claude Code client's verdict on every settings shape in
# tests/fixtures/settings-shapes/ and record it in verdicts.tsv there: each
# shape is the project's settings file of one offline `claude -p` turn (the
# loopback stand-in of tests/e2e/mock_messages.py answers), and the client's
# stderr says which files "did not load" and which entries "were skipped".
# Run it when the pinned version (tests/e2e/claude-version) moves, then
# review the diff of verdicts.tsv and bring gk's rules (src/settings.rs,
# src/settings/schema.rs) and docs/maintainers/claude-code-facts.md along.
# It fails when gk's verdict on a shape differs from the client's.
set -euo pipefail
cd "$(dirname "$0")/.."
claude="${GK_E2E_CLAUDE:-$(bash scripts/install-claude-client.sh | tail -n 1)}"
GK_E2E_CLAUDE="$claude" GK_RECORD_SHAPES=1 \
    cargo test --test e2e_claude -- --exact \
    the_client_judges_every_settings_shape_as_recorded_and_as_gk_does
git --no-pager diff --stat -- tests/fixtures/settings-shapes/verdicts.tsv
