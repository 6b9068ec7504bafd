//! The one sandbox every test runs gk in (docs/maintainers/testing.md says
//! the same): HOME and USERPROFILE are a temporary folder, every variable
//! that could point gk at a real folder or change what it decides is
//! removed ([`REMOVED`]), and the four that cannot be removed without gk
//! falling back to a place outside the test are pointed into the
//! temporary home: `XDG_DATA_HOME` and `LOCALAPPDATA` (the backups) at
//! `<home>/.gk-test-data`, `GK_MANAGED_SETTINGS` (machine policy, by
//! default a system path) at [`managed_settings`], `GK_MANAGED_PROGRAM`
//! (the program of a managed install) at [`managed_program`]. `NO_COLOR=1`.
//!
//! A test that needs one of these otherwise sets it after the sandbox
//! (`.env(…)` on the command it gets back): the last setting wins.
//! Included with `mod support;`.
#![allow(dead_code)]
// Building the commands the tests start is this module's whole job
// (clippy.toml forbids process spawning for gk's own code).
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Removed from every sandboxed command: each names a folder gk reads or
/// writes (the Claude config folder, the project, the state folder) or
/// changes a decision (on Windows `CLAUDE_CODE_GIT_BASH_PATH` decides the
/// shell a status line is spelled for).
pub const REMOVED: &[&str] = &[
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_PROJECT_DIR",
    "GK_STATE_DIR",
    "XDG_STATE_HOME",
    "CLAUDE_CODE_GIT_BASH_PATH",
];

/// Where sandboxed commands look for managed settings: inside the
/// temporary HOME (absent unless a test writes it).
pub fn managed_settings(home: &Path) -> PathBuf {
    home.join(".gk-test-managed").join("managed-settings.json")
}

/// Where sandboxed commands put the machine-wide program of `gk install
/// --managed` (by default a system path).
pub fn managed_program(home: &Path) -> PathBuf {
    let name = if cfg!(windows) { "gk.exe" } else { "gk" };
    home.join(".gk-test-managed-bin").join(name)
}

/// Where sandboxed commands keep gk's data (the backups).
pub fn data_dir(home: &Path) -> PathBuf {
    home.join(".gk-test-data")
}

/// Put `cmd` in the sandbox of `home` (see the module notes).
pub fn sandbox<'c>(
    cmd: &'c mut std::process::Command,
    home: &Path,
) -> &'c mut std::process::Command {
    for name in REMOVED {
        cmd.env_remove(name);
    }
    cmd.env("HOME", home)
        .env("USERPROFILE", home)
        .env("XDG_DATA_HOME", data_dir(home))
        .env("LOCALAPPDATA", data_dir(home))
        .env("GK_MANAGED_SETTINGS", managed_settings(home))
        .env("GK_MANAGED_PROGRAM", managed_program(home))
        .env("NO_COLOR", "1")
}

/// `program` (a shell, python3, gk) in the sandbox of `home`.
pub fn command(program: impl AsRef<OsStr>, home: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(program);
    sandbox(&mut cmd, home);
    cmd
}

/// The gk binary cargo built, in the sandbox of `home`, as a plain child
/// process (for tests that put limits around it or kill it).
pub fn gk_process(home: &Path) -> std::process::Command {
    command(gk_bin(), home)
}

/// The gk binary cargo built, in the sandbox of `home`.
pub fn gk(home: &Path) -> assert_cmd::Command {
    assert_cmd::Command::from_std(gk_process(home))
}

/// The path of the gk binary cargo built for these tests, found beside
/// the test program (so also under Wine, where the build's Linux path
/// means nothing).
pub fn gk_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("gk")
}
