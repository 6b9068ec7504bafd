//! Install, uninstall and the enable/disable switches: each builds a plan of
//! file changes that goes through one show → confirm → atomic-write path.
//!
//! # The change engine (also used by `gk doctor --fix`)
//!
//! 1. Build a [`plan::Plan`] — pure: read every file, compute every new
//!    text, push one [`plan::FileChange`] per file (old bytes, new bytes;
//!    `None` for "absent"). Any error while planning means nothing is
//!    written. The edits themselves are pure text → text functions:
//!    [`settings_edit::add_hooks`] / [`settings_edit::remove_hooks`],
//!    [`claude_md::insert_section`] / [`claude_md::remove_section`],
//!    [`switch::set_enabled`].
//! 2. Hand it to [`apply::execute`] with [`apply::ChangeOptions`] (from
//!    `--yes`, `--dry-run`, `--check`) and the `--color` choice. It shows
//!    the action list and a unified diff per text file with secrets masked,
//!    asks (default no; refuses without a terminal unless `--yes`), checks
//!    nothing changed underneath, backs up, and writes atomically.
//! 3. [`apply::Outcome::exit_code`] gives the process exit code.
//!
//! ```
//! use gk::cli::ColorChoice;
//! use gk::install::apply::{execute, ChangeOptions};
//! use gk::install::plan::{FileChange, Plan};
//! # fn fix(path: &std::path::Path, old: String, new: String) -> gk::error::Result<u8> {
//! let mut plan = Plan::new("gk doctor --fix");
//! plan.push(FileChange::text(path, Some(old), Some(new), "remove a duplicate hook"));
//! let opts = ChangeOptions { yes: false, dry_run: true, check: false };
//! let outcome = execute(&plan, &opts, ColorChoice::Never)?;
//! Ok(outcome.exit_code())
//! # }
//! ```

pub mod apply;
pub mod backup;
pub mod binary;
pub mod claude_md;
pub mod plan;
pub mod record;
pub mod settings_edit;
pub mod settings_keys;
pub mod switch;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::{ColorChoice, InstallArgs, ShellChoice, SwitchArgs, UninstallArgs};
use crate::error::{Error, Result};
use crate::hookcmd::{canonical, CommandContext, HookKind, ShellForm};
use crate::install::apply::{execute, read_current, ChangeOptions, Outcome};
use crate::install::plan::{FileChange, Plan};
use crate::install::settings_edit::WantedHooks;
use crate::paths::ClaudePaths;
use crate::platform::{find_git_bash, Os};
use crate::smoke;

/// The clean task state install creates when there is none (seed A.3).
pub const CLEAN_STATE: &str = "{\n  \"status\": \"clean\",\n  \"task\": \"\",\n  \"detail\": \"\",\n  \"project\": \"\",\n  \"cwd\": \"\",\n  \"updated\": \"2026-01-01T00:00:00\"\n}\n";

/// Everything about this machine the plans depend on.
#[derive(Debug, Clone)]
pub struct Machine {
    pub os: Os,
    pub paths: ClaudePaths,
    pub ctx: CommandContext,
    pub git_bash: Option<PathBuf>,
    /// Windows only: the `HOME` variable, which Git Bash uses for `$HOME`
    /// when it is set (see [`spelling_context`]).
    pub bash_home: Option<PathBuf>,
}

impl Machine {
    /// Read from the process environment.
    pub fn from_env() -> Result<Machine> {
        let os = Os::current();
        let paths = ClaudePaths::from_env().ok_or_else(|| {
            Error::new("could not find the home folder (set HOME or CLAUDE_CONFIG_DIR)")
        })?;
        // A relative CLAUDE_CONFIG_DIR would give a hook command that only
        // works from this folder: pin it here, as Claude Code started here would.
        let paths = ClaudePaths::at(absolute(paths.dir()));
        let home = crate::paths::home_dir().unwrap_or_else(|| paths.dir().to_path_buf());
        let claude_config_dir = std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|v| !v.is_empty())
            .map(|v| absolute(Path::new(&v)));
        let git_bash = find_git_bash(os, &|name| std::env::var_os(name), &|p| p.is_file());
        let bash_home = if os.is_windows() {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        } else {
            None
        };
        Ok(Machine {
            os,
            ctx: CommandContext {
                os,
                home,
                claude_dir: paths.dir().to_path_buf(),
                claude_config_dir,
            },
            paths,
            git_bash,
            bash_home,
        })
    }
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// `path` made absolute against the current folder (unchanged if that fails).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Which command form to register: asked for, or decided from the platform.
/// On Windows the exec form (no shell), whether Git Bash is there or not: no
/// shell to start on every prompt (a Git Bash or PowerShell start costs far
/// more than gk itself), no quoting of the path, and the client runs exactly
/// what the smoke test runs. Elsewhere the bash form.
pub fn shell_form(choice: ShellChoice, os: Os) -> ShellForm {
    match choice {
        ShellChoice::Bash => ShellForm::Bash,
        ShellChoice::Powershell => ShellForm::PowerShell,
        ShellChoice::Exec => ShellForm::Exec,
        ShellChoice::Auto if os.is_windows() => ShellForm::Exec,
        ShellChoice::Auto => ShellForm::Bash,
    }
}

/// The canonical command for each hook, spelled for `shell` on this machine
/// (`bash_home`: see [`spelling_context`]).
pub fn wanted_hooks(
    ctx: &CommandContext,
    shell: ShellForm,
    bash_home: Option<&Path>,
) -> WantedHooks {
    let spelled = spelling_context(ctx, shell, bash_home);
    WantedHooks::of(|kind| canonical(kind, &spelled, shell))
}

