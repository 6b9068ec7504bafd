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

use std::ffi::{OsStr, OsString};
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::console::{errln, out, Console, FileId};
use crate::env::Env;
use crate::hookcmd::HookKind;
use crate::{doctor, hooks};

/// The whole program: `main.rs` calls this and nothing else. The one
/// place gk reads its process (see [`Env::from_process`]) and binds the
/// real stdout, stderr and stdin (see [`Console`]); everything else is
/// [`run`], which the in-process tests call with their own.
pub fn main() -> ExitCode {
    ExitCode::from(main_code())
}

/// [`main`] as the number the process exits with: what a C-level entry
/// point returns (see `src/main.rs`).
pub fn main_code() -> u8 {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let env = Env::from_process();
    let (stdout, stderr, stdin) = (std::io::stdout(), std::io::stderr(), std::io::stdin());
    let mut console = Console {
        out: &mut stdout.lock(),
        err: &mut stderr.lock(),
        input: &mut stdin.lock(),
        out_file: &stdout_file,
    };
    let code = run(&args, &env, &mut console, &guard_hot_path);
    console.flush();
    let _ = console.err.flush();
    code
}

/// The process's panic hook on the hot path: even a bug can neither print
/// to stderr nor exit non-zero (release builds abort on panic, so
/// `hooks::run`'s catch_unwind alone is not enough; the hook exits 0
/// first). Process-wide, so only `main` sets it, never an in-process run.
fn guard_hot_path() {
    std::panic::set_hook(Box::new(|_| std::process::exit(0)));
}

/// The regular file stdout writes to (`gk rules > gk.json`), by its
/// device and inode. Only the process has a stdout to look at: this is
/// why the look is here and `gk rules` asks the console for it.
#[cfg(unix)]
fn stdout_file() -> Option<FileId> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let fd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let meta = std::fs::File::from(fd).metadata().ok()?;
    meta.is_file().then(|| (meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn stdout_file() -> Option<FileId> {
    None
}

/// One run of gk: `args` without the program's name, the environment, the
/// console, and what to do before a hook runs (the process installs its
/// panic hook; an in-process run does nothing). Returns the exit code.
pub fn run(args: &[OsString], env: &Env, c: &mut Console<'_>, before_hook: &dyn Fn()) -> u8 {
    let first = args.first().map(OsString::as_os_str);
    if first == Some(OsStr::new("hook")) {
        return run_hook_args(&args[1..], env, c, before_hook);
    }
    // Claude Code runs the status line as often as every 300 ms: the same
    // fast, silent path as the hooks (with arguments, clap explains).
    if first == Some(OsStr::new("statusline")) && args.len() == 1 {
        before_hook();
        return hooks::statusline::run(env, c);
    }
    if first.is_none() {
        // No arguments at all is what a client older than 2.1.139 runs for
        // an exec-form entry: it drops `args` and starts `command` alone.
        // clap would exit 2 here, and exit 2 on UserPromptSubmit blocks the
        // prompt and erases it; exit 1 is a visible hook error instead.
        let mut help = <Cli as clap::CommandFactory>::command();
        let _ = help.write_help(&mut c.err);
        errln!(
            c,
            "\n{}",
            crate::cli::no_command_note(crate::platform::Os::current())
        );
        return 1;
    }
    let cli = match Cli::try_parse_from(
        std::iter::once(OsStr::new("gk")).chain(args.iter().map(OsString::as_os_str)),
    ) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e, env, c),
    };
    match dispatch(cli, env, c, before_hook) {
        Ok(code) => code,
        Err(e) => {
            // An error may quote a file's text (a field name in gk.json)
            // or a name holding a line break: shown, never acted on by the
            // terminal, and one line.
            errln!(c, "gk: {}", crate::text::escaped_line(&e.to_string()));
            1
        }
    }
}

/// The command clap parsed, run.
fn dispatch(
    cli: Cli,
    env: &Env,
    c: &mut Console<'_>,
    before_hook: &dyn Fn(),
) -> crate::error::Result<u8> {
    match cli.command {
        // Reached only through an unusual spelling clap still accepts.
        Command::Hook { which } => Ok(run_hook(which, env, c, before_hook)),
        Command::Install(a) => install::run_install(&a, cli.color, env, c),
        Command::Uninstall(a) => install::run_uninstall(&a, cli.color, env, c),
        Command::Enable(a) => switch::run_switch(&a, true, cli.color, env, c),
        Command::Disable(a) => switch::run_switch(&a, false, cli.color, env, c),
        Command::Doctor(a) => doctor::run(&a, cli.color, env, c),
        Command::Rules { preset } => rules::print_rules(preset, env, c),
        Command::State(a) => state::run(&a, cli.color, env, c),
        // Reached only with arguments, which clap has already refused.
        Command::Statusline => Ok(hooks::statusline::run(env, c)),
        Command::Explain { prompt } => rules::explain(&prompt, env, c),
        Command::Completions { shell } => crate::cli::print_completions(shell, c.out),
        Command::Report(a) => report::run(&a, env, c),
    }
}

