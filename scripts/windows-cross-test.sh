#!/usr/bin/env bash
# Build gk as a Windows program on Linux, and run its test suite under Wine.
#
#   scripts/windows-cross-test.sh build   # release gk.exe; its path is the last line
#   scripts/windows-cross-test.sh test    # the whole test suite as Windows programs,
#                                         # built with clippy's lints (-D warnings)
#   scripts/windows-cross-test.sh prefix  # only set up the Wine prefix; prints it
#   scripts/windows-cross-test.sh clippy  # clippy -D warnings on the Windows build
#                                         # alone (`test` lints as it builds)
#
# What it uses (installed with apt-get when missing, as on a clean Debian 12):
# Debian's rustc-web/cargo-web (1.96, with the standard library's source in
# rust-web-src, since rustup cannot add a target here), MinGW-w64 to link,
# Wine 8 to run. The standard library is built from source for
# x86_64-pc-windows-gnu (`-Zbuild-std`, allowed on this stable compiler by
# RUSTC_BOOTSTRAP=1; why: docs/maintainers/testing.md, "Why RUSTC_BOOTSTRAP=1");
# the release build takes std with panic_abort, as the release profile aborts
# on panic.
#
# Wine 8 has no bcryptprimitives.dll, whose ProcessPrng Rust's std imports:
# a stand-in (scripts/windows/bcryptprimitives.c) is compiled into the Wine
# prefix, never into anything gk ships. The prefix is target/windows/wineprefix
# unless WINEPREFIX is set.
#
# Environment:
#   GK_WINDOWS_TARGET_DIR  cargo's target folder for these builds
#                          (default target/windows/cargo)
#   WINEPREFIX             the Wine prefix (default target/windows/wineprefix)
# Everything but the last line of `build` goes to stderr.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
target=x86_64-pc-windows-gnu
target_dir="${GK_WINDOWS_TARGET_DIR:-$repo/target/windows/cargo}"
export WINEPREFIX="${WINEPREFIX:-$repo/target/windows/wineprefix}"
# No Wine debug chatter, no Mono/Gecko install prompts, no windows.
export WINEDEBUG="${WINEDEBUG:--all}"
export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-mscoree,mshtml=}"
unset DISPLAY WAYLAND_DISPLAY