/// [`wanted_hooks`], read back before anything is written: each command,
/// split and expanded as the shell will (`hookcmd::normalize`), must start
/// `binary` — the file install puts in place — with `hook <kind>`. A
/// `<claude dir>` that no command string can name (not valid Unicode) or a
/// spelling that would start another file is an error, so the plan stops
/// with nothing written instead of registering a command that fails.
pub fn verified_wanted_hooks(
    ctx: &CommandContext,
    shell: ShellForm,
    bash_home: Option<&Path>,
    binary: &Path,
) -> Result<WantedHooks> {
    let Some(bin) = binary.to_str() else {
        return Err(Error::new(format!(
            "{} is not valid Unicode, so no settings.json command can name it (set CLAUDE_CONFIG_DIR to a folder whose name is); nothing written",
            binary.display()
        )));
    };
    let wanted = wanted_hooks(ctx, shell, bash_home);
    let spelled = spelling_context(ctx, shell, bash_home);
    let program = crate::hookcmd::normalize_path(bin, ctx.os);
    for kind in HookKind::ALL {
        let command = wanted.get(kind).run_command();
        let runs = crate::hookcmd::normalize(&command, &spelled);
        let ok = runs
            .as_ref()
            .is_some_and(|inv| inv.program == program && inv.args == ["hook", kind.arg()]);
        if !ok {
            return Err(Error::new(format!(
                "the command gk would register, `{command}`, does not start {}; nothing written",
                binary.display()
            )));
        }
    }
    Ok(wanted)
}

/// The context to spell a command with. Git Bash takes `$HOME` from the
/// `HOME` variable when one is set, while Claude Code finds `<claude dir>`
/// under the Windows profile folder; on machines where the two differ (a
/// `HOME` on a network drive, say) a `$HOME/...` command would point at a
/// binary that is not there, so the home is taken as the shell's and the
/// command falls back to the absolute `C:/...` form.
pub fn spelling_context(
    ctx: &CommandContext,
    shell: ShellForm,
    bash_home: Option<&Path>,
) -> CommandContext {
    let same = |h: &Path| {
        crate::hookcmd::normalize_path(&h.to_string_lossy(), ctx.os)
            == crate::hookcmd::normalize_path(&ctx.home.to_string_lossy(), ctx.os)
    };
    match bash_home {
        Some(h) if ctx.os.is_windows() && shell == ShellForm::Bash && !same(h) => CommandContext {
            home: h.to_path_buf(),
            ..ctx.clone()
        },
        _ => ctx.clone(),
    }
}

/// The file's text as it is now; `None` when it does not exist; an error
/// (plan refused, nothing written) when it is not UTF-8, not a regular file
/// or over [`crate::bounded::TEXT_LIMIT`].
pub fn read_text(path: &Path) -> Result<Option<String>> {
    read_text_within(path, crate::bounded::TEXT_LIMIT)
}

/// [`read_text`] with another size limit.
pub fn read_text_within(path: &Path, limit: u64) -> Result<Option<String>> {
    read_current(path, limit)?
        .map(|bytes| text_of(path, bytes))
        .transpose()
}

fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| {
        Error::new(format!(
            "{} is not UTF-8 text; nothing written",
            path.display()
        ))
    })
}

/// What install adds to settings.json besides the hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extras {
    /// The `permissions.allow` rules for the state folder
    /// ([`crate::paths::state_rules`]); `None`: none added (`--no-permissions`,
    /// or a folder no rule can name).
    pub rules: Option<[String; 2]>,
    /// Register `gk statusline` as the status line where none is set.
    pub statusline: bool,
}

impl Extras {
    /// The rules for this machine's state folder, and what to say when
    /// there is none that can be written.
    pub fn for_machine(m: &Machine, permissions: bool, statusline: bool) -> (Extras, Vec<String>) {
        let mut notes = Vec::new();
        let rules = if permissions {
            let dir = crate::paths::state_dir_for(m.os, Some(&m.ctx.home));
            let rules = dir
                .as_deref()
                .and_then(|d| crate::paths::state_rules(m.os, d, Some(&m.ctx.home)));
            if rules.is_none() {
                notes.push(format!(
                    "note: no permission rule can name the state folder {} (it holds a character rules treat specially); Claude Code will ask before each task record write",
                    dir.map(|d| d.display().to_string()).unwrap_or_else(|| "(none found)".into())
                ));
            }
            rules
        } else {
            None
        };
        (Extras { rules, statusline }, notes)
    }
}

/// The status line command: the prompt hook's program, run as `gk statusline`.
pub fn statusline_command(wanted: &WantedHooks) -> String {
    let prompt = &wanted.prompt.command;
    match prompt.strip_suffix(" hook prompt") {
        Some(program) => format!("{program} statusline"),
        None => format!("{prompt} statusline"),
    }
}

/// The shell a status line runs in on Windows. The client has no exec form
/// for `statusLine` (its `args` are ignored, measured) and runs the command
/// through Git Bash when it finds one, else PowerShell (its 2.1.332 code:
/// `bash.exe -c "<command as written>"`, measured with a stand-in bash). So
/// a Windows install in the exec form gets the status line in the form of
/// the shell the client will use, found as the client finds Git Bash
/// ([`crate::platform::find_git_bash`]); the bash and PowerShell forms stay
/// as they were chosen.
pub fn statusline_shell(shell: ShellForm, git_bash: Option<&Path>) -> ShellForm {
    match (shell, git_bash) {
        (ShellForm::Exec, Some(_)) => ShellForm::Bash,
        (ShellForm::Exec, None) => ShellForm::PowerShell,
        (other, _) => other,
    }
}

