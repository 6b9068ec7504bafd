//! `gk install` and `gk uninstall`: the plan from [`crate::setup`], shown
//! and written by [`crate::change::apply`], then the smoke test of what was
//! installed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::bounded::{in_the_way, io_reason as reason};
use crate::change::apply::{execute, ChangeOptions, Outcome};
use crate::change::backup;
use crate::change::fs::read_text_within;
use crate::change::plan::Plan;
use crate::change::render::Style;
use crate::cli::{ColorChoice, InstallArgs, UninstallArgs};
use crate::console::{outln, Console};
use crate::edit::settings_edit::WantedHooks;
use crate::edit::switch;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::hookcmd::HookKind;
use crate::machine::Machine;
use crate::setup::plans::{
    plan_install_with, plan_managed_install, plan_managed_uninstall, plan_purge_backups,
    plan_uninstall,
};
use crate::setup::*;
use crate::smoke;

/// What an install plans on one channel, for the one run path: the plan,
/// the notes said after it, and the hooks the smoke test runs once it is
/// written (`None`: none, a drop-in written to a file).
struct Install {
    plan: Plan,
    notes: Vec<String>,
    smoke: Option<WantedHooks>,
    /// What a failed smoke test says.
    failed: &'static str,
}

/// `gk install [--managed]`: the channel's plan, shown and written by the
/// one change path, its notes, then the smoke test of what was installed.
pub fn run_install(
    args: &InstallArgs,
    color: ColorChoice,
    env: &Env,
    c: &mut Console<'_>,
) -> Result<u8> {
    let m = Machine::from_env(env)?;
    let program = running_program(env)?;
    let opts = crate::commands::options(&args.change);
    let install = match args.managed {
        true => managed_install(&m, args, &program, &opts, env)?,
        false => user_install(&m, args, &program, env, c)?,
    };
    let style = Style::for_stdout(color.forced(), env);
    let outcome = execute(&install.plan, &opts, style, env, c)?;
    for note in &install.notes {
        // A note may quote a settings value (another tool's status line).
        outln!(c, "{}", crate::text::escaped(note));
    }
    report_running_copies(c, &outcome);
    let ran = matches!(outcome, Outcome::Written { .. } | Outcome::NothingToDo);
    let Some(wanted) = install.smoke.filter(|_| ran && !args.no_smoke) else {
        return Ok(outcome.exit_code());
    };
    if !smoke_test(&m, &wanted, env, c) {
        return Err(Error::new(install.failed));
    }
    Ok(outcome.exit_code())
}

/// The user channel's install: the state folder checked, the client asked
/// its version (install may start a program, hooks may not: it decides
/// whether the switch hooks are registered), the rule set offered.
fn user_install(
    m: &Machine,
    args: &InstallArgs,
    program: &[u8],
    env: &Env,
    c: &mut Console<'_>,
) -> Result<Install> {
    let shell = shell_form(args.shell, m.os());
    if !args.no_permissions {
        check_state_folder(m)?;
    }
    let (mut extras, mut notes) = Extras::for_machine(m, !args.no_permissions, args.statusline);
    extras.client = smoke::client_version(m.os(), env);
    let (mut plan, more) = plan_install_with(m, shell, program, &extras)?;
    notes.extend(more);
    if let Some(change) = offer_presets(m, args, env, c)? {
        plan.push(change);
    }
    // Beside gk's plugin install copies no program: the hooks that run are
    // the plugin's, `gk` from PATH, and that is what the smoke test starts.
    let bin = m.paths.binary(m.os());
    let smoke = match plan.changes.iter().any(|ch| ch.path == bin) {
        true => wanted_hooks(&m.ctx, shell, m.bash_home.as_deref(), extras.client),
        false => crate::setup::plugin::plugin_hooks(),
    };
    Ok(Install {
        plan,
        notes,
        smoke: Some(smoke),
        failed: "the files are in place, but a hook failed its smoke test (see above; `gk doctor` digs deeper)",
    })
}

