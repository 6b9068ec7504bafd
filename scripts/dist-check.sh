#!/usr/bin/env bash
# Check the release configuration with dist itself: the generated workflow is
# current, every archive has the name and layout that cargo-binstall is told
# about (Cargo.toml) and the installers expect, and the Windows archive that
# scripts/windows-archive.sh packs for the Wine test has the name, entries and
# checksum file of the one dist releases.
#
#   scripts/dist-check.sh           # plan only (seconds)
#   scripts/dist-check.sh --build   # also let dist build here what it can (minutes)
#
# Needs `dist` (cargo-dist) of the version dist-workspace.toml pins, on PATH
# or in $DIST; `cargo install cargo-dist --version <that version> --locked`
# installs it (docs/maintainers/testing.md, "The release path"). .ci/run does not run
# this script.
#
# --build: dist builds into target/distrib (emptied first):
#   - x86_64-unknown-linux-gnu, natively, and the global artifacts (the shell
#     and PowerShell installers, sha256.sum);
#   - x86_64-pc-windows-gnu through the route scripts/windows-cross-test.sh
#     uses (Debian's cargo, -Zbuild-std, MinGW). From Linux dist asks for
#     `cargo xwin build`; a stand-in `cargo` first on PATH turns that into
#     `cargo build -Zbuild-std=std,panic_abort`, and rustup is kept off PATH
#     (it cannot add targets here).
# then compares the archives dist made with the checks above, and installs
# the Linux archive with dist's own shell installer from a loopback server.
# Everything is printed; the exit code is 0 only when every check passed.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
dist_bin="${DIST:-$(command -v dist || true)}"
build=0
case "${1:-}" in
    --build) build=1 ;;
    "") ;;
    *) echo "usage: $0 [--build]" >&2; exit 2 ;;
esac