/// The status line command install writes for hooks registered in `shell`
/// (read back like the hooks' commands before anything is written).
pub fn statusline_for(
    ctx: &CommandContext,
    shell: ShellForm,
    git_bash: Option<&Path>,
    bash_home: Option<&Path>,
    binary: &Path,
) -> Result<String> {
    let line_shell = statusline_shell(shell, git_bash);
    Ok(statusline_command(&verified_wanted_hooks(
        ctx, line_shell, bash_home, binary,
    )?))
}

/// Why gk's status line `command` cannot run in `shell` on Windows, where
/// the client runs it through Git Bash when it finds one and PowerShell
/// otherwise; `None` when it can (or off Windows, where it is always sh).
pub fn statusline_breaks(os: Os, command: &str, git_bash: Option<&Path>) -> Option<&'static str> {
    if !os.is_windows() {
        return None;
    }
    let c = command.trim_start();
    if git_bash.is_some() {
        if c.starts_with('&') {
            Some("PowerShell's call operator `&` is a syntax error in bash")
        } else if c.contains('\\') {
            Some("bash reads each backslash as an escape and drops it")
        } else {
            None
        }
    } else if c.starts_with(['"', '\'', '$']) {
        Some("PowerShell reads a line that starts with a quoted path or a variable as a value and runs nothing")
    } else {
        None
    }
}

/// Build install's plan: the binary, task_state.json, CLAUDE.md,
/// settings.json (hooks, and the permission rules for the task records);
/// and notes on anything that will keep the hooks from running even so.
pub fn plan_install(m: &Machine, shell: ShellForm, program: &[u8]) -> Result<(Plan, Vec<String>)> {
    let (extras, mut notes) = Extras::for_machine(m, true, false);
    let (plan, more) = plan_install_with(m, shell, program, &extras)?;
    notes.extend(more);
    Ok((plan, notes))
}

/// [`plan_install`] with the settings extras chosen by the caller.
pub fn plan_install_with(
    m: &Machine,
    shell: ShellForm,
    program: &[u8],
    extras: &Extras,
) -> Result<(Plan, Vec<String>)> {
    let mut plan = Plan::new("gk install");
    let mut notes = Vec::new();
    let bin = m.paths.binary(m.os);
    plan.push(FileChange {
        path: bin.clone(),
        old: read_current(&bin, crate::bounded::PROGRAM_LIMIT)?,
        new: Some(program.to_vec()),
        binary: true,
        create_mode: 0o755,
        strategy: binary::replace_strategy(m.os),
        reason: "the program gk's hooks run".into(),
    });

    let state = m.paths.state_file();
    let old_state = read_current(&state, crate::hooks::MAX_STATE_BYTES)?;
    plan.push(FileChange {
        path: state.clone(),
        new: Some(
            old_state
                .clone()
                .unwrap_or_else(|| CLEAN_STATE.as_bytes().to_vec()),
        ),
        old: old_state,
        binary: false,
        create_mode: 0o644,
        strategy: plan::ReplaceStrategy::InPlace,
        reason: "task state, created only when missing".into(),
    });

    let md = m.paths.claude_md();
    let old_md = read_text(&md)?;
    let section = claude_md::section_for(&state.display().to_string());
    let new_md = match &old_md {
        Some(text) => claude_md::insert_section(&md, text, &section)?,
        None => claude_md::new_file(&section),
    };
    plan.push(FileChange::text(
        &md,
        old_md,
        Some(new_md),
        "Task State Convention block",
    ));

    let settings = m.paths.settings();
    let old_settings = read_text(&settings)?;
    let wanted = verified_wanted_hooks(&m.ctx, shell, m.bash_home.as_deref(), &bin)?;
    let (mut new_settings, filled) = settings_edit::add_hooks_noting(
        &settings,
        old_settings.as_deref().unwrap_or(""),
        &wanted,
        &m.ctx,
    )?;
    let mut filled = filled;
    if let Some(rules) = &extras.rules {
        let (text, more) = on_disk_places(old_settings.as_deref(), &new_settings, |t| {
            settings_keys::add_rules_noting(&settings, t, rules)
        })?;
        new_settings = text;
        filled.extend(more);
    }
    if extras.statusline {
        let line_shell = statusline_shell(shell, m.git_bash.as_deref());
        let line = statusline_for(
            &m.ctx,
            shell,
            m.git_bash.as_deref(),
            m.bash_home.as_deref(),
            &bin,
        )?;
        match on_disk_places(old_settings.as_deref(), &new_settings, |t| {
            settings_keys::add_statusline(&settings, t, &line, &m.ctx)
        })? {
            settings_keys::StatusLine::Registered(text) => {
                new_settings = text;
                // Said only of a status line gk writes, never of another's.
                if line_shell != shell {
                    notes.push(match m.git_bash.as_deref() {
                        Some(bash) => format!(
                            "note: Claude Code runs a status line through a shell; the status line is spelled for Git Bash ({}), which it will use",
                            bash.display()
                        ),
                        None => "note: Claude Code runs a status line through a shell; the status line is spelled for PowerShell, which it uses where no Git Bash is found".to_string(),
                    } + " (after installing or removing Git for Windows, `gk doctor --fix` respells it)");
                }
            }
            settings_keys::StatusLine::Taken(_) => notes.push(format!(
                "note: {} already sets a statusLine; it is left as it is (to show gk's task state in it, \
                 have that command pass the JSON it reads on stdin to `{} statusline` and print the line it gives)",
                settings.display(),
                bin.display()
            )),
        }
    }
    if let Ok(parsed) = crate::settings::parse(&settings, &new_settings) {
        if parsed.value.get("disableAllHooks") == Some(&serde_json::Value::Bool(true)) {
            notes.push(format!(
                "note: {} sets \"disableAllHooks\": true, so Claude Code runs no hook until it is removed",
                settings.display()
            ));
        }
    }
    // The folder Claude writes its records in: made by gk, private to the
    // user (the client creates the folder 0755 and each record 0644,
    // measured; in a 0700 folder no one else can reach them).
    // With `--no-permissions` too (sessions in bypass mode still write
    // records), but then only a folder that passes the state folder rules:
    // install does not refuse one there, it leaves it alone.
    if let Some(dir) = crate::paths::state_dir_for(m.os, Some(&m.ctx.home)) {
        let ours = extras.rules.is_some()
            || (crate::records::check_path(m.os, &dir, Some(&m.ctx.home), m.paths.dir()).is_ok()
                && crate::records::scan(&dir).is_ok());
        if ours {
            plan.folders.extend(plan::FolderChange::private(&dir));
        }
    }
    let before = rules_there_before(m, &settings, old_settings.as_deref())?;
    let blank = old_settings.clone().filter(|t| t.trim().is_empty());
    plan.push(FileChange::text(
        &settings,
        old_settings,
        Some(new_settings),
        if extras.rules.is_some() {
            "register the prompt, Stop and session hooks; let Claude write its task records"
        } else {
            "register the prompt, Stop and session hooks"
        },
    ));
    for leftover in binary::leftover_copies(&bin)? {
        plan.push(leftover);
    }
    // A settings file that was there but blank is given back as it was.
    if let Some(change) = record::note_with_rules(
        &m.paths.install_record(),
        &filled,
        &before,
        blank.as_deref(),
    )? {
        plan.push(change);
    }
    Ok((plan, notes))
}

