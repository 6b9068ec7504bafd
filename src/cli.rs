//! Command-line surface of gk, as clap derive types. Parsing only: every
//! subcommand's behaviour lives in its own module, and `main.rs` dispatches.
//!
//! `gk hook …` is not parsed here on the hot path: `main.rs` recognises it
//! first so that a hook never pays for clap and never exits 2 (exit 2 on
//! UserPromptSubmit erases the user's prompt).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "gk",
    version,
    about = "Claude Code gatekeeper hooks, and the tool that installs, checks and removes them"
)]
pub struct Cli {
    /// When to colour output: auto (terminal and no NO_COLOR), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a hook as Claude Code does (reads the event JSON on stdin).
    Hook {
        #[arg(value_enum)]
        which: HookName,
    },
    /// Put gk in place: binary, settings.json hooks, CLAUDE.md section, task_state.json.
    Install(InstallArgs),
    /// Take back what install added.
    Uninstall(UninstallArgs),
    /// Find out why the hooks are not working, and optionally fix it.
    Doctor(DoctorArgs),
    /// Switch a hook on in gk's config file (no settings.json edit).
    Enable(SwitchArgs),
    /// Switch a hook off in gk's config file (no settings.json edit).
    Disable(SwitchArgs),
    /// Print the effective model rules as JSON (a starting point for gk.json).
    Rules,
    /// Show which rule and keyword a prompt would trigger, without Claude.
    Explain {
        /// The prompt text, as it would be typed.
        prompt: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookName {
    Prompt,
    Stop,
}

/// Flags shared by every command that changes files (plan → diff → confirm → write).
#[derive(Debug, Clone, Args)]
pub struct ChangeArgs {
    /// Do not ask; apply the plan.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Show the plan and the diffs, write nothing, exit 0.
    #[arg(long, conflicts_with = "check")]
    pub dry_run: bool,
    /// Write nothing; exit 0 when nothing would change, 1 when something would.
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShellChoice {
    /// Decide from the platform: no shell on Windows, bash elsewhere.
    Auto,
    /// POSIX sh / bash command form (Linux, macOS, Git Bash).
    Bash,
    /// PowerShell command form (Windows without Git Bash).
    Powershell,
    /// No shell: the program's absolute path and its arguments (Windows default; client 2.1.139+).
    Exec,
}

#[derive(Debug, Clone, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub change: ChangeArgs,
    /// How the registered command is started: exec (no shell; the Windows
    /// default), bash, or powershell.
    #[arg(long, value_enum, default_value_t = ShellChoice::Auto)]
    pub shell: ShellChoice,
    /// Skip running the installed hooks once after writing.
    #[arg(long)]
    pub no_smoke: bool,
}

#[derive(Debug, Clone, Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub change: ChangeArgs,
    /// Also remove task_state.json and gk's config file.
    #[arg(long)]
    pub purge: bool,
}

#[derive(Debug, Clone, Args)]
pub struct DoctorArgs {
    /// Machine-readable findings on stdout.
    #[arg(long)]
    pub json: bool,
    /// Show passing checks and details too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Fix what can be fixed, through the same plan/diff/confirm path as install.
    #[arg(long)]
    pub fix: bool,
    /// With --fix: do not ask.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// With --fix: show the plan, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Project folder whose .claude/settings*.json are read (default: current folder).
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// Managed (policy) settings file to read instead of the platform's.
    #[arg(long, env = "GK_MANAGED_SETTINGS")]
    pub managed_settings: Option<PathBuf>,
    /// Do not run the registered hook commands.
    #[arg(long)]
    pub no_smoke: bool,
}

#[derive(Debug, Clone, Args)]
pub struct SwitchArgs {
    #[arg(value_enum)]
    pub which: HookName,
    #[command(flatten)]
    pub change: ChangeArgs,
}
