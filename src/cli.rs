//! Command-line surface of gk, as clap derive types, and what follows from
//! them alone (the completion scripts, the typo suggestions). Every
//! subcommand's behaviour lives in its own module, and `main.rs` dispatches.
//!
//! `gk hook …` is not parsed here on the hot path: `main.rs` recognises it
//! first so that a hook never pays for clap and never exits 2 (exit 2 on
//! UserPromptSubmit erases the user's prompt).

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::hookcmd::HookKind;

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

impl ColorChoice {
    /// `Some` when the user decided (`always`, `never`); `None`: gk decides
    /// from the terminal and `NO_COLOR`.
    pub fn forced(self) -> Option<bool> {
        match self {
            ColorChoice::Always => Some(true),
            ColorChoice::Never => Some(false),
            ColorChoice::Auto => None,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a hook as Claude Code does (reads the event JSON on stdin).
    Hook {
        #[arg(value_parser = hook_name())]
        which: HookKind,
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
    Rules {
        /// Print a built-in rule set instead of the effective rules, with
        /// your switches and settings kept: `default` (the built-in rules)
        /// or `software` (general software work).
        #[arg(long, value_name = "NAME")]
        preset: Option<Preset>,
    },
    /// Show which rule and keyword a prompt would trigger, without Claude.
    Explain {
        /// The prompt text, as it would be typed.
        prompt: String,
    },
    /// Print a shell completion script (`gk help completions` shows the line for your shell's profile).
    #[command(after_help = COMPLETIONS_HELP)]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// List, clean, prune or set the task records (one per session).
    State(StateArgs),
    /// Print this session's task state as one line, for Claude Code's statusLine.
    Statusline,
    /// Count from Claude Code's transcripts whether gk's advice is followed and records are kept (read-only).
    Report(ReportArgs),
}

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Only transcripts written since then: `7d`, `12h`, or a date (`2026-11-01`).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only this project folder's transcripts (as the folder Claude Code was started in).
    #[arg(long, value_name = "PATH")]
    pub project: Option<PathBuf>,
    /// Print the counts as JSON.
    #[arg(long)]
    pub json: bool,
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

/// A hook's name on the command line (`prompt`, `stop`, `session`), parsed
/// straight into the one hook type, [`HookKind`].
fn hook_name() -> impl clap::builder::TypedValueParser<Value = HookKind> {
    use clap::builder::TypedValueParser as _;
    // The switch hooks have `"switch"` in gk.json, not an on/off flag.
    let names = HookKind::ALWAYS.map(HookKind::arg);
    clap::builder::PossibleValuesParser::new(names).map(|name| {
        HookKind::ALWAYS
            .into_iter()
            .find(|k| k.arg() == name)
            .unwrap_or(HookKind::Prompt)
    })
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
    /// Do not add the permission rules that let Claude write its task
    /// records without asking.
    #[arg(long)]
    pub no_permissions: bool,
    /// Also register `gk statusline` as Claude Code's status line (only
    /// where none is set).
    #[arg(long)]
    pub statusline: bool,
    /// For every user of this machine (run as root or administrator): a
    /// drop-in in Claude Code's managed settings folder registering gk's
    /// hooks, and the program at a machine-wide path.
    #[arg(long, conflicts_with_all = ["statusline", "shell", "no_permissions"])]
    pub managed: bool,
    /// With --managed: write the drop-in to FILE instead, to ship with your
    /// own tools; the program is not copied.
    #[arg(long, value_name = "FILE", requires = "managed")]
    pub output: Option<PathBuf>,
    /// With --managed --output: write the drop-in for that platform (its
    /// machine-wide program path) instead of this machine's.
    #[arg(long, value_enum, requires = "managed")]
    pub platform: Option<Platform>,
    /// With --managed: register the switch guard (PreModelSwitch,
    /// PostModelSwitch) in the drop-in too; only where every machine runs
    /// a Claude Code that knows those events (older ones warn at every
    /// start).
    #[arg(long, requires = "managed")]
    pub with_switch_guard: bool,
}

/// A platform `gk install --managed --output` can write a drop-in for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Platform {
    /// `C:\Program Files\gk\gk.exe`, read from `C:\Program Files\ClaudeCode\managed-settings.d\`.
    Windows,
    /// `/usr/local/bin/gk`, read from `/Library/Application Support/ClaudeCode/managed-settings.d/`.
    Macos,
    /// `/usr/local/bin/gk`, read from `/etc/claude-code/managed-settings.d/`.
    Linux,
}

impl Platform {
    pub fn os(self) -> crate::platform::Os {
        use crate::platform::Os;
        match self {
            Platform::Windows => Os::Windows,
            Platform::Macos => Os::MacOs,
            Platform::Linux => Os::Linux,
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub change: ChangeArgs,
    /// Also remove task_state.json, gk's config file and gk's backups.
    #[arg(long)]
    pub purge: bool,
    /// Take back `gk install --managed`: gk's drop-in and the machine-wide
    /// program.
    #[arg(long, conflicts_with = "purge")]
    pub managed: bool,
    /// With --managed: take gk's entries out of FILE (a drop-in written
    /// with `install --managed --output`) instead.
    #[arg(long, value_name = "FILE", requires = "managed")]
    pub output: Option<PathBuf>,
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
    /// Managed (policy) settings file to read instead of the platform's
    /// [env: GK_MANAGED_SETTINGS=]
    #[arg(long)]
    pub managed_settings: Option<PathBuf>,
    /// Do not run the registered hook commands.
    #[arg(long)]
    pub no_smoke: bool,
}

#[derive(Debug, Clone, Args)]
pub struct SwitchArgs {
    #[arg(value_parser = hook_name())]
    pub which: HookKind,
    #[command(flatten)]
    pub change: ChangeArgs,
}

/// The end of `gk help completions`: the line for each shell's profile
/// (the same table as the usage guide's), so a binary-only install has it.
const COMPLETIONS_HELP: &str = "\
Add the line for your shell to its profile, then open a new shell:
  bash        ~/.bashrc:                    source <(gk completions bash)
  zsh         ~/.zshrc, after compinit:     source <(gk completions zsh)
  fish        ~/.config/fish/config.fish:   gk completions fish | source
  PowerShell  the file $PROFILE names:      gk completions powershell | Out-String | Invoke-Expression
  elvish      ~/.config/elvish/rc.elv:      eval (gk completions elvish | slurp)";

/// `gk hook --help`. Not clap's help: the hook path takes no options (it
/// is parsed by hand, see `main.rs`), so clap's `[OPTIONS]` would mislead.
pub const HOOK_HELP: &str = "\
Run a hook as Claude Code does: read the event JSON on stdin, print at most
one JSON line, always exit 0.

Usage: gk hook <prompt|stop|session|pre-model-switch|post-model-switch>

  prompt             UserPromptSubmit: model and effort advice, [check], the task state for Claude
  stop               Stop: the STATE line when Claude hands back control
  session            SessionStart: one warning when the setup this session loads is broken
                     (gk's hooks firing twice, a settings file Claude Code skips, gk missing);
                     nothing at all when it is healthy
  pre-model-switch   PreModelSwitch: asks before a /model switch while a task is in progress
  post-model-switch  PostModelSwitch: tells Claude the model changed mid-task

`gk install` registers the first three, and the two switch hooks when `claude --version`
is 2.1.251 or newer; `gk doctor` says why one does not run.
";

/// The names of gk's subcommands, clap's `help` included.
/// The built-in rule sets `gk rules --preset` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Preset {
    /// The built-in rules (the seed's, kept for parity).
    Default,
    /// General software work: design and hard debugging to Opus, trivial
    /// follow-ups to Haiku, everything else Sonnet.
    Software,
}

/// What plain `gk` (no arguments) says after the help. On Windows that is
/// what a client older than 2.1.139 runs for an exec-form hook entry (it
/// drops `args`), so it says which client is needed; elsewhere gk never
/// registers an exec form, so the hint would only mislead.
pub fn no_command_note(os: crate::platform::Os) -> &'static str {
    if os.is_windows() {
        "gk: no command given (a hook registered as `gk.exe` with \"args\" needs Claude Code 2.1.139 or newer)"
    } else {
        "gk: no command given (`gk --help` lists the commands)"
    }
}

pub fn subcommand_names() -> Vec<String> {
    let mut cmd = Cli::command();
    cmd.build();
    cmd.get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// The subcommands `word` is a plain typo of: one letter off, or two
/// transposed (two edits for names longer than five letters), ignoring
/// case; or the first three letters or more of a name. The closest ones
/// only. Looser guesses (clap's own offers `hook` for `foo`) mislead more
/// than they help.
pub fn near_misses(word: &str, names: &[&str]) -> Vec<String> {
    let word = word.to_lowercase();
    let distance = |name: &str| {
        if word.chars().count() >= 3 && name.starts_with(&word) {
            return Some(1);
        }
        let allowed = if name.chars().count() <= 5 { 1 } else { 2 };
        let d = strsim::osa_distance(&word, name);
        (d <= allowed).then_some(d)
    };
    let scored: Vec<(usize, &str)> = names
        .iter()
        .filter_map(|n| distance(n).map(|d| (d, *n)))
        .collect();
    let best = scored.iter().map(|(d, _)| *d).min();
    scored
        .iter()
        .filter(|(d, _)| Some(*d) == best)
        .map(|(_, n)| n.to_string())
        .collect()
}

/// `gk completions <shell>`: the completion script on stdout.
pub fn print_completions(
    shell: clap_complete::Shell,
    out: &mut dyn std::io::Write,
) -> crate::error::Result<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "gk", &mut script);
    let stdout = out;
    match stdout.write_all(&script).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(crate::error::Error::new(
            format!("could not write to stdout: {e}"),
        )),
        _ => Ok(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_old_client_hint_is_for_windows_only() {
        use crate::platform::Os;
        assert!(no_command_note(Os::Windows).contains("2.1.139"));
        for os in [Os::Linux, Os::MacOs] {
            assert!(!no_command_note(os).contains("gk.exe"));
        }
    }

    #[test]
    fn near_misses_are_typos_not_lookalikes() {
        let names = subcommand_names();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let near = |w: &str| near_misses(w, &names);
        assert_eq!(near("hok"), ["hook"]);
        assert_eq!(near("HOOKS"), ["hook"]);
        assert_eq!(near("unistall"), ["uninstall"]);
        assert_eq!(near("explian"), ["explain"]);
        assert_eq!(near("doc"), ["doctor"]);
        assert!(near("foo").is_empty());
        assert!(near("stop").is_empty());
        assert!(near("he").is_empty());
    }
}
