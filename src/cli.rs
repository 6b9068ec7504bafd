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
    /// Put gk in place: binary, settings.json hooks and permission rules, CLAUDE.md section, task_state.json.
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
    /// List, clean, prune or set the task records (one per session).
    State(StateArgs),
    /// Print this session's task state as one line, for Claude Code's statusLine.
    Statusline,
}

#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct StateArgs {
    /// Print the records as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(subcommand)]
    pub action: Option<StateAction>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TaskStatus {
    #[value(name = "in_progress")]
    InProgress,
    Clean,
}

#[derive(Debug, Clone, Subcommand)]
pub enum StateAction {
    /// Set records clean: one session's, or every record (with the shared one).
    Clean {
        /// The session id (or the record's name as `gk state` lists it).
        #[arg(required_unless_present_any = ["all", "shared"], conflicts_with_all = ["all", "shared"])]
        session: Option<String>,
        /// Every record, and the shared one.
        #[arg(long)]
        all: bool,
        /// Only the shared record (`<claude dir>/hooks/task_state.json`).
        #[arg(long, conflicts_with = "all")]
        shared: bool,
        #[command(flatten)]
        change: ChangeArgs,
    },
    /// Delete clean records, and any record not written for longer than --days.
    Prune {
        /// Also delete records older than this many days, whatever they say.
        #[arg(long, default_value_t = 7)]
        days: u32,
        #[command(flatten)]
        change: ChangeArgs,
    },
    /// Write a record: `gk state set in_progress "<task>"`, or `gk state set clean`.
    Set {
        #[arg(value_enum)]
        status: TaskStatus,
        /// The task (required for in_progress).
        #[arg(required_if_eq("status", "in_progress"))]
        task: Option<String>,
        #[arg(long)]
        detail: Option<String>,
        #[arg(long)]
        project: Option<String>,
        /// Whose record: a session id. Without it, the shared record, which
        /// every session without a record of its own shows.
        #[arg(long)]
        session: Option<String>,
        #[command(flatten)]
        change: ChangeArgs,
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
    /// Decide from the platform (Git Bash detection on Windows).
    Auto,
    /// POSIX sh / bash command form (Linux, macOS, Git Bash).
    Bash,
    /// PowerShell command form (Windows without Git Bash).
    Powershell,
}

#[derive(Debug, Clone, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    pub change: ChangeArgs,
    /// Which shell the registered command is written for.
    #[arg(long, value_enum, default_value_t = ShellChoice::Auto)]
    pub shell: ShellChoice,
    /// Skip running the installed hooks once after writing.
    #[arg(long)]
    pub no_smoke: bool,
    /// Do not add the permission rules that let Claude write its task
    /// records without asking.
    #[arg(long)]
    pub no_permissions: bool,
    /// Also register `gk statusline` as Claude Code's status line (only
    /// where none is set).
    #[arg(long)]
    pub statusline: bool,
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