/// The managed channel's install (`--managed [--output FILE]
/// [--platform P]`): refused before anything is shown when this process
/// cannot write there; the smoke test runs the machine-wide program (not
/// with `--output`: it is not copied then).
fn managed_install(
    m: &Machine,
    args: &InstallArgs,
    program: &[u8],
    opts: &ChangeOptions,
    env: &Env,
) -> Result<Install> {
    let output = output_file(args.output.as_deref(), env)?;
    let output = output.as_deref();
    let target = managed::Target {
        switch_guard: args.with_switch_guard,
        ..platform_target(m, args.platform, output)?
    };
    if !opts.dry_run && !opts.check {
        let can_output = output.is_none();
        let paths = managed::targets(m, output);
        check_rights(&paths, "gk install --managed", can_output)?;
    }
    let smoke = match output {
        None => Some(target.hooks()?),
        Some(_) => None,
    };
    let dropin = managed::DropIn { m, target, output };
    let (plan, notes) = plan_managed_install(dropin, program)?;
    Ok(Install {
        plan,
        notes,
        smoke,
        failed: "the files are in place, but a hook failed its smoke test (see above)",
    })
}

/// The platform a drop-in is written for: this machine's, or the one
/// `--platform` names, which only a drop-in written to a file can have.
fn platform_target(
    m: &Machine,
    platform: Option<crate::cli::Platform>,
    output: Option<&Path>,
) -> Result<managed::Target> {
    match (platform, output) {
        (Some(p), Some(_)) => Ok(managed::Target::for_platform(m, p.os())),
        (Some(_), None) => Err(Error::refused(
            "--platform names the platform of a drop-in written to a file: add --output FILE (without it, gk install --managed installs for this machine)",
        )),
        (None, _) => Ok(managed::Target::here(m)),
    }
}

/// `--output FILE`, when given, as a path from the current folder
/// ([`in_current_folder`]).
fn output_file(output: Option<&Path>, env: &Env) -> Result<Option<PathBuf>> {
    output.map(|f| in_current_folder(f, env)).transpose()
}

/// Asked by `gk install` at a terminal (not with `--yes`, `--dry-run` or
/// `--check`) when the user has no gk.json yet: which rule set the advice
/// follows, one line each; Enter keeps the current (built-in) rules. The
/// software set becomes a gk.json in the plan, shown and confirmed with
/// the rest.
fn offer_presets(
    m: &Machine,
    args: &InstallArgs,
    env: &Env,
    c: &mut Console<'_>,
) -> Result<Option<crate::change::plan::FileChange>> {
    let change = &args.change;
    let config = m.paths.config_file();
    if change.yes || change.dry_run || change.check || !env.stdin_is_terminal() {
        return Ok(None);
    }
    if std::fs::symlink_metadata(&config).is_ok() {
        return Ok(None);
    }
    outln!(c, "Which rules should gk's model advice follow?");
    outln!(
        c,
        "  1  keep the current rules: the built-in advice (`gk rules` prints it; `gk explain` shows what decides)"
    );
    outln!(
        c,
        "  2  general software work: Opus for design and hard debugging, Haiku for trivial follow-ups, Sonnet for the rest"
    );
    let answer = crate::change::apply::ask_line(c, "choose 1 or 2 [1]:")?;
    outln!(c);
    if answer != "2" {
        return Ok(None);
    }
    let mut rules = crate::hooks::config::Config::default();
    super::presets::apply(&mut rules, crate::cli::Preset::Software);
    let text = super::rules::rules_text(rules)?;
    Ok(Some(crate::change::plan::FileChange::text(
        &config,
        None,
        Some(text),
        "the rules for general software work, as chosen",
    )))
}

/// The bytes of the gk program that is running (what install copies).
fn running_program(env: &Env) -> Result<Vec<u8>> {
    let exe = env
        .current_exe()
        .map_err(|e| Error::new(format!("could not find the running gk program: {e}")))?;
    Ok(crate::bounded::read(exe, crate::bounded::PROGRAM_LIMIT)
        .map_err(|e| Error::io("read", exe, &e.into_io()))?
        .bytes)
}

