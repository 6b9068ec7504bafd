#!/usr/bin/env bash
# Pack a gk.exe into the release archive dist makes for its target, and
# print the archive's path on stdout (everything else goes to stderr).
#
#   scripts/windows-archive.sh <gk.exe> [<out dir>]   # default out dir: target/dist
#
# dist's layout for a Windows target (docs/install.md, "Release archives"):
# a flat zip named gk-<target>.zip holding gk.exe and the files dist adds
# by itself from the repository's top folder (one README*, every LICENSE* and
# UNLICENSE*, one CHANGELOG* or RELEASES*), and beside it
# gk-<target>.zip.sha256: "<sha256> *<name>" and a blank line.
#
# The gk.exe from scripts/windows-cross-test.sh is the x86_64-pc-windows-gnu
# build, which the release also ships (dist-workspace.toml), so the archive
# the Wine test installs from has the name, entries and checksum file of a
# release archive. scripts/dist-check.sh checks that against `dist plan`
# (and, with --build, against the zip dist itself builds here).
# GK_ARCHIVE_TARGET names the archive for another target: only for a gk.exe
# really built for that target.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
exe="${1:?usage: $0 <gk.exe> [<out dir>]}"
out="${2:-$repo/target/dist}"
target="${GK_ARCHIVE_TARGET:-x86_64-pc-windows-gnu}"
name="gk-$target.zip"

[ -f "$exe" ] || { echo "windows-archive: no $exe" >&2; exit 1; }
mkdir -p "$out"
# What dist adds unasked: the first README*, every LICENSE*/UNLICENSE*, the
# first CHANGELOG*/RELEASES* (dist takes "first" in directory order; this
# repository has one of each at most).
includes=()
first() { for f in "$@"; do [ -f "$f" ] && { printf "%s\n" "$f"; return 0; }; done; return 0; }
readme="$(first "$repo"/README*)"
[ -n "$readme" ] && includes+=("$readme")
for f in "$repo"/LICENSE* "$repo"/UNLICENSE*; do
    [ -f "$f" ] && includes+=("$f")
done
changelog="$(first "$repo"/CHANGELOG* "$repo"/RELEASES*)"
[ -n "$changelog" ] && includes+=("$changelog")

# Entries dated from the last commit, so the same sources give the same bytes.
stamp="$(git -C "$repo" log -1 --format=%ct 2>/dev/null || echo 315532800)"
python3 - "$out/$name" "$stamp" "$exe" "${includes[@]}" <<'EOF'
import os, sys, time, zipfile
dest, stamp, exe, *docs = sys.argv[1:]
when = time.gmtime(max(int(stamp), 315532800))[:6]
tmp = dest + ".tmp"
with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for path, arcname in [(exe, "gk.exe")] + [(d, os.path.basename(d)) for d in docs]:
        info = zipfile.ZipInfo(arcname, date_time=when)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o100755 << 16 if arcname == "gk.exe" else 0o100644 << 16
        with open(path, "rb") as f:
            z.writestr(info, f.read())
os.replace(tmp, dest)
EOF
(cd "$out" && printf '%s *%s\n\n' "$(sha256sum "$name" | cut -d' ' -f1)" "$name" > "$name.sha256")
echo "windows-archive: $out/$name ($(stat -c %s "$out/$name") bytes)" >&2
printf '%s\n' "$out/$name"