say() { printf 'windows-cross-test: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# Debian's toolchain by absolute path: a rustup cargo/rustc earlier on PATH
# has no std source for this target.
cargo_bin=/usr/bin/cargo
rustc_bin=/usr/bin/rustc
clippy_bin=/usr/bin/cargo-clippy
clippy_driver=/usr/bin/clippy-driver

sysroot_src() { "$rustc_bin" --print sysroot 2>/dev/null | sed 's|$|/lib/rustlib/src/rust/library|'; }

missing_packages() {
    local want=()
    [ -x "$cargo_bin" ] || want+=(cargo-web)
    [ -x "$rustc_bin" ] || want+=(rustc-web)
    if [ ! -x "$rustc_bin" ] || [ ! -f "$(sysroot_src)/Cargo.lock" ]; then want+=(rust-web-src); fi
    command -v x86_64-w64-mingw32-gcc >/dev/null || want+=(gcc-mingw-w64-x86-64)
    if [ "${1:-}" = run ]; then
        command -v wine >/dev/null || want+=(wine)
        [ -x /usr/lib/wine/wine64 ] || want+=(wine64)
    fi
    if [ "${1:-}" = lint ] || [ "${1:-}" = run ]; then
        [ -x "$clippy_bin" ] || want+=(rust-web-clippy)
    fi
    [ "${#want[@]}" -eq 0 ] || printf '%s\n' "${want[@]}"
}

ensure_tools() {
    local want
    mapfile -t want < <(missing_packages "${1:-}")
    [ "${#want[@]}" -eq 0 ] && return 0
    say "installing ${want[*]} with apt-get"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq >&2
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${want[@]}" >&2
    mapfile -t want < <(missing_packages "${1:-}")
    [ "${#want[@]}" -eq 0 ] || die "still missing after apt-get: ${want[*]}"
}

cross_env() {
    export RUSTC_BOOTSTRAP=1
    export RUSTC="$rustc_bin"
    export RUSTDOC=/usr/bin/rustdoc
    export CARGO_TARGET_DIR="$target_dir"
    export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
    # A toolchain override for rustup must not reach Debian's cargo.
    unset RUSTUP_TOOLCHAIN CARGO_BUILD_TARGET
}

# The Wine prefix with the bcryptprimitives.dll stand-in in system32.
ensure_prefix() {
    local sys32="$WINEPREFIX/drive_c/windows/system32"
    local src="$repo/scripts/windows/bcryptprimitives.c"
    local def="$repo/scripts/windows/bcryptprimitives.def"
    if [ ! -f "$WINEPREFIX/system.reg" ]; then
        say "creating the Wine prefix $WINEPREFIX"
        # What wineboot printed, beside the prefix, for when it fails.
        local log="$WINEPREFIX.wineboot.log"
        local rc=0
        mkdir -p "$WINEPREFIX"
        timeout 600 wineboot -i >"$log" 2>&1 || rc=$?
        if [ "$rc" -ne 0 ]; then
            # Seen once on a clean clone (2026-12-05), not again on the
            # next run: a half-made prefix is made again from nothing.
            say "wineboot failed (exit $rc; its output: $log); making the prefix again"
            wineserver -k >/dev/null 2>&1 || true
            rm -rf "$WINEPREFIX"
            mkdir -p "$WINEPREFIX"
            timeout 600 wineboot -i >"$log" 2>&1 || die "wineboot failed twice in $WINEPREFIX (its output: $log)"
        fi
        wineserver -w
    fi
    if [ ! -f "$sys32/bcryptprimitives.dll" ] || [ "$src" -nt "$sys32/bcryptprimitives.dll" ] \
        || [ "$def" -nt "$sys32/bcryptprimitives.dll" ]; then
        say "building the bcryptprimitives.dll stand-in into $sys32"
        x86_64-w64-mingw32-gcc -O2 -shared -o "$sys32/bcryptprimitives.dll" "$src" "$def" -ladvapi32
    fi
}

build() {
    ensure_tools
    cross_env
    say "release build of gk.exe ($target, std built from source)"
    (cd "$repo" && "$cargo_bin" build --release --locked --target "$target" \
        -Zbuild-std=std,panic_abort) >&2
    local exe="$target_dir/$target/release/gk.exe"
    [ -f "$exe" ] || die "no $exe after the build"
    printf '%s\n' "$exe"
}

# Clippy as CI runs it on Linux, here on the Windows build: the cfg(windows)
# code only exists there. Debian's cargo-clippy by path, with Debian's cargo
# first on PATH (a rustup cargo-clippy has no std for this target).
lint() {
    ensure_tools lint
    cross_env
    say "clippy on the Windows build ($target)"
    (cd "$repo" && PATH="/usr/bin:$PATH" CARGO="$cargo_bin" "$clippy_bin" clippy --locked \
        --target "$target" -Zbuild-std --all-targets -- -D warnings) >&2
}

run_tests() {
    ensure_tools run
    ensure_prefix
    cross_env
    # `--cfg gk_wine` (declared in Cargo.toml's [lints.rust]) skips exactly
    # the tests listed in docs/maintainers/testing.md (Wine gaps, each with
    # its reason). Through RUSTFLAGS, added to any the caller set: with
    # --target it reaches the Windows units only (the std built from source
    # too), never the build scripts, and cargo keeps these builds apart from
    # the ones without it in the Windows target folder, so neither rebuilds
    # the other.
    # The runner goes through --config, not CARGO_TARGET_<triple>_RUNNER:
    # assert_cmd inside the Windows test programs would read that variable
    # and try to start gk.exe through "wine" as a Windows program.
    say "test suite under Wine (prefix $WINEPREFIX)"
    # The Windows user profile of the prefix is the "real profile" of every
    # Windows program the suite starts: no test may change it (the tests'
    # temp folders live in its Temp folder, which is left out).
    local before after rc=0
    before="$(profile_snapshot)"
    # One wineserver for the whole suite, kept 30 s past its last client, so
    # no test program starts while a server is on its way out.
    wineserver -p30 2>/dev/null || true
    # The build also lints: clippy-driver as the wrapper of gk's own units
    # (what `cargo clippy` itself sets up), with clippy's `-D warnings`, so
    # the Windows lints cost no second build of std and the dependencies.
    # A lint stops the build here as it would stop `clippy`. `gk_wine`
    # only marks tests ignored, so the lints see the code Windows builds.
    # The standard library (built from source here) and the dependencies
    # at opt-level 1, gk and its tests at 0: at 0 the std and serde code
    # every test runs through, with its debug checks, was half of the
    # suite's time under Wine (the install tests ran 61 s against 27-31 s
    # side by side), and 1 costs their one build a little. The Linux
    # suite uses the prebuilt, optimised std and keeps the plain profile.
    (cd "$repo" && RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }--cfg gk_wine" \
        RUSTC_WORKSPACE_WRAPPER="$clippy_driver" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
        "$cargo_bin" test --locked --target "$target" -Zbuild-std \
        --config 'profile.dev.package."*".opt-level=1' --config 'profile.test.package."*".opt-level=1' \
        --config "target.$target.runner=[\"$repo/scripts/windows/wine-runner.sh\"]" "$@") || rc=$?
    # Leave no wineserver behind: the suite's programs have all ended, and
    # -k ends the server and any program a test left running.
    wineserver -k 2>/dev/null || true
    after="$(profile_snapshot)"
    if [ "$before" != "$after" ]; then
        say "the test suite changed the Windows profile of the prefix:"
        diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") >&2 || true
        rc=1
    else
        say "the prefix's Windows profile is unchanged by the suite"
    fi
    return "$rc"
}

# Every file of the prefix's user profiles (name, size, mtime), but the
# temp folders.
profile_snapshot() {
    (cd "$WINEPREFIX/drive_c/users" && find . \( -path './*/Temp' -o -path './*/AppData/Local/Temp' \) -prune -o \
        -type f -printf '%p %s %T@\n' | sort)
}

case "${1:-}" in
    build) build ;;
    test) shift; run_tests "$@" ;;
    prefix) ensure_tools run; ensure_prefix; printf '%s\n' "$WINEPREFIX" ;;
    clippy) lint ;;
    *) die "usage: $0 build|test [cargo test args]|prefix|clippy" ;;
esac
