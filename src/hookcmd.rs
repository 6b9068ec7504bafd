//! What a hook command string runs, decided by meaning rather than text.
//!
//! Claude Code deduplicates hook registrations by the raw command string:
//! `$HOME/.claude/hooks/gk hook prompt` and `~/.claude/hooks/gk hook prompt`
//! both run. So install must recognise its own entries under every spelling
//! (to leave exactly one), uninstall must find them all, and doctor must
//! see two spellings of one hook as "fires twice". All three use this
//! module. Everything here is pure: the platform and the home folder are
//! values in a [`CommandContext`], so the Windows branches run in Linux tests.
//!
//! INTERFACE FIRST: bodies are being filled in on main; signatures are stable.

use std::path::PathBuf;

use crate::platform::Os;

/// Which of gk's two hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookKind {
    Prompt,
    Stop,
}

impl HookKind {
    pub const ALL: [HookKind; 2] = [HookKind::Prompt, HookKind::Stop];

    /// The Claude Code event this hook is registered under.
    pub fn event(self) -> &'static str {
        match self {
            HookKind::Prompt => "UserPromptSubmit",
            HookKind::Stop => "Stop",
        }
    }

    /// The word after `gk hook`.
    pub fn arg(self) -> &'static str {
        match self {
            HookKind::Prompt => "prompt",
            HookKind::Stop => "stop",
        }
    }

    /// The Python v5 script that did this job.
    pub fn legacy_script(self) -> &'static str {
        match self {
            HookKind::Prompt => "gatekeeper.py",
            HookKind::Stop => "state_monitor.py",
        }
    }
}

/// Which shell Claude Code will run the command string through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellForm {
    /// sh/bash: Linux, macOS, and Windows with Git Bash.
    Bash,
    /// Windows without Git Bash (entry carries `"shell": "powershell"`).
    PowerShell,
}

/// Everything the command logic needs to know about the machine, as values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandContext {
    pub os: Os,
    /// The home folder in native form (`/home/u`, `C:\Users\u`).
    pub home: PathBuf,
    /// `<claude dir>` in native form.
    pub claude_dir: PathBuf,
    /// `CLAUDE_CONFIG_DIR` as set (native form), if it is.
    pub claude_config_dir: Option<PathBuf>,
}

/// A command string to register, plus the `shell` field it needs (if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    pub command: String,
    /// `Some("powershell")` for the PowerShell form; `None` means the default shell.
    pub shell: Option<&'static str>,
}

/// What a registered command string runs, once spelling is taken away.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Invocation {
    /// The program, as a normalised absolute path where it could be resolved
    /// (forward slashes; on Windows lower-cased, drive as `c:/`, `.exe` dropped),
    /// or the bare name when it is looked up on PATH.
    pub program: String,
    pub args: Vec<String>,
}

/// Who a registration belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// Runs `gk hook <kind>` (any path, any spelling).
    Gk(HookKind),
    /// Runs the Python v5 script for this kind (`gatekeeper.py` / `state_monitor.py`).
    Legacy(HookKind),
    /// Somebody else's hook; never touched.
    Foreign,
}

/// The command string install registers for `kind` on this machine.
pub fn canonical(kind: HookKind, ctx: &CommandContext, shell: ShellForm) -> HookCommand {
    let _ = (kind, ctx, shell);
    todo!("hookcmd::canonical")
}

/// Parse a command string into what it runs. `None` when the string is
/// beyond what can be decided safely (pipes, `&&`, unknown variables, …):
/// callers must then treat it as foreign and, in doctor, say they are unsure.
pub fn normalize(command: &str, ctx: &CommandContext) -> Option<Invocation> {
    let _ = (command, ctx);
    todo!("hookcmd::normalize")
}

/// Who owns this registration.
pub fn classify(command: &str, ctx: &CommandContext) -> Owner {
    let _ = (command, ctx);
    todo!("hookcmd::classify")
}
