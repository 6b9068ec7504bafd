//! Build-time switches for the test suite (no effect on what gk does).
//!
//! `gk_e2e_missing`: the pinned Claude Code client the end-to-end tests
//! drive is not there (`GK_E2E_CLAUDE` unset, empty, or not an executable
//! file), so `cargo test` lists those tests as `ignored` with the reason,
//! instead of `ok` for a test that did nothing. Never under CI (`CI` set
//! and not `false`/`0`): there they run, and fail without the client.
//!
//! `gk_e2e_windows_missing`: what the Windows end-to-end tests
//! (`tests/e2e_windows.rs`) need is not all there — the Wine prefix with the
//! `bcryptprimitives.dll` stand-in (`WINEPREFIX`, else
//! `target/windows/wineprefix`), `GK_E2E_GK_EXE`, `GK_E2E_CLAUDE_WIN`,
//! `GK_E2E_WINDOWS_ARCHIVE` — so those tests are listed as `ignored` with the
//! reason. Never under CI, as above.
//!
//! `gk_wine`: set when `scripts/windows-cross-test.sh test` builds the suite
//! as Windows programs to run under Wine (`GK_WINE=1`). Tests that hit a gap
//! in Wine rather than in gk carry
//! `#[cfg_attr(gk_wine, ignore = "Wine gap: …")]`; docs/maintainers/testing.md lists them.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(gk_e2e_missing)");
    println!("cargo::rustc-check-cfg=cfg(gk_wine)");
    println!("cargo::rustc-check-cfg=cfg(gk_e2e_windows_missing)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=GK_E2E_CLAUDE");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=GK_WINE");

    if std::env::var_os("GK_WINE").is_some_and(|v| v == "1") {
        println!("cargo::rustc-cfg=gk_wine");
    }

    let in_ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    let client = std::env::var_os("GK_E2E_CLAUDE").filter(|v| !v.is_empty());
    if let Some(path) = &client {
        // Installed or removed later at the same path: look again.
        if Path::new(path).exists() {
            println!("cargo::rerun-if-changed={}", Path::new(path).display());
        }
    }
    let usable = client.is_some_and(|p| is_executable(Path::new(&p)));
    if !usable && !in_ci {
        println!("cargo::rustc-cfg=gk_e2e_missing");
    }

    if !windows_e2e_ready() && !in_ci {
        println!("cargo::rustc-cfg=gk_e2e_windows_missing");
    }
}

/// Every file the Windows end-to-end tests need is there.
fn windows_e2e_ready() -> bool {
    println!("cargo::rerun-if-env-changed=WINEPREFIX");
    let prefix = std::env::var_os("WINEPREFIX")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
                .join("target/windows/wineprefix")
        });
    let mut files = vec![prefix.join("drive_c/windows/system32/bcryptprimitives.dll")];
    for name in [
        "GK_E2E_GK_EXE",
        "GK_E2E_CLAUDE_WIN",
        "GK_E2E_WINDOWS_ARCHIVE",
    ] {
        println!("cargo::rerun-if-env-changed={name}");
        match std::env::var_os(name).filter(|v| !v.is_empty()) {
            Some(v) => files.push(v.into()),
            None => return false,
        }
    }
    let mut ready = true;
    for f in &files {
        if f.is_file() {
            println!("cargo::rerun-if-changed={}", f.display());
        } else {
            ready = false;
        }
    }
    ready
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
