//! Runs a registered hook command the way Claude Code would (through
//! `sh -c`, Git Bash or PowerShell) with a realistic payload on stdin, and
//! judges the result. This is the only place in gk that starts a process;
//! it carries the crate's single `#[allow]` of the disallowed
//! `std::process::Command` (see clippy.toml). Install uses it for its
//! post-write check, doctor for `hook-smoke-failed` / `hook-slow`.
//!
//! INTERFACE FIRST: bodies are being filled in on main; signatures are stable.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::Result;
use crate::hookcmd::{HookKind, ShellForm};
use crate::platform::Os;

/// How a command string is handed to a shell: program and its arguments
/// (the command string itself is the last argument).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellInvocation {
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// What one run produced.
#[derive(Debug, Clone)]
pub struct SmokeRun {
    /// `None` when the process was killed (timeout) or ended by a signal.
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
    pub timed_out: bool,
}

/// Pure: how Claude Code would start `command` on `os` with `shell`.
/// `git_bash` is the bash.exe found on Windows (see `platform::find_git_bash`).
pub fn shell_invocation(
    os: Os,
    shell: ShellForm,
    git_bash: Option<&Path>,
    command: &str,
) -> ShellInvocation {
    let _ = (os, shell, git_bash, command);
    todo!("smoke::shell_invocation")
}

/// A payload shaped like the one Claude Code sends for this hook's event.
pub fn sample_payload(kind: HookKind, cwd: &Path) -> String {
    let _ = (kind, cwd);
    todo!("smoke::sample_payload")
}

/// Start the invocation, feed `stdin`, wait at most `timeout`, collect output.
/// `env` entries are added to the inherited environment.
pub fn run(
    invocation: &ShellInvocation,
    stdin: &str,
    timeout: Duration,
    env: &[(String, String)],
) -> Result<SmokeRun> {
    let _ = (invocation, stdin, timeout, env);
    todo!("smoke::run")
}

/// Did the run do what a working gk hook does? `Err` carries a one-line
/// reason (exit code, stderr first line, or what was wrong with stdout).
pub fn judge(kind: HookKind, run: &SmokeRun) -> std::result::Result<(), String> {
    let _ = (kind, run);
    todo!("smoke::judge")
}