/// gk's permission rules for the state folder that settings.json holds
/// before gk was ever installed there (none once gk's hooks are in it:
/// then the rules are gk's own), for uninstall to leave in place.
fn rules_there_before(m: &Machine, settings: &Path, old: Option<&str>) -> Result<Vec<String>> {
    let Some(old) = old else {
        return Ok(Vec::new());
    };
    let Some(rules) = Extras::for_machine(m, true, false).0.rules else {
        return Ok(Vec::new());
    };
    if old.trim().is_empty() || settings_edit::remove_hooks(settings, old, &m.ctx)? != old {
        return Ok(Vec::new());
    }
    let Ok(parsed) = crate::settings::parse(settings, old) else {
        return Ok(Vec::new());
    };
    let allow = parsed
        .value
        .pointer("/permissions/allow")
        .and_then(serde_json::Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(rules
        .into_iter()
        .filter(|r| allow.iter().any(|a| a.as_str() == Some(r)))
        .collect())
}

/// Build uninstall's plan: the hook entries, the CLAUDE.md block, the
/// binary (only when it carries gk's version marker), and with `purge`
/// task_state.json and gk.json.
pub fn plan_uninstall(m: &Machine, purge: bool) -> Result<(Plan, Vec<String>)> {
    let (extras, _) = Extras::for_machine(m, true, true);
    plan_uninstall_with(m, purge, &extras)
}

/// [`plan_uninstall`], taking out `extras.rules` (when set) and a
/// `statusLine` that runs gk.
pub fn plan_uninstall_with(
    m: &Machine,
    purge: bool,
    extras: &Extras,
) -> Result<(Plan, Vec<String>)> {
    let mut plan = Plan::new("gk uninstall").when_idle(format!(
        "gk is not installed in {}; nothing to remove",
        m.paths.dir().display()
    ));
    // --purge leaves nothing of gk's behind, backups included.
    plan.keep_backups = !purge;
    let mut notes = Vec::new();
    let settings = m.paths.settings();
    let record = m.paths.install_record();
    if let Some(old) = read_text(&settings)? {
        let noted = record::read_all(&record)?;
        let keep = noted.containers;
        let mut new = settings_edit::remove_hooks_keeping(&settings, &old, &m.ctx, &keep)?;
        if let Some(rules) = &extras.rules {
            // The user's own copies of gk's rules stay.
            let rules: Vec<String> = rules
                .iter()
                .filter(|r| !noted.rules.contains(r))
                .cloned()
                .collect();
            new = on_disk_places(Some(&old), &new, |t| {
                settings_keys::remove_rules_keeping(&settings, t, &rules, &keep)
            })?;
        }
        new = on_disk_places(Some(&old), &new, |t| {
            settings_keys::remove_statusline(&settings, t, &m.ctx, &keep)
        })?;
        // Nothing left but `{}` in a file that was blank before install.
        if let Some(blank) = &noted.blank {
            if serde_json::from_str::<serde_json::Value>(&new).ok() == Some(serde_json::json!({})) {
                new = blank.clone();
            }
        }
        plan.push(FileChange::text(
            &settings,
            Some(old),
            Some(new),
            "remove gk's hook entries, permission rules and status line",
        ));
    }
    if let Some(change) = record::remove(&record)? {
        plan.push(change);
    }
    let md = m.paths.claude_md();
    if let Some(old) = read_text(&md)? {
        let new = claude_md::remove_section(&md, &old)?;
        // Only a CLAUDE.md that install created, with nothing else left in
        // it, goes; one that was there before (even empty, or a link into a
        // dotfiles folder) is only edited.
        let created = claude_md::created_by_install(&old) && !is_link(&md);
        let new = (!(created && new.is_empty())).then_some(new);
        plan.push(FileChange::text(&md, Some(old), new, "remove the gk block"));
    }
    let bin = m.paths.binary(m.os);
    if let Some(bytes) = read_current(&bin, crate::bounded::PROGRAM_LIMIT)? {
        if binary::embedded_version(&bytes).is_some() {
            plan.push(FileChange {
                path: bin.clone(),
                old: Some(bytes),
                new: None,
                binary: true,
                create_mode: 0o755,
                strategy: binary::replace_strategy(m.os),
                reason: "the gk program".into(),
            });
        } else {
            notes.push(format!(
                "left {} in place: it does not look like a gk build",
                bin.display()
            ));
        }
    }
    for leftover in binary::leftover_copies(&bin)? {
        plan.push(leftover);
    }
    for (path, what, limit) in [
        (
            m.paths.state_file(),
            "task state",
            crate::hooks::MAX_STATE_BYTES,
        ),
        (
            m.paths.config_file(),
            "gk's config",
            crate::hooks::MAX_CONFIG_BYTES,
        ),
    ] {
        // Without --purge the file is only named, so it is not read.
        if !purge {
            if std::fs::symlink_metadata(&path).is_ok() {
                notes.push(format!(
                    "kept      {} ({what}; --purge removes it)",
                    path.display()
                ));
            }
            continue;
        }
        if let Some(bytes) = read_current(&path, limit)? {
            plan.push(FileChange {
                path,
                old: Some(bytes),
                new: None,
                binary: false,
                create_mode: 0o644,
                strategy: plan::ReplaceStrategy::InPlace,
                reason: format!("{what} (--purge)"),
            });
        }
    }
    Ok((plan, notes))
}

/// `--purge`: add the removal of every backup gk keeps in `backups`, and
/// of those an older gk left beside the files in `<claude dir>` and its
/// `hooks/` folder (`settings.json.gk-backup-<stamp>`).
pub fn plan_purge_backups(
    plan: &mut Plan,
    backups: &backup::Backups,
    paths: &ClaudePaths,
) -> Result<()> {
    let mut found = backups.list();
    found.extend(backup::left_beside(paths.dir()));
    found.extend(backup::left_beside(&paths.hooks_dir()));
    for path in found {
        if let Some(bytes) = read_current(&path, crate::bounded::TEXT_LIMIT)? {
            plan.push(FileChange {
                path,
                old: Some(bytes),
                new: None,
                binary: false,
                create_mode: 0o600,
                strategy: plan::ReplaceStrategy::InPlace,
                reason: "a backup gk made (--purge)".into(),
            });
        }
    }
    Ok(())
}

pub fn run_install(args: &InstallArgs, color: ColorChoice) -> Result<u8> {
    let m = Machine::from_env()?;
    let shell = shell_form(args.shell, m.os);
    let exe = std::env::current_exe()
        .map_err(|e| Error::new(format!("could not find the running gk program: {e}")))?;
    let program = crate::bounded::read(&exe, crate::bounded::PROGRAM_LIMIT)
        .map_err(|e| Error::io("read", &exe, &e.into_io()))?
        .bytes;
    if !args.no_permissions {
        check_state_folder(&m)?;
    }
    let (extras, mut notes) = Extras::for_machine(&m, !args.no_permissions, args.statusline);
    let (plan, more) = plan_install_with(&m, shell, &program, &extras)?;
    notes.extend(more);
    let outcome = execute(&plan, &ChangeOptions::from(&args.change), color)?;
    for note in notes {
        // A note may quote a settings value (another tool's status line).
        println!("{}", crate::text::escaped(&note));
    }
    report_running_copies(&outcome);
    let ran = matches!(outcome, Outcome::Written { .. } | Outcome::NothingToDo);
    if !ran || args.no_smoke {
        return Ok(outcome.exit_code());
    }
    let all_passed = smoke_test(&m, shell);
    if !all_passed {
        return Err(Error::new(
            "the files are in place, but a hook failed its smoke test (see above; `gk doctor` digs deeper)",
        ));
    }
    Ok(outcome.exit_code())
}

/// Refuse to grant Claude a state folder that is not gk's own (see
/// [`crate::records::check_path`] and [`crate::records::scan`]): the rules
/// would let Claude edit every `*.json` there. Nothing is written.
fn check_state_folder(m: &Machine) -> Result<()> {
    let Some(dir) = crate::paths::state_dir_for(m.os, Some(&m.ctx.home)) else {
        return Ok(());
    };
    crate::records::check_path(m.os, &dir, Some(&m.ctx.home), m.paths.dir())
        .and_then(|()| crate::records::scan(&dir).map(|_| ()))
        .map_err(|e| {
            Error::new(format!(
                "{e}; or install with --no-permissions; nothing written"
            ))
        })
}

/// Run each registered hook once as Claude Code would; print one line per
/// hook (and what the session check reports about the setup, when it
/// reports something). Returns whether every hook that is switched on passed.
fn smoke_test(m: &Machine, shell: ShellForm) -> bool {
    let wanted = wanted_hooks(&m.ctx, shell, m.bash_home.as_deref());
    // As the hooks read it: a gk.json over their limit is no config at all.
    let config = read_text_within(&m.paths.config_file(), crate::hooks::MAX_CONFIG_BYTES)
        .ok()
        .flatten();
    let cwd = std::env::current_dir().unwrap_or_else(|_| m.ctx.home.clone());
    println!();
    let mut ok = true;
    for kind in HookKind::ALL {
        let label = format!("smoke test: gk hook {:<6}", kind.arg());
        if !switch::is_enabled(config.as_deref(), kind) {
            println!("{label} skipped (switched off in gk.json)");
            continue;
        }
        let inv = smoke::invocation(m.os, m.git_bash.as_deref(), wanted.get(kind));
        let payload = smoke::sample_payload(kind, &cwd);
        match smoke::run(&inv, &payload, Duration::from_secs(10), &[]) {
            Ok(run) => {
                let ms = run.duration.as_secs_f64() * 1000.0;
                match smoke::judge(kind, &run) {
                    Ok(()) => {
                        println!("{label} passed in {ms:.0} ms");
                        for line in session_lines(kind, &run.stdout) {
                            println!("  it reports: {line}");
                        }
                    }
                    Err(why) => {
                        ok = false;
                        println!("{label} FAILED after {ms:.0} ms: {why}");
                    }
                }
            }
            Err(e) => {
                ok = false;
                println!("{label} FAILED: {e}");
            }
        }
    }
    ok
}

/// What a passing session check printed, line by line (nothing when the
/// setup is healthy, or for the other hooks).
fn session_lines(kind: HookKind, stdout: &str) -> Vec<String> {
    if kind != HookKind::Session {
        return Vec::new();
    }
    serde_json::from_str::<serde_json::Value>(stdout.trim())
        .ok()
        .as_ref()
        .and_then(smoke::session_report)
        .map(|lines| lines.into_iter().map(str::to_string).collect())
        .unwrap_or_default()
}

pub fn run_uninstall(args: &UninstallArgs, color: ColorChoice) -> Result<u8> {
    let m = Machine::from_env()?;
    let (mut plan, notes) = plan_uninstall(&m, args.purge)?;
    let backups = backup::Backups::from_env();
    if args.purge {
        if let Ok(b) = &backups {
            plan_purge_backups(&mut plan, b, &m.paths)?;
        }
    }
    // The per-session records: Claude's, kept by a plain uninstall.
    let state_dir = if args.purge {
        let places = crate::records::Places::from_env()?;
        let records = crate::records::list(&places)?;
        for change in crate::records::purge_changes(&places.state_dir, &records)? {
            plan.push(change);
        }
        Some(places.state_dir)
    } else {
        None
    };
    let outcome = execute(&plan, &ChangeOptions::from(&args.change), color)?;
    if let (true, Outcome::Written { .. }) = (args.purge, &outcome) {
        // Emptied by the plan: the folders go too, each only when empty
        // (`remove_dir` removes nothing else, and no link).
        let mut emptied = vec![m.paths.hooks_dir()];
        emptied.extend(state_dir);
        if let Ok(b) = &backups {
            emptied.push(b.dir().to_path_buf());
            emptied.extend(
                b.dir()
                    .parent()
                    .filter(|p| p.ends_with("gk"))
                    .map(Path::to_path_buf),
            );
        }
        for dir in emptied {
            if std::fs::remove_dir(&dir).is_ok() {
                println!("removed   {} (an empty folder)", dir.display());
            }
        }
    }
    for note in notes {
        // A note may quote a settings value (another tool's status line).
        println!("{}", crate::text::escaped(&note));
    }
    report_running_copies(&outcome);
    if matches!(outcome, Outcome::Written { .. } | Outcome::NothingToDo) {
        if let Ok(exe) = std::env::current_exe() {
            if exe != m.paths.binary(m.os) {
                println!("{}", program_note(&exe, cargo_bin().as_deref()));
            }
        }
    }
    Ok(outcome.exit_code())
}

/// Where `cargo install` puts programs: `$CARGO_HOME/bin`, or
/// `<home>/.cargo/bin`.
fn cargo_bin() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| crate::paths::home_dir().map(|h| h.join(".cargo")))
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
fn report_running_copies(outcome: &Outcome) {
    if let Outcome::Written { kept } = outcome {
        for path in kept
            .iter()
            .filter(|p| p.to_string_lossy().contains(".gk-old-"))
        {
            println!(
                "{} is still running (a Claude Code session is using it); \
                 the next gk install or uninstall removes it",
                path.display()
            );
        }
    }
}

