#!/bin/sh
# The rustc flags of gk's Linux (glibc) build: what scripts/install-gk.sh
# builds and scripts/bench-hooks.sh times, in one place. Each is there for
# the hooks' start-up, which every prompt pays, always from a cold cache
# (figures: docs/maintainers/benchmarks.md, "Linked non-PIE, in order").
#
# +crt-static: no dynamic loader (a dynamic build runs its hooks at
# 1.8-2.3x a no-op process).
# relocation-model=static: a non-PIE executable, loaded at a fixed
# address, so the start-up does not first relocate gk's own pointers
# (4,700 of them: 63 k instructions and writes to 20 pages, on every
# hook). It gives up address randomisation of gk's own code and data; the
# stack, the heap and every other mapping stay randomised.
# linker=scripts/link-in-order.sh: links as cc does, the hooks' functions
# placed together (see that script). rustc runs it from the top of the
# repository, where cargo runs rustc for gk itself.
# --cfg gk_linked_<checksum>: the checksum of that script and of
# scripts/hot-path.order, which cargo does not know the link reads; a new
# order is then a new flag, and cargo links gk again (no code reads it).
# A copy of the repository that lost the script's executable bit (an
# archive unpacked without modes) links without it, as before, rather
# than fail to link.
here=$(dirname "$0")
flags="-C target-feature=+crt-static -C relocation-model=static"
if [ -x "$here/link-in-order.sh" ]; then
  sum=$(cat "$here/link-in-order.sh" "$here/hot-path.order" 2>/dev/null | cksum | cut -d ' ' -f 1)
  flags="$flags -C linker=scripts/link-in-order.sh --cfg gk_linked_$sum"
fi
echo "$flags"