/// `--output FILE` as a path from the current folder: a bare name
/// (`gk.json`) or a relative one (`ship/gk.json`) is the file there, as
/// any command-line tool reads it.
fn in_current_folder(file: &Path, env: &Env) -> Result<PathBuf> {
    // `./gk.json` is `gk.json` there: no `.` part in the path gk shows
    // and names its backup after.
    let file: PathBuf = file
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if file.is_absolute() {
        return Ok(file);
    }
    let here = env
        .current_dir()
        .map_err(|e| Error::new(format!("could not find the current folder: {e}")))?;
    Ok(here.join(file))
}

/// Refuse, before anything is shown or written, a managed plan this
/// process has not the rights to write: one line naming the folder and
/// what to do instead. A folder that cannot be made because a folder
/// above it is missing altogether (a drive that is not there) is said to
/// be missing: no rights would help.
fn check_rights(paths: &[PathBuf], command: &str, can_output: bool) -> Result<()> {
    for path in paths {
        if let Err((dir, e)) = crate::change::fs::can_create(path) {
            // Missing, or a link to nothing: no right would help.
            if let Some(why) = in_the_way(&e).filter(|_| e.kind() == std::io::ErrorKind::NotFound) {
                return Err(Error::refused(format!(
                    "cannot write {}: {} {why}",
                    shown(path),
                    shown(&dir)
                )));
            }
            let who = if crate::platform::Os::current().is_windows() {
                "from a prompt run as administrator"
            } else {
                "as root (sudo)"
            };
            let other = if can_output {
                ", or write the drop-in to a file of your own with --output FILE"
            } else {
                ""
            };
            return Err(Error::refused(format!(
                "cannot write {} ({}), needed for {}: run `{command}` {who}{other}",
                shown(&dir),
                reason(&e),
                shown(path)
            )));
        }
    }
    Ok(())
}

/// A path in a one-line refusal: a file name may hold a line break or an
/// escape.
fn shown(path: &Path) -> String {
    crate::text::one_line(&path.display().to_string(), 1_000).into_owned()
}

/// Refuse to grant Claude a state folder that is not gk's own (see
/// [`crate::records::check_path`] and [`crate::records::scan`]): the rules
/// would let Claude edit every `*.json` there. Refuse as well one that
/// cannot be made where it is (a file or a link to nothing in the way, or
/// no drive), only looked at: Claude's every record write would fail
/// there. Nothing is written.
fn check_state_folder(m: &Machine) -> Result<()> {
    let Some(dir) = m.state_dir.clone() else {
        return Ok(());
    };
    if let Some(what) = crate::hooks::state::cannot_be_made(&dir) {
        return Err(Error::refused(format!(
            "{what}; make it a folder you can write, or point {} at one",
            crate::paths::STATE_DIR_VAR
        )));
    }
    crate::records::check_path(m.os(), &dir, Some(&m.ctx.home), m.paths.dir())
        .and_then(|()| crate::records::scan(&dir).map(|_| ()))
        .map_err(|e| Error::refused(format!("{e}; or install with --no-permissions")))
}

