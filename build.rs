//! Build-time switches for the tests (no effect on gk itself).
//!
//! `gk_e2e_missing`: the pinned Claude Code client the end-to-end tests
//! drive is not there (`GK_E2E_CLAUDE` unset, empty, or not an executable
//! file), so `cargo test` lists those tests as `ignored` with the reason,
//! instead of `ok` for a test that did nothing. Never under CI (`CI` set
//! and not `false`/`0`): there they run, and fail without the client.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(gk_e2e_missing)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=GK_E2E_CLAUDE");
    println!("cargo::rerun-if-env-changed=CI");

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