/// clap's own report and exit code, with two changes for an unknown
/// subcommand: the "similar subcommand" tip names only real near-misses
/// (clap's own guess offers `hook` for `foo`), and where the user meant
/// `hook` (`gk hok prompt`, `gk hooks stop`) the exit code is 1: that is a
/// mistyped hook registration, and exit 2 on UserPromptSubmit would block
/// the prompt.
fn usage_error(mut e: clap::Error, env: &Env, c: &mut Console<'_>) -> u8 {
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
    print_clap(&e, env, c);
    if meant_hook {
        1
    } else {
        e.exit_code() as u8
    }
}

/// What clap's `Error::print` does, through the console: help and the
/// version on stdout, errors on stderr, styled as [`clap_styles`] decides.
fn print_clap(e: &clap::Error, env: &Env, c: &mut Console<'_>) {
    let (terminal, stream) = if e.use_stderr() {
        (env.stderr_is_terminal(), &mut *c.err)
    } else {
        (env.stdout_is_terminal(), &mut *c.out)
    };
    let styled = clap_styles(crate::platform::Os::current(), terminal, &|n| env.var_os(n));
    let rendered = e.render();
    let _ = if styled {
        write!(stream, "{}", rendered.ansi())
    } else {
        write!(stream, "{rendered}")
    };
    let _ = stream.flush();
}

/// Whether clap styles its report on a stream, as its own automatic choice
/// decides (anstream): never with `NO_COLOR`, always with
/// `CLICOLOR_FORCE`, never with `CLICOLOR=0`, else on a terminal whose
/// `TERM` is not `dumb` (on Windows an unset `TERM` is fine), or with
/// `CLICOLOR` set, or under CI.
fn clap_styles(
    os: crate::platform::Os,
    terminal: bool,
    var: &dyn Fn(&str) -> Option<OsString>,
) -> bool {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty());
    let clicolor = var("CLICOLOR").map(|v| v != "0");
    let term_ok = match var("TERM") {
        Some(t) => t != "dumb",
        None => os.is_windows(),
    };
    if set("NO_COLOR") {
        false
    } else if set("CLICOLOR_FORCE") {
        true
    } else if clicolor == Some(false) {
        false
    } else {
        terminal && (term_ok || clicolor == Some(true) || var("CI").is_some())
    }
}

/// `gk hook <name>`: anything but exactly one known hook name is a
/// registration mistake; say so in one line and exit 1, never 2.
fn run_hook_args(rest: &[OsString], env: &Env, c: &mut Console<'_>, before_hook: &dyn Fn()) -> u8 {
    let name = rest.first().and_then(|s| s.to_str());
    let hook = match (name, name.and_then(HookKind::from_arg), rest.len()) {
        (_, Some(hook), 1) => hook,
        // Someone reading about the command, not a registration.
        (Some("--help" | "-h"), _, 1) => {
            out!(c, "{}", crate::cli::HOOK_HELP);
            return 0;
        }
        _ => {
            let got: Vec<String> = rest
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            errln!(
                c,
                "gk: usage: gk hook {} (got: {})",
                HookKind::ALL.map(HookKind::arg).join("|"),
                if got.is_empty() {
                    "nothing".to_string()
                } else {
                    got.join(" ")
                }
            );
            return 1;
        }
    };
    run_hook(hook, env, c, before_hook)
}

/// Run a hook so that even a bug can neither print to stderr nor exit
/// non-zero: `before_hook` is the process's panic hook (see
/// [`guard_hot_path`]), `hooks::run` catches the rest.
fn run_hook(hook: HookKind, env: &Env, c: &mut Console<'_>, before_hook: &dyn Fn()) -> u8 {
    before_hook();
    hooks::run(hook, env, c)
}

/// How the user asked a change to be made (`--yes`, `--dry-run`, `--check`).
pub fn options(a: &crate::cli::ChangeArgs) -> crate::change::apply::ChangeOptions {
    crate::change::apply::ChangeOptions {
        yes: a.yes,
        dry_run: a.dry_run,
        check: a.check,
    }
}