pub fn run_switch(args: &SwitchArgs, enable: bool, color: ColorChoice) -> Result<u8> {
    let m = Machine::from_env()?;
    let kind = args.which.kind();
    let path = m.paths.config_file();
    // The hooks' own limit: never edit a gk.json the hooks would not read,
    // nor make one they would not read.
    let limit = crate::hooks::MAX_CONFIG_BYTES;
    let too_large = |what: &str| {
        Error::new(format!(
            "{}: {what} larger than {}, the most of gk.json the hooks read (they would ignore it and keep the hook on); nothing written",
            path.display(),
            crate::bounded::size_text(limit)
        ))
    };
    let old = match crate::bounded::read(&path, limit) {
        Ok(c) => Some(text_of(&path, c.bytes)?),
        Err(crate::bounded::ReadError::NotFound) => None,
        Err(crate::bounded::ReadError::TooLarge { .. }) => return Err(too_large("it is")),
        Err(e) => return Err(apply::refusal(&path, &e)),
    };
    let new = switch::set_enabled(&path, old.as_deref(), kind, enable)?;
    if new.as_ref().is_some_and(|t| t.len() as u64 > limit) {
        return Err(too_large("the edit would make it"));
    }
    let verb = if enable { "enable" } else { "disable" };
    let mut plan = Plan::new(&format!("gk {verb} {}", kind.arg())).when_idle(format!(
        "the {} hook is already switched {}; nothing to do",
        kind.arg(),
        if enable { "on" } else { "off" }
    ));
    plan.push(FileChange::text(
        &path,
        old,
        new,
        &format!("{verb} the {} hook", kind.arg()),
    ));
    let outcome = execute(&plan, &ChangeOptions::from(&args.change), color)?;
    Ok(outcome.exit_code())
}