/// Run each registered hook once as Claude Code would; print one line per
/// hook (and what the session check reports about the setup, when it
/// reports something). Returns whether every hook that is switched on passed.
fn smoke_test(
    m: &Machine,
    wanted: &crate::edit::settings_edit::WantedHooks,
    env: &Env,
    c: &mut Console<'_>,
) -> bool {
    // As the hooks read it: a gk.json over their limit is no config at all.
    let config = read_text_within(
        &m.paths.config_file(),
        crate::hooks::config::MAX_CONFIG_BYTES,
    )
    .ok()
    .flatten();
    let cwd = env
        .current_dir()
        .map_or_else(|_| m.ctx.home.clone(), Path::to_path_buf);
    outln!(c);
    let mut ok = true;
    for (kind, command) in wanted.iter() {
        let label = format!("smoke test: gk hook {:<6}", kind.arg());
        if !switch::is_enabled(config.as_deref(), kind) {
            outln!(c, "{label} skipped (switched off in gk.json)");
            continue;
        }
        let inv = smoke::invocation(m.os(), m.git_bash.as_deref(), command);
        let payload = smoke::sample_payload(kind, &cwd);
        match smoke::run(&inv, &payload, Duration::from_secs(10), env, &[]) {
            Ok(run) => {
                let ms = run.duration.as_secs_f64() * 1000.0;
                match smoke::judge(kind, &run) {
                    Ok(()) => {
                        outln!(c, "{label} passed in {ms:.0} ms");
                        for line in session_lines(kind, &run.stdout) {
                            outln!(c, "  it reports: {line}");
                        }
                    }
                    Err(why) => {
                        ok = false;
                        outln!(c, "{label} FAILED after {ms:.0} ms: {why}");
                        // The folder's name is in the payload: text gk did
                        // not write reaches the terminal escaped.
                        outln!(
                            c,
                            "  run it by hand: {}",
                            crate::text::escaped(&smoke::by_hand(m.os(), &inv, &payload, &[]))
                        );
                    }
                }
            }
            Err(e) => {
                ok = false;
                outln!(c, "{label} FAILED: {e}");
            }
        }
    }
    ok
}

/// What a passing session check printed, line by line (nothing when the
/// setup is healthy, or for the other hooks).
fn session_lines(kind: HookKind, stdout: &str) -> Vec<String> {
    if kind.spec().smoke_check != crate::hookcmd::SmokeCheck::SessionReport {
        return Vec::new();
    }
    serde_json::from_str::<serde_json::Value>(stdout.trim())
        .ok()
        .as_ref()
        .and_then(smoke::session_report)
        .map(|lines| lines.into_iter().map(str::to_string).collect())
        .unwrap_or_default()
}

/// What an uninstall plans on one channel, for the one run path: the plan,
/// its notes, the folders `--purge` empties, and the line said once the
/// plan ran (where the gk that ran it still is).
struct Uninstall {
    plan: Plan,
    notes: Vec<String>,
    purge: Option<Emptied>,
    last: Option<String>,
}

/// What `--purge` removes once its plan is written, each only when empty
/// (`remove_dir` removes nothing else, and no link): the folders the plan
/// emptied, and first the lock of gk's writing runs in the backup folder.
struct Emptied {
    folders: Vec<PathBuf>,
    lock: Option<PathBuf>,
}

/// `gk uninstall [--managed]`: the channel's plan, shown and written by
/// the one change path, then its notes.
pub fn run_uninstall(
    args: &UninstallArgs,
    color: ColorChoice,
    env: &Env,
    c: &mut Console<'_>,
) -> Result<u8> {
    let m = Machine::from_env(env)?;
    let opts = crate::commands::options(&args.change);
    let uninstall = match args.managed {
        true => managed_uninstall(&m, args, &opts, env)?,
        false => user_uninstall(&m, args, env)?,
    };
    let style = Style::for_stdout(color.forced(), env);
    let outcome = execute(&uninstall.plan, &opts, style, env, c)?;
    if let (Some(purge), Outcome::Written { .. }) = (&uninstall.purge, &outcome) {
        if let Some(lock) = &purge.lock {
            // The lock of gk's writing runs is gk's too: taken, then removed.
            if let Ok(lock) = crate::change::lock::RunLock::take(lock) {
                lock.remove();
            }
        }
        for dir in &purge.folders {
            if std::fs::remove_dir(dir).is_ok() {
                outln!(
                    c,
                    "removed   {} (an empty folder)",
                    crate::change::render::shown_path(dir)
                );
            }
        }
    }
    for note in &uninstall.notes {
        // A note may quote a settings value (another tool's status line).
        outln!(c, "{}", crate::text::escaped(note));
    }
    report_running_copies(c, &outcome);
    let ran = matches!(outcome, Outcome::Written { .. } | Outcome::NothingToDo);
    if let (true, Some(last)) = (ran, &uninstall.last) {
        outln!(c, "{last}");
    }
    Ok(outcome.exit_code())
}

