#!/bin/sh
# The linker of gk's Linux (glibc) build (scripts/static-flags.sh names it;
# rustc runs it as it would run `cc`). It links exactly as `cc` does, and
# when the linker is LLD it also hands it the order of the functions the
# hooks run (scripts/hot-path.order), so that they lie together at the
# start of the code instead of spread over 3 MB of it: a hook starts with a
# cold cache, and its code then fills fewer pages and cache lines
# (docs/maintainers/benchmarks.md, "Linked non-PIE, in order").
#
# scripts/hot-path.order names functions as `nm -C` prints them, without
# the hash a Rust symbol carries (which changes with gk's version, its
# dependencies and the compiler), so it outlives those. Here each name is
# looked up in the objects being linked and every symbol spelled so is
# passed on. Anything missing (no LLD, no `nm`, no order file, a name no
# longer found) only loses the order: the link itself is the same.
#
#   scripts/link-in-order.sh --names FILE   prints each symbol FILE defines as
#                                           spelled<TAB>demangled (bench-hooks.sh
#                                           --write-order writes the list with it)
#
#   GK_LINK_CC         the program to link with (default cc)
#   GK_LINK_ORDER      another order file (the tests)
#   GK_LINK_ORDER_LOG  a file to append how many names were found to (bench-hooks.sh)
set -u
# The symbols `$1` defines, one a line: as spelled, a tab, as `nm -C` spells
# them. The same listing twice, line for line the same symbols (a name
# with a space keeps it: only the first two fields are cut).
names() {
  n=$(mktemp) && d=$(mktemp) || return 1
  nm --defined-only --no-sort "$1" 2>/dev/null | sed 's/^[^ ]* [^ ]* //' > "$n" &&
    nm --defined-only --no-sort -C "$1" 2>/dev/null | sed 's/^[^ ]* [^ ]* //' > "$d" &&
    [ "$(wc -l < "$n")" -eq "$(wc -l < "$d")" ] && paste "$n" "$d"
  status=$?
  rm -f "$n" "$d"
  return $status
}
if [ "${1:-}" = --names ]; then
  names "$2"
  exit
fi
cc=${GK_LINK_CC:-cc}
order=${GK_LINK_ORDER:-$(dirname "$0")/hot-path.order}
lld=no
for a in "$@"; do
  case $a in -fuse-ld=lld) lld=yes ;; esac
done
if [ "$lld" = no ] || [ ! -r "$order" ] || ! command -v nm >/dev/null 2>&1; then
  exec "$cc" "$@"
fi
tmp=$(mktemp -d 2>/dev/null) || exec "$cc" "$@"
trap 'rm -rf "$tmp"' EXIT
# From here a link without the order still goes through the shell, so that
# the folder is removed; its exit status is the linker's.
plain() { "$cc" "$@"; exit; }
: > "$tmp/pairs"
for a in "$@"; do
  case $a in
    *.o)
      [ -f "$a" ] || continue
      names "$a" > "$tmp/one" && cat "$tmp/one" >> "$tmp/pairs"
      ;;
  esac
done
# In the order file's order, every symbol of the objects whose demangled
# name (or, for a C function, whose name) is listed. A C name not in them
# (glibc's, from libc.a, which is not listed here) is passed on as it is:
# the linker finds it where it is.
awk -F '\t' -v countfile="$tmp/count" '
  FNR == NR { if ($0 != "" && $0 !~ /^#/ && !($0 in rank)) { rank[$0] = ++n; name[n] = $0 } next }
  {
    r = ($2 in rank) ? rank[$2] : (($1 in rank) ? rank[$1] : 0)
    if (r && !($1 in seen)) { seen[$1] = 1; out[r] = out[r] $1 "\n"; found[r] = 1 }
  }
  END {
    for (i = 1; i <= n; i++) {
      if (i in found) { printf "%s", out[i]; k++ }
      else if (name[i] ~ /^[A-Za-z_.$][A-Za-z0-9_.$]*$/) { print name[i]; c++ }
    }
    printf "%d of %d names found, %d more passed on as C names\n", k, n, c > countfile
  }
' "$order" "$tmp/pairs" > "$tmp/symbols" || plain "$@"
if [ -n "${GK_LINK_ORDER_LOG:-}" ]; then
  cat "$tmp/count" >> "$GK_LINK_ORDER_LOG"
fi
if [ ! -s "$tmp/symbols" ]; then
  plain "$@"
fi
"$cc" "$@" "-Wl,--symbol-ordering-file=$tmp/symbols" -Wl,--no-warn-symbol-ordering
exit
