#!/usr/bin/env bash
# Build and install gk, then run `gk install` (which shows its plan and asks).
#
#   scripts/install-gk.sh [gk install flags, e.g. --yes or --dry-run]
#
# On Linux with glibc the binary is linked statically and non-PIE
# (scripts/static-flags.sh says why): the hooks then start without the
# dynamic loader, about 1.1x a no-op process instead of 1.8x (figures in
# docs/maintainers/benchmarks.md). A plain `cargo install --path .` works too.
set -euo pipefail
cd "$(dirname "$0")/.."
host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
  *-linux-gnu)
    # With an explicit --target, RUSTFLAGS reach only gk's own target code,
    # not the derive macros that must stay dynamic.
    RUSTFLAGS="${RUSTFLAGS:-} $(sh scripts/static-flags.sh)" \
      cargo install --locked --path . --target "$host"
    ;;
  *)
    cargo install --locked --path .
    ;;
esac
bin="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin/gk"
[ -x "$bin" ] || bin=gk
exec "$bin" install "$@"
