//! The commands a person runs, and the dispatch of the whole program.
//!
//! `gk hook prompt|stop|session` is recognised before clap is touched: the hook
//! path must start fast and must never exit 2 (exit 2 on UserPromptSubmit
//! blocks the prompt and erases what the user typed), while clap exits 2 on
//! any usage error.

pub mod install;
pub mod presets;
pub mod report;
pub mod rules;
pub mod state;
pub mod switch;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::hookcmd::HookKind;
use crate::{doctor, hooks};

/// The whole program: `main.rs` calls this and nothing else.
pub fn main() -> ExitCode {
    let mut args = std::env::args_os();
    let _program = args.next();
    let first = args.next();
    if first.as_deref() == Some(std::ffi::OsStr::new("hook")) {
        let rest: Vec<OsString> = args.collect();
        return ExitCode::from(run_hook_args(&rest));
    }
    // Claude Code runs the status line as often as every 300 ms: the same
    // fast, silent path as the hooks (with arguments, clap explains).
    if first.as_deref() == Some(std::ffi::OsStr::new("statusline")) && args.len() == 0 {
        std::panic::set_hook(Box::new(|_| std::process::exit(0)));
        return ExitCode::from(hooks::run_statusline());
    }
    if first.is_none() {
        // No arguments at all is what a client older than 2.1.139 runs for
        // an exec-form entry: it drops `args` and starts `command` alone.
        // clap would exit 2 here, and exit 2 on UserPromptSubmit blocks the
        // prompt and erases it; exit 1 is a visible hook error instead.
        let mut help = <Cli as clap::CommandFactory>::command();
        let _ = help.write_help(&mut std::io::stderr());
        eprintln!(
            "\n{}",
            crate::cli::no_command_note(crate::platform::Os::current())
        );
        return ExitCode::from(1);
    }

    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let result = match cli.command {
        // Reached only through an unusual spelling clap still accepts.
        Command::Hook { which } => Ok(run_hook(which)),
        Command::Install(a) => install::run_install(&a, cli.color),
        Command::Uninstall(a) => install::run_uninstall(&a, cli.color),
        Command::Enable(a) => switch::run_switch(&a, true, cli.color),
        Command::Disable(a) => switch::run_switch(&a, false, cli.color),
        Command::Doctor(a) => doctor::run(&a, cli.color),
        Command::Rules { preset } => rules::print_rules(preset),
        Command::State(a) => state::run(&a, cli.color),
        // Reached only with arguments, which clap has already refused.
        Command::Statusline => Ok(hooks::run_statusline()),
        Command::Explain { prompt } => rules::explain(&prompt),
        Command::Completions { shell } => crate::cli::print_completions(shell),
        Command::Report(a) => report::run(&a),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // An error may quote a file's text (a field name in gk.json):
            // shown, never acted on by the terminal.
            eprintln!("gk: {}", crate::text::escaped(&e.to_string()));
            ExitCode::from(1)
        }
    }
}

/// clap's own report and exit code, with two changes for an unknown
/// subcommand: the "similar subcommand" tip names only real near-misses
/// (clap's own guess offers `hook` for `foo`), and where the user meant
/// `hook` (`gk hok prompt`, `gk hooks stop`) the exit code is 1: that is a
/// mistyped hook registration, and exit 2 on UserPromptSubmit would block
/// the prompt.
fn usage_error(mut e: clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let mut meant_hook = false;
    if e.kind() == ErrorKind::InvalidSubcommand {
        if let Some(ContextValue::String(word)) = e.get(ContextKind::InvalidSubcommand) {
            let commands = crate::cli::subcommand_names();
            let names: Vec<&str> = commands.iter().map(String::as_str).collect();
            let near = crate::cli::near_misses(word, &names);
            meant_hook = near.iter().any(|s| s == "hook");
            e.remove(ContextKind::SuggestedSubcommand);
            if matches!(e.get(ContextKind::Suggested), Some(ContextValue::StyledStrs(v)) if v.is_empty())
            {
                // An empty list still prints a blank line.
                e.remove(ContextKind::Suggested);
            }
            if !near.is_empty() {
                e.insert(
                    ContextKind::SuggestedSubcommand,
                    ContextValue::Strings(near),
                );
            }
        }
    }
    let _ = e.print();
    ExitCode::from(if meant_hook { 1 } else { e.exit_code() as u8 })
}

/// `gk hook <name>`: anything but exactly one known hook name is a
/// registration mistake; say so in one line and exit 1, never 2.
fn run_hook_args(rest: &[OsString]) -> u8 {
    let name = rest.first().and_then(|s| s.to_str());
    let hook = match (name, rest.len()) {
        (Some("prompt"), 1) => HookKind::Prompt,
        (Some("stop"), 1) => HookKind::Stop,
        (Some("session"), 1) => HookKind::Session,
        // Someone reading about the command, not a registration.
        (Some("--help" | "-h"), 1) => {
            print!("{}", crate::cli::HOOK_HELP);
            return 0;
        }
        _ => {
            let got: Vec<String> = rest
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            eprintln!(
                "gk: usage: gk hook prompt|stop|session (got: {})",
                if got.is_empty() {
                    "nothing".to_string()
                } else {
                    got.join(" ")
                }
            );
            return 1;
        }
    };
    run_hook(hook)
}

/// Run a hook so that even a bug can neither print to stderr nor exit
/// non-zero: release builds abort on panic, so `hooks::run`'s
/// catch_unwind alone is not enough; the panic hook exits 0 first.
fn run_hook(hook: HookKind) -> u8 {
    std::panic::set_hook(Box::new(|_| std::process::exit(0)));
    hooks::run(hook)
}

/// How the user asked a change to be made (`--yes`, `--dry-run`, `--check`).
pub fn options(a: &crate::cli::ChangeArgs) -> crate::change::apply::ChangeOptions {
    crate::change::apply::ChangeOptions {
        yes: a.yes,
        dry_run: a.dry_run,
        check: a.check,
    }
}