say() { printf 'dist-check: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

pinned="$(sed -n 's/^cargo-dist-version *= *"\(.*\)"/\1/p' "$repo/dist-workspace.toml")"
[ -n "$dist_bin" ] && [ -x "$dist_bin" ] \
    || die "no dist on PATH: cargo install cargo-dist --version $pinned --locked"
have="$("$dist_bin" --version | awk '{print $2}')"
[ "$have" = "$pinned" ] \
    || die "dist $have, but dist-workspace.toml pins $pinned (the workflow it generates differs)"
say "dist $have"

work="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

cd "$repo"
say "dist generate --check (.github/workflows/release.yml is what dist-workspace.toml gives)"
"$dist_bin" generate --check >&2
say "dist plan"
"$dist_bin" plan --output-format=json > "$work/plan.json" 2> "$work/plan.err" \
    || { cat "$work/plan.err" >&2; die "dist plan failed"; }

# The archive the Wine test uses, packed from a stand-in gk.exe (its name and
# entries do not depend on the program's bytes).
printf 'stand-in\n' > "$work/gk.exe"
ours="$(bash scripts/windows-archive.sh "$work/gk.exe" "$work/ours")"

check_archives() {
    # $1: dist's manifest; $2: folder with archives dist built (or "").
    python3 - "$1" "$repo/Cargo.toml" "$ours" "${2:-}" <<'EOF'
import json, os, re, sys, tarfile, tomllib, zipfile

manifest_path, cargo_toml, ours, built = sys.argv[1:]
m = json.load(open(manifest_path))
pkg = tomllib.load(open(cargo_toml, "rb"))["package"]
name, version = pkg["name"], pkg["version"]
binstall = pkg["metadata"]["binstall"]
failed = []

def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failed.append(what)

if "REPLACE-WITH-OWNER" in pkg.get("repository", ""):
    print("NOTE  Cargo.toml's repository is still the placeholder "
          "(docs/maintainers/release.md, \"Before the first release\")")

# cargo-binstall tries each suffix of a format (.txz and .tar.xz for txz);
# the one dist uses stands for them here.
def expand(template, target, fmt):
    windows = "windows" in target
    values = {
        "repo": "REPO", "version": version, "name": name, "bin": name, "target": target,
        "archive-suffix": {"zip": ".zip", "txz": ".tar.xz"}[fmt],
        "archive-format": {"zip": "zip", "txz": "tar.xz"}[fmt],
        "binary-ext": ".exe" if windows else "",
    }
    return re.sub(r"\{ *([a-z-]+) *\}", lambda g: values[g.group(1)], template)

archives = {k: a for k, a in m["artifacts"].items() if a.get("kind") == "executable-zip"}
check(len(archives) == 7, f"7 archives in the plan ({len(archives)}: {', '.join(sorted(archives))})")
for art_name, a in sorted(archives.items()):
    (target,) = a["target_triples"]
    windows = "windows" in target
    ext = ".zip" if windows else ".tar.xz"
    check(art_name == f"{name}-{target}{ext}", f"{art_name}: named {name}-<target>{ext}")
    check(f"{art_name}.sha256" in m["artifacts"], f"{art_name}: a .sha256 beside it")
    exe = [x["path"] for x in a["assets"] if x["kind"] == "executable"]
    check(exe == [name + (".exe" if windows else "")], f"{art_name}: one program, {exe}")
    # zips are flat, tarballs hold one <archive name>/ folder (dist's layout).
    inside = exe[0] if windows else f"{name}-{target}/{exe[0]}"
    o = binstall.get("overrides", {}).get(target, {})
    fmt = o.get("pkg-fmt", binstall["pkg-fmt"])
    url = expand(o.get("pkg-url", binstall["pkg-url"]), target, fmt)
    check(url == f"REPO/releases/download/v{version}/{art_name}",
          f"{art_name}: cargo-binstall's pkg-url gives {url}")
    bindir = expand(o.get("bin-dir", binstall["bin-dir"]), target, fmt)
    check(bindir == inside, f"{art_name}: cargo-binstall's bin-dir {bindir} is where the program is")
check("sha256.sum" in m["artifacts"], "sha256.sum over all archives")
for inst in (f"{name}-installer.sh", f"{name}-installer.ps1"):
    check(inst in m["artifacts"], f"{inst} in the plan")

# scripts/windows-archive.sh against dist's Windows zips.
ours_name = os.path.basename(ours)
with zipfile.ZipFile(ours) as z:
    ours_entries = sorted(z.namelist())
check(ours_name in archives, f"{ours_name} (scripts/windows-archive.sh) is a release archive")
for art_name, a in sorted(archives.items()):
    if art_name.endswith(".zip"):
        planned = sorted(x["path"] for x in a["assets"])
        check(planned == ours_entries,
              f"{art_name}: dist puts {planned}, scripts/windows-archive.sh {ours_entries}")
sum_re = re.compile(r"[0-9a-f]{64} \*" + re.escape(ours_name) + r"\n\n\Z")
check(bool(sum_re.match(open(ours + ".sha256").read())),
      f"{ours_name}.sha256 is '<sha256> *<name>' and a blank line, as dist writes it")

# What dist really built here, when it did.
if built:
    for art_name, a in sorted(archives.items()):
        path = os.path.join(built, art_name)
        if not os.path.exists(path):
            continue
        if art_name.endswith(".zip"):
            with zipfile.ZipFile(path) as z:
                entries = sorted(i.filename for i in z.infolist() if not i.is_dir())
            expect = sorted(x["path"] for x in a["assets"])
            check(entries == ours_entries,
                  f"built {art_name}: {entries}, the same entries as scripts/windows-archive.sh")
        else:
            with tarfile.open(path) as t:
                entries = sorted(i.name for i in t.getmembers() if i.isfile())
            expect = sorted(f"{name}-{a['target_triples'][0]}/{x['path']}" for x in a["assets"])
        check(entries == expect, f"built {art_name}: holds {entries}")
        sum_file = open(path + ".sha256").read()
        own = open(ours + ".sha256").read().split(" ", 1)[1].replace(ours_name, art_name)
        check(sum_file.split(" ", 1)[1] == own,
              f"built {art_name}.sha256 is laid out as scripts/windows-archive.sh writes it")
        print(f"      {art_name}: {os.path.getsize(path)} bytes")
sys.exit(1 if failed else 0)
EOF
}

rc=0
say "checking the plan"
check_archives "$work/plan.json" "" || rc=1

if [ "$build" = 1 ]; then
    # dist writes into target/distrib of the repository, whatever
    # CARGO_TARGET_DIR says; the builds themselves go to cargo's target folders.
    built="$repo/target/distrib"
    rm -rf "$built" && mkdir -p "$built"
    say "dist build: x86_64-unknown-linux-gnu (native, cargo profile dist)"
    "$dist_bin" build --artifacts=local --target=x86_64-unknown-linux-gnu \
        --output-format=json > "$work/linux.json"
    cp "$work/linux.json" "$built/x86_64-unknown-linux-gnu-dist-manifest.json"

    # The Windows GNU build, as scripts/windows-cross-test.sh builds gk.exe
    # (whose `build` installs this toolchain when it is missing).
    for tool in /usr/bin/cargo /usr/bin/rustc x86_64-w64-mingw32-gcc; do
        command -v "$tool" >/dev/null \
            || die "no $tool: scripts/windows-cross-test.sh build installs the Windows toolchain"
    done
    mkdir -p "$work/bin"
    cat > "$work/bin/cargo" <<'EOF'
#!/bin/sh
# Stand-in for `cargo xwin`: the x86_64-pc-windows-gnu build through Debian's
# cargo with the standard library built from source.
if [ "$1" = xwin ]; then
    shift
    [ "$1" = --version ] && { echo "cargo-xwin 0 (stand-in, scripts/dist-check.sh)"; exit 0; }
    exec /usr/bin/cargo "$@" -Zbuild-std=std,panic_abort
fi
exec /usr/bin/cargo "$@"
EOF
    chmod +x "$work/bin/cargo"
    say "dist build: x86_64-pc-windows-gnu (Debian's toolchain, cargo profile dist)"
    env -u RUSTUP_TOOLCHAIN PATH="$work/bin:/usr/bin:/bin" CARGO="$work/bin/cargo" \
        RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
        CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
        CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" \
        CARGO_TARGET_DIR="${GK_WINDOWS_TARGET_DIR:-$repo/target/windows/cargo}" \
        "$dist_bin" build --artifacts=local --target=x86_64-pc-windows-gnu \
        --output-format=json > "$work/windows.json"
    cp "$work/windows.json" "$built/x86_64-pc-windows-gnu-dist-manifest.json"

    say "dist build --artifacts=global (installers, sha256.sum)"
    "$dist_bin" build --artifacts=global --output-format=json > "$work/global.json"
    say "checking what dist built ($built)"
    check_archives "$work/plan.json" "$built" || rc=1
    ls -l "$built" >&2

    # dist's shell installer, as a user runs it, against a loopback server
    # holding the archives (INSTALLER_DOWNLOAD_URL replaces the release URL).
    say "the shell installer from 127.0.0.1"
    python3 -u -m http.server --bind 127.0.0.1 0 --directory "$built" > "$work/http.log" 2>&1 &
    server_pid=$!
    port=""
    for _ in $(seq 50); do
        port="$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$work/http.log" | head -n 1)"
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || die "the loopback server did not start"
    home="$work/home" && mkdir -p "$home"
    if env -i PATH=/usr/bin:/bin HOME="$home" INSTALLER_DOWNLOAD_URL="http://127.0.0.1:$port" \
        INSTALLER_NO_MODIFY_PATH=1 sh "$built/gk-installer.sh" > "$work/installer.log" 2>&1 \
        && "$home/.cargo/bin/gk" --version > "$work/version.txt"; then
        echo "ok    gk-installer.sh installed $home/.cargo/bin/gk: $(cat "$work/version.txt")"
    else
        echo "FAIL  gk-installer.sh:"; cat "$work/installer.log"; rc=1
    fi
    say "dist's own Windows archive, for the Wine test: GK_E2E_WINDOWS_ARCHIVE=$built/gk-x86_64-pc-windows-gnu.zip"
fi
exit "$rc"