/// One step of a chain of edits of one settings file, run on the text the
/// steps before it made. Its refusal names a place in that text, which is
/// not the file on disk (gk's own insertion comes before it): so a refusal
/// is asked of the file as it is on disk too, and that answer, with its
/// places, is the one reported. A step that refuses only gk's own text is
/// gk's fault, reported as it came.
pub(crate) fn on_disk_places<T>(
    on_disk: Option<&str>,
    current: &str,
    step: impl Fn(&str) -> Result<T>,
) -> Result<T> {
    match step(current) {
        Ok(v) => Ok(v),
        Err(e) => match on_disk.filter(|t| !t.trim().is_empty()).map(&step) {
            Some(Err(original)) => Err(original),
            _ => Err(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_form_is_exec_on_windows_bash_elsewhere_unless_asked() {
        assert_eq!(shell_form(ShellChoice::Auto, Os::Linux), ShellForm::Bash);
        assert_eq!(shell_form(ShellChoice::Auto, Os::MacOs), ShellForm::Bash);
        assert_eq!(shell_form(ShellChoice::Auto, Os::Windows), ShellForm::Exec);
        assert_eq!(
            shell_form(ShellChoice::Powershell, Os::Windows),
            ShellForm::PowerShell
        );
        assert_eq!(shell_form(ShellChoice::Bash, Os::Windows), ShellForm::Bash);
        assert_eq!(shell_form(ShellChoice::Exec, Os::Linux), ShellForm::Exec);
    }

    fn windows_machine(dir: &Path, git_bash: Option<PathBuf>) -> Machine {
        let paths = ClaudePaths::at(dir.join(".claude"));
        Machine {
            os: Os::Windows,
            ctx: CommandContext {
                os: Os::Windows,
                home: dir.to_path_buf(),
                claude_dir: paths.dir().to_path_buf(),
                claude_config_dir: None,
            },
            paths,
            git_bash,
            bash_home: None,
        }
    }

    #[test]
    fn git_bash_home_elsewhere_gets_the_absolute_form() {
        let ctx = CommandContext {
            os: Os::Windows,
            home: PathBuf::from(r"C:\Users\Ann"),
            claude_dir: PathBuf::from(r"C:\Users\Ann\.claude"),
            claude_config_dir: None,
        };
        let prompt = |shell, bash_home: Option<&str>| {
            wanted_hooks(&ctx, shell, bash_home.map(Path::new))
                .prompt
                .command
        };
        // HOME on a network drive: $HOME in Git Bash is not the profile folder.
        assert_eq!(
            prompt(ShellForm::Bash, Some(r"H:\")),
            r#""C:/Users/Ann/.claude/hooks/gk.exe" hook prompt"#
        );
        // HOME set to the profile folder, in either spelling: $HOME is fine.
        for same in [r"C:\Users\Ann", "/c/Users/Ann", "C:/users/ann/"] {
            assert_eq!(
                prompt(ShellForm::Bash, Some(same)),
                r#""$HOME/.claude/hooks/gk.exe" hook prompt"#,
                "{same}"
            );
        }
        assert_eq!(
            prompt(ShellForm::Bash, None),
            r#""$HOME/.claude/hooks/gk.exe" hook prompt"#
        );
        // PowerShell spells the path from $env:USERPROFILE, whatever HOME says.
        assert_eq!(
            prompt(ShellForm::PowerShell, Some(r"H:\")),
            r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" hook prompt"#
        );
        // The absolute form is still recognised as gk's by every command.
        let abs = prompt(ShellForm::Bash, Some(r"H:\"));
        assert_eq!(
            crate::hookcmd::classify(&abs, &ctx),
            crate::hookcmd::Owner::Gk(HookKind::Prompt)
        );
    }

    #[test]
    fn a_windows_status_line_is_spelled_for_the_shell_the_client_will_use() {
        let dir = tempfile::tempdir().unwrap();
        let extras = Extras {
            rules: None,
            statusline: true,
        };
        let line_of = |m: &Machine| {
            let (plan, notes) =
                plan_install_with(m, ShellForm::Exec, b"new build", &extras).unwrap();
            let change = plan
                .changes
                .iter()
                .find(|c| c.path == m.paths.settings())
                .unwrap();
            let text = String::from_utf8(change.new.clone().unwrap()).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            (
                v["statusLine"]["command"].as_str().unwrap().to_string(),
                text,
                notes,
            )
        };
        let ps = r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" statusline"#;
        let bash = r#""$HOME/.claude/hooks/gk.exe" statusline"#;
        let none = windows_machine(dir.path(), None);
        let (line, text, notes) = line_of(&none);
        assert_eq!(line, ps);
        assert!(
            notes.iter().any(|n| n.contains("spelled for PowerShell")),
            "{notes:?}"
        );
        // The hooks stay in the exec form: only the status line needs a shell.
        assert!(text.contains("\"args\": [\n"), "{text}");
        let found = windows_machine(dir.path(), Some(PathBuf::from(r"C:\Git\bin\bash.exe")));
        let (line, _, notes) = line_of(&found);
        assert_eq!(line, bash);
        assert!(
            notes
                .iter()
                .any(|n| n.contains(r"Git Bash (C:\Git\bin\bash.exe)")),
            "{notes:?}"
        );

        // Git for Windows installed later: installing again respells gk's
        // own status line and leaves every other byte as it was.
        std::fs::create_dir_all(none.paths.dir()).unwrap();
        let before = format!(
            "{{\n  \"statusLine\": {{\"type\": \"command\", \"command\": {}, \"padding\": 1}},\n  \"env\": {{\"K\": \"v\"}}\n}}\n",
            serde_json::to_string(ps).unwrap()
        );
        std::fs::write(none.paths.settings(), &before).unwrap();
        let (line, text, _) = line_of(&found);
        assert_eq!(line, bash);
        let respelled = before.replace(
            &serde_json::to_string(ps).unwrap(),
            &serde_json::to_string(bash).unwrap(),
        );
        // The hooks go in front; what was there follows, respelled only.
        assert!(text.ends_with(&respelled["{\n".len()..]), "{text}");
        // A status line that is not gk's is never touched.
        let other =
            "{\"statusLine\": {\"type\": \"command\", \"command\": \"C:\\\\tools\\\\line.exe\"}}\n";
        std::fs::write(none.paths.settings(), other).unwrap();
        let (line, _, notes) = line_of(&found);
        assert_eq!(line, r"C:\tools\line.exe");
        assert!(
            notes
                .iter()
                .any(|n| n.contains("already sets a statusLine")),
            "{notes:?}"
        );
        // And nothing is said of a spelling gk did not write.
        assert!(
            !notes.iter().any(|n| n.contains("spelled for")),
            "{notes:?}"
        );
        // Both forms are gk's, so uninstall takes either out.
        for line in [ps, bash] {
            assert!(settings_keys::is_gk_statusline(line, &none.ctx), "{line}");
        }
        // Linux and macOS: the hooks' own form, no note.
        assert_eq!(statusline_shell(ShellForm::Bash, None), ShellForm::Bash);
        assert_eq!(
            statusline_shell(ShellForm::PowerShell, Some(Path::new("x"))),
            ShellForm::PowerShell
        );
    }

    #[test]
    fn windows_plans_use_gk_exe_move_the_old_copy_aside_and_need_no_shell() {
        let dir = tempfile::tempdir().unwrap();
        // With or without Git Bash: the exec form, the absolute gk.exe path.
        for git_bash in [None, Some(PathBuf::from(r"C:\Git\bin\bash.exe"))] {
            let m = windows_machine(dir.path(), git_bash);
            let shell = shell_form(ShellChoice::Auto, m.os);
            let (plan, _) = plan_install(&m, shell, b"new build").unwrap();
            let bin = &plan.changes[0];
            assert!(bin.path.ends_with("hooks/gk.exe"));
            assert_eq!(bin.strategy, plan::ReplaceStrategy::MoveAsideFirst);
            let settings = String::from_utf8(plan.changes[3].new.clone().unwrap()).unwrap();
            let exe = m.paths.dir().to_string_lossy().replace('/', "\\") + "\\hooks\\gk.exe";
            let exe_json = serde_json::to_string(&exe).unwrap();
            assert!(
                settings.contains(&format!("\"command\": {exe_json},")),
                "{settings}"
            );
            assert!(settings.contains("\"args\": [\n"), "{settings}");
            let v: serde_json::Value = serde_json::from_str(&settings).unwrap();
            let handler = &v["hooks"]["UserPromptSubmit"][0]["hooks"][0];
            assert_eq!(handler["args"], serde_json::json!(["hook", "prompt"]));
            assert_eq!(handler.get("shell"), None);
            let handler = &v["hooks"]["Stop"][0]["hooks"][0];
            assert_eq!(handler["args"], serde_json::json!(["hook", "stop"]));
        }
        // The other forms stay available.
        let m = windows_machine(dir.path(), None);
        let (plan, _) = plan_install(&m, ShellForm::PowerShell, b"new build").unwrap();
        let settings = String::from_utf8(plan.changes[3].new.clone().unwrap()).unwrap();
        assert!(settings.contains("\"shell\": \"powershell\""), "{settings}");
        assert!(
            settings
                .contains("& \\\"$env:USERPROFILE\\\\.claude\\\\hooks\\\\gk.exe\\\" hook prompt"),
            "{settings}"
        );
        let (plan, _) = plan_install(&m, ShellForm::Bash, b"new build").unwrap();
        let settings = String::from_utf8(plan.changes[3].new.clone().unwrap()).unwrap();
        assert!(
            settings.contains("\"\\\"$HOME/.claude/hooks/gk.exe\\\" hook stop\""),
            "{settings}"
        );
        assert!(!settings.contains("powershell"));
    }

    #[test]
    fn windows_uninstall_moves_a_gk_build_aside_and_leaves_anything_else() {
        let dir = tempfile::tempdir().unwrap();
        let m = windows_machine(dir.path(), None);
        std::fs::create_dir_all(m.paths.hooks_dir()).unwrap();
        std::fs::write(m.paths.binary(m.os), b"not gk").unwrap();
        let (plan, notes) = plan_uninstall(&m, false).unwrap();
        assert!(plan.changes.iter().all(|c| !c.binary));
        assert!(notes[0].contains("does not look like a gk build"));
        let own = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        std::fs::write(m.paths.binary(m.os), own).unwrap();
        let (plan, _) = plan_uninstall(&m, false).unwrap();
        let bin = plan.changes.iter().find(|c| c.binary).unwrap();
        assert_eq!(bin.new, None);
        assert_eq!(bin.strategy, plan::ReplaceStrategy::MoveAsideFirst);
    }

    #[test]
    fn the_status_line_runs_the_hooks_program() {
        let dir = tempfile::tempdir().unwrap();
        let m = windows_machine(dir.path(), None);
        let ps = wanted_hooks(&m.ctx, ShellForm::PowerShell, None);
        assert_eq!(
            statusline_command(&ps),
            r#"& "$env:USERPROFILE\.claude\hooks\gk.exe" statusline"#
        );
        let bash = wanted_hooks(&m.ctx, ShellForm::Bash, None);
        assert_eq!(
            statusline_command(&bash),
            r#""$HOME/.claude/hooks/gk.exe" statusline"#
        );
    }

    #[test]
    fn clean_state_is_the_seed_clean_form() {
        let v: serde_json::Value = serde_json::from_str(CLEAN_STATE).unwrap();
        assert_eq!(v["status"], "clean");
        for k in ["task", "detail", "project", "cwd"] {
            assert_eq!(v[k], "");
        }
        assert_eq!(v["updated"], "2026-01-01T00:00:00");
    }
}