/// The user channel's uninstall; with `--purge` the task records, gk's
/// config and backups too.
fn user_uninstall(m: &Machine, args: &UninstallArgs, env: &Env) -> Result<Uninstall> {
    let (mut plan, mut notes) = plan_uninstall(m, args.purge)?;
    let mut purge = None;
    if args.purge {
        let backups = backup::Backups::from_env(env).ok();
        if let Some(b) = &backups {
            plan_purge_backups(&mut plan, b, &m.paths)?;
        }
        // The per-session records: Claude's, kept by a plain uninstall.
        let places = crate::records::Places::from_env(env)?;
        let records = crate::records::list(&places)?;
        let (changes, left) = crate::records::purge_changes(&places.state_dir, &records)?;
        for change in changes {
            plan.push(change);
        }
        notes.extend(left);
        let mut folders = vec![m.paths.hooks_dir(), places.state_dir];
        if let Some(b) = &backups {
            folders.push(b.dir().to_path_buf());
            folders.extend(
                b.dir()
                    .parent()
                    .filter(|p| p.ends_with("gk"))
                    .map(Path::to_path_buf),
            );
        }
        let lock = backups.map(|b| b.dir().to_path_buf());
        purge = Some(Emptied { folders, lock });
    }
    let last = env
        .current_exe()
        .ok()
        .filter(|exe| *exe != m.paths.binary(m.os()))
        .map(|exe| program_note(exe, cargo_bin(env).as_deref()));
    Ok(Uninstall {
        plan,
        notes,
        purge,
        last,
    })
}

/// The managed channel's uninstall (`--managed [--output FILE]`): refused
/// before anything is shown when this process cannot write what the plan
/// changes.
fn managed_uninstall(
    m: &Machine,
    args: &UninstallArgs,
    opts: &ChangeOptions,
    env: &Env,
) -> Result<Uninstall> {
    let output = output_file(args.output.as_deref(), env)?;
    let output = output.as_deref();
    let target = managed::Target::here(m);
    let (plan, notes) = plan_managed_uninstall(managed::DropIn { m, target, output })?;
    if !opts.dry_run && !opts.check {
        let paths: Vec<PathBuf> = plan
            .changes
            .iter()
            .filter(|c| c.changes_something())
            .map(|c| c.path.clone())
            .collect();
        check_rights(&paths, "gk uninstall --managed", false)?;
    }
    Ok(Uninstall {
        plan,
        notes,
        purge: None,
        last: None,
    })
}

/// Where `cargo install` puts programs: `$CARGO_HOME/bin`, or
/// `<home>/.cargo/bin`.
fn cargo_bin(env: &Env) -> Option<PathBuf> {
    env.var_os("CARGO_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::paths::home_dir(env).map(|h| h.join(".cargo")))
        .map(|c| c.join("bin"))
}

/// Uninstall's last line: the gk the user ran is not one of the files it
/// removes (it may be on PATH, put there by `cargo install` or an
/// installer), so say where it is and how it goes.
pub fn program_note(exe: &Path, cargo_bin: Option<&Path>) -> String {
    let by_cargo = cargo_bin.is_some_and(|bin| exe.parent() == Some(bin));
    if by_cargo {
        format!(
            "gk itself is still at {} (put there by cargo): `cargo uninstall gk` removes it",
            exe.display()
        )
    } else {
        format!(
            "gk itself is still at {}: delete that file when you no longer need it \
             (`cargo uninstall gk` if cargo installed it)",
            exe.display()
        )
    }
}

/// Name each copy of gk that was moved aside (or found from an earlier
/// run) and could not be deleted because a hook is running it right now.
fn report_running_copies(c: &mut Console<'_>, outcome: &Outcome) {
    if let Outcome::Written { kept, .. } = outcome {
        for path in kept
            .iter()
            .filter(|p| p.to_string_lossy().contains(".gk-old-"))
        {
            outln!(
                c,
                "{} is still running (a Claude Code session is using it); \
                 the next gk install or uninstall removes it",
                path.display()
            );
        }
    }
}
