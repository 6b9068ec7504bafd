//! The plans of `gk install`, `gk uninstall` and `--purge`: every file
//! read, every new text computed from what gk wants ([`super`]), nothing
//! written (a plan goes through [`crate::change::apply`]).

use super::managed::DropIn;
use super::parts::{Part, Parts, Site};
use super::planner::{self, By, Channel, Desired, Direction, Program, Request, TakeOut};
use super::*;
use crate::change::backup;
use crate::change::fs::{read_current, read_text};
use crate::change::plan::{self, FileChange, Plan};
use crate::edit::settings_keys;
use crate::paths::ClaudePaths;

#[cfg(test)]
pub fn plan_install(m: &Machine, shell: ShellForm, program: &[u8]) -> Result<(Plan, Vec<String>)> {
    let (extras, mut notes) = Extras::for_machine(m, true, false);
    let (plan, more) = plan_install_with(m, shell, program, &extras)?;
    notes.extend(more);
    Ok((plan, notes))
}

/// The parts of a settings file the client loads that gk edits around and
/// leaves as they are, one note each (at most [`MAX_KEPT_NOTES`], then a
/// count): a part the client drops, a key repeated where gk does not edit
/// (the client reads the last copy). A file the client skips, or one gk
/// cannot edit, is refused by the editor itself, with its reason.
pub fn left_as_they_are(path: &std::path::Path, text: &str) -> Vec<String> {
    let Ok(parsed) = crate::settings::parse(path, text) else {
        return Vec::new();
    };
    let (_, issues) = crate::settings::hook_entries(&parsed);
    if issues.iter().any(|i| i.blocks_edit()) {
        return Vec::new();
    }
    let kept: Vec<String> = issues
        .iter()
        .filter(|i| i.drops_part() || i.is_duplicate_key())
        .map(|i| {
            let place = format!("{}:{}:{}", path.display(), i.line, i.column);
            let reason = crate::text::one_line(&i.reason, 200);
            if i.drops_part() {
                format!(
                    "note: {place}: {}: {reason}; Claude Code ignores that part, and gk leaves it as it is",
                    crate::text::one_line(&i.at, 120)
                )
            } else {
                format!("note: {place}: {reason}; gk leaves it as it is")
            }
        })
        .collect();
    let more = kept.len().saturating_sub(MAX_KEPT_NOTES);
    let mut out: Vec<String> = kept.into_iter().take(MAX_KEPT_NOTES).collect();
    if more > 0 {
        out.push(format!(
            "note: and {more} more such part(s) in {}: `gk doctor` lists them",
            path.display()
        ));
    }
    out
}

/// The most notes [`left_as_they_are`] gives one file.
pub const MAX_KEPT_NOTES: usize = 5;

/// [`plan_install`] with the settings extras chosen by the caller: every
/// part, planned in by [`planner::plan`].
pub fn plan_install_with(
    m: &Machine,
    shell: ShellForm,
    program: &[u8],
    extras: &Extras,
) -> Result<(Plan, Vec<String>)> {
    let mut plan = Plan::new("gk install");
    let mut notes = Vec::new();
    let settings = m.paths.settings();
    let old_settings = read_text(&settings)?;
    // The switch guard's plugin beside an install: its hooks run from the
    // plugin, so settings hold none of them (both would run).
    let switch_kinds = [HookKind::PreSwitch, HookKind::PostSwitch];
    let switch_plugin = registered_by(m, old_settings.as_deref(), &switch_kinds);
    let site = Site {
        client: extras.client,
        by_plugin: match switch_plugin {
            Some(Elsewhere::Plugin(_)) => &switch_kinds,
            _ => &[],
        },
        ..Site::of(m)
    };
    // gk's plugin (or any plugin), or managed settings, registering all of
    // gk's hooks: the client runs a user settings copy beside either, so
    // install registers none and takes out the ones an earlier install
    // wrote.
    let elsewhere = registered_elsewhere(m, old_settings.as_deref());
    // A plugin runs the gk on PATH, managed settings the program they
    // name: a copy in hooks/ would be a second program no hook runs (and
    // one that drifts from the first), unless the status line, which
    // neither can carry, runs it, or a managed hook runs the copy itself.
    let copy = extras.statusline
        || old_settings
            .as_deref()
            .is_some_and(|t| statusline_runs_the_copy(m, t))
        || match &elsewhere {
            None => true,
            Some(Elsewhere::Plugin(_)) => false,
            Some(Elsewhere::Managed { runs_user_copy, .. }) => *runs_user_copy,
        };
    let mut parts = Parts::default();
    for (part, wanted) in [
        (Part::Program, copy),
        (Part::StateFile, true),
        (Part::ClaudeMd, true),
        (Part::Registrations, elsewhere.is_none()),
        (Part::PermissionRules, true),
        (Part::StatusLine, extras.statusline),
    ] {
        if wanted {
            parts.insert(part);
        }
    }
    let take_out = TakeOut {
        from: elsewhere.iter().map(|_| settings.clone()).collect(),
        ..TakeOut::default()
    };
    let desired = Desired {
        site,
        shell,
        rules: extras.rules.clone(),
        channel: Channel::User,
    };
    let request = Request {
        direction: Direction::Add,
        by: By::Install,
        parts,
        take_out,
        program: Some(Program {
            bytes: &|| Ok(program.to_vec()),
            replace: &|_| true,
        }),
    };
    let planned = planner::plan(&desired, &request, &mut plan)?;
    if let Some(text) = &old_settings {
        notes.extend(left_as_they_are(&settings, text));
    }
    match &switch_plugin {
        Some(by @ Elsewhere::Plugin(_)) => notes.push(format!(
            "note: {by} registers gk's switch hooks (PreModelSwitch, PostModelSwitch), so install leaves them out of {} (both would run)",
            settings.display()
        )),
        _ => notes.extend(switch_guard_note(extras.client)),
    }
    if let (Some(by), true) = (&elsewhere, planned.done.taken_out) {
        notes.push(format!(
            "note: {by} registers gk's hooks; the ones an earlier install put in {} are taken out (both would run)",
            settings.display()
        ));
    }
    match &elsewhere {
        Some(by @ Elsewhere::Plugin(_)) if !copy => notes.push(format!(
            "note: {by} registers gk's hooks and runs the gk on PATH, so install registers none and copies no program; it adds what a plugin cannot carry: the permission rules for the task records and the Task State Convention"
        )),
        Some(by @ Elsewhere::Managed { .. }) if !copy => notes.push(format!(
            "note: {by} registers gk's hooks and runs the program it names, so install registers none and copies no program; it adds what that cannot carry: the permission rules for the task records and the Task State Convention"
        )),
        Some(by @ Elsewhere::Managed {
            runs_user_copy: true,
            ..
        }) if !extras.statusline => {
            notes.push(format!(
                "note: {by} registers gk's hooks, so install does not; it adds what that cannot carry: the permission rules, the Task State Convention, and the program its hooks run ({})",
                m.paths.binary(m.ctx.os).display()
            ))
        }
        Some(by) => notes.push(format!(
            "note: {by} registers gk's hooks, so install does not; it adds what that cannot carry: the permission rules, the Task State Convention, the program for the status line"
        )),
        None => {}
    }
    let binary = m.paths.binary(m.ctx.os);
    if !copy && std::fs::symlink_metadata(&binary).is_ok() {
        notes.push(format!(
            "note: {} is a copy an earlier install made; no hook or status line runs it now, so it is not updated (`gk uninstall` removes it)",
            binary.display()
        ));
    }
    let new_settings = planned.settings.unwrap_or_default();
    notes.extend(settings_notes(m, shell, planned.line, &new_settings));
    plan.folders.extend(state_folder(m, extras));
    Ok((plan, notes))
}

/// What install's notes say of the settings it writes: the shell gk's
/// status line is spelt for, another tool's status line left as it is,
/// a `disableAllHooks` that keeps every hook from running.
fn settings_notes(
    m: &Machine,
    shell: ShellForm,
    line: Option<settings_keys::StatusLine>,
    new_settings: &str,
) -> Vec<String> {
    let settings = m.paths.settings();
    let bin = m.paths.binary(m.os());
    let mut notes = Vec::new();
    match line {
        // Said only of a status line gk writes, never of another's.
        Some(settings_keys::StatusLine::Registered(_))
            if statusline_shell(shell, m.git_bash.as_deref()) != shell =>
        {
                notes.push(match m.git_bash.as_deref() {
                    Some(bash) => format!(
                        "note: Claude Code runs a status line through a shell; the status line is spelled for Git Bash ({}), which it will use",
                        bash.display()
                    ),
                    None => "note: Claude Code runs a status line through a shell; the status line is spelled for PowerShell, which it uses where no Git Bash is found".to_string(),
                } + " (after installing or removing Git for Windows, `gk doctor --fix` respells it)");
        }
        Some(settings_keys::StatusLine::Registered(_)) => {}
        Some(settings_keys::StatusLine::Taken(_)) => notes.push(format!(
            "note: {} already sets a statusLine; it is left as it is (to show gk's task state in it, \
             have that command pass the JSON it reads on stdin to `{} statusline` and print the line it gives)",
            settings.display(),
            bin.display()
        )),
        None => {}
    }
    if let Ok(parsed) = crate::settings::parse(&settings, new_settings) {
        if parsed.value.get("disableAllHooks") == Some(&serde_json::Value::Bool(true)) {
            notes.push(format!(
                "note: {} sets \"disableAllHooks\": true, so Claude Code runs no hook until it is removed",
                settings.display()
            ));
        }
    }
    notes
}

/// The folder Claude writes its records in: made by gk, private to the
/// user (the client creates the folder 0755 and each record 0644,
/// measured; in a 0700 folder no one else can reach them). With
/// `--no-permissions` too (sessions in bypass mode still write records),
/// but then only a folder that passes the state folder rules: install does
/// not refuse one there, it leaves it alone.
fn state_folder(m: &Machine, extras: &Extras) -> Option<plan::FolderChange> {
    let dir = m.state_dir.as_deref()?;
    let ours = extras.rules.is_some()
        || (crate::records::check_path(m.os(), dir, Some(&m.ctx.home), m.paths.dir()).is_ok()
            && crate::records::scan(dir).is_ok());
    ours.then(|| plan::FolderChange::private(dir)).flatten()
}

/// Build uninstall's plan: the hook entries, the CLAUDE.md block, the
/// binary (only when it carries gk's version marker), and with `purge`
/// task_state.json and gk.json.
pub fn plan_uninstall(m: &Machine, purge: bool) -> Result<(Plan, Vec<String>)> {
    let (extras, _) = Extras::for_machine(m, true, true);
    plan_uninstall_with(m, purge, &extras)
}

/// [`plan_uninstall`], taking out `extras.rules` (when set) and a
/// `statusLine` that runs gk: every part install puts in, planned out by
/// [`planner::plan`] (the task state only with `purge`).
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
    match registered_elsewhere(m, None) {
        Some(Elsewhere::Plugin(id)) => notes.push(format!(
            "note: plugin {id} still registers gk's hooks; `claude plugin uninstall {id}` removes it (gk never edits a plugin's files)"
        )),
        Some(by @ Elsewhere::Managed { .. }) => notes.push(format!(
            "note: {by} still registers gk's hooks for every user; `gk uninstall --managed`, run as administrator, takes out a managed install"
        )),
        None => {}
    }
    let mut parts = Parts::ALL;
    if !purge {
        parts.remove(Part::StateFile);
    }
    let desired = Desired {
        site: Site::of(m),
        shell: shell_form(ShellChoice::Auto, m.os()),
        rules: extras.rules.clone(),
        channel: Channel::User,
    };
    let request = Request {
        direction: Direction::Remove,
        by: By::Uninstall,
        parts,
        take_out: TakeOut::default(),
        program: None,
    };
    notes.extend(planner::plan(&desired, &request, &mut plan)?.notes);
    for (path, what) in [
        (m.paths.state_file(), "task state"),
        (m.paths.config_file(), "gk's config"),
    ] {
        // Without --purge the file is only named, so it is not read.
        if !purge && std::fs::symlink_metadata(&path).is_ok() {
            notes.push(format!(
                "kept      {} ({what}; --purge removes it)",
                path.display()
            ));
        }
    }
    let config = m.paths.config_file();
    if let (true, Some(bytes)) = (
        purge,
        read_current(&config, crate::hooks::config::MAX_CONFIG_BYTES)?,
    ) {
        plan.push(FileChange {
            path: config,
            old: Some(bytes),
            new: None,
            binary: false,
            create_mode: 0o644,
            strategy: plan::ReplaceStrategy::InPlace,
            reason: "gk's config (--purge)".into(),
        });
    }
    Ok((plan, notes))
}

/// The plan of `gk install --managed`: every part the managed channel
/// carries ([`Channel::parts`]), planned in by [`planner::plan`]: the
/// drop-in and, without `--output`, the program at its machine-wide path
/// and the record of the folders gk makes. Notes say what the
/// administrator still has to do.
pub fn plan_managed_install(dropin: DropIn, program: &[u8]) -> Result<(Plan, Vec<String>)> {
    let mut plan = Plan::new("gk install --managed");
    let notes = dropin.install_notes();
    let request = Request {
        direction: Direction::Add,
        by: By::Install,
        parts: Parts::ALL,
        take_out: TakeOut::default(),
        program: Some(Program {
            bytes: &|| Ok(program.to_vec()),
            replace: &|_| true,
        }),
    };
    planner::plan(&Desired::managed(dropin), &request, &mut plan)?;
    Ok((plan, notes))
}

/// The plan of `gk uninstall --managed`: every part the managed channel
/// carries, planned out by [`planner::plan`] (gk's entries out of the
/// drop-in, the machine-wide program when it is a gk build, the folders
/// gk made that are left empty).
pub fn plan_managed_uninstall(dropin: DropIn) -> Result<(Plan, Vec<String>)> {
    let at = dropin.at();
    let why = match read_text(&at)? {
        None => "is not there",
        Some(_) => "holds none of gk's hooks",
    };
    let mut plan = Plan::new("gk uninstall --managed").when_idle(format!(
        "gk is not installed for every user here ({} {why}); nothing to remove",
        at.display()
    ));
    let request = Request {
        direction: Direction::Remove,
        by: By::Uninstall,
        parts: Parts::ALL,
        take_out: TakeOut::default(),
        program: None,
    };
    let notes = planner::plan(&Desired::managed(dropin), &request, &mut plan)?.notes;
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

/// A channel other than the user's settings that registers gk's hooks.
#[derive(Debug, Clone, PartialEq)]
enum Elsewhere {
    /// A plugin (its id).
    Plugin(String),
    /// Managed settings: the file or drop-in of the first hook found, and
    /// whether a hook of gk's that they register runs the user's copy of
    /// the program (`<claude dir>/hooks/gk`) rather than one they name.
    Managed {
        path: std::path::PathBuf,
        runs_user_copy: bool,
    },
}

impl std::fmt::Display for Elsewhere {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Elsewhere::Plugin(id) => write!(f, "plugin {id}"),
            Elsewhere::Managed { path, .. } => {
                write!(f, "the managed settings file {}", path.display())
            }
        }
    }
}

/// Whether the `statusLine` of the user settings `text` runs the user's
/// copy of the program (`<claude dir>/hooks/gk`), however it is spelt: an
/// install beside a plugin or managed settings keeps that copy current.
fn statusline_runs_the_copy(m: &Machine, text: &str) -> bool {
    let os = m.ctx.os;
    let copy = crate::hookcmd::normalize_path(&m.paths.binary(os).to_string_lossy(), os);
    // A BOM is kept by install (settings.json round-trips with one).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .as_ref()
        .and_then(|v| v.pointer("/statusLine/command"))
        .and_then(|c| c.as_str())
        .and_then(|c| crate::hookcmd::normalize(c, &m.ctx))
        .is_some_and(|i| i.program == copy)
}

/// What the plan says of the switch hooks (PreModelSwitch,
/// PostModelSwitch): registered for a client that knows their events,
/// left out for an older one or when no client was found.
fn switch_guard_note(client: Option<crate::hookcmd::ClientVersion>) -> Option<String> {
    use crate::hookcmd::SWITCH_EVENTS_SINCE as SINCE;
    Some(match client {
        Some(v) if v >= SINCE => format!(
            "note: Claude Code {v} knows PreModelSwitch: gk asks before a model switch in the middle of a task (\"switch\" in gk.json)"
        ),
        Some(v) => format!(
            "note: Claude Code {v} predates PreModelSwitch ({SINCE}): the switch guard is left out (an older client warns at every start about an event it does not know); run `gk install` again after updating Claude Code"
        ),
        None => format!(
            "note: no `claude` on PATH told its version, so the switch guard (PreModelSwitch, Claude Code {SINCE} or later) is not added; run `gk install` again where `claude --version` works"
        ),
    })
}

/// The plugin or the managed settings that register every one of gk's
/// hooks on this machine, if one does (a plugin before managed settings):
/// the registry reads the user settings as `settings` will hold them
/// (`None`: as on disk), the managed ones, and every plugin they enable,
/// as doctor does.
fn registered_elsewhere(m: &Machine, settings: Option<&str>) -> Option<Elsewhere> {
    registered_by(m, settings, &HookKind::ALWAYS)
}

/// The plugin or the managed settings that register every one of `kinds`
/// ([`registered_elsewhere`] for any set of gk's hooks).
fn registered_by(m: &Machine, settings: Option<&str>, kinds: &[HookKind]) -> Option<Elsewhere> {
    use crate::registry::table::Table;
    use crate::registry::{plugins, scopes};
    let mut files = scopes::load_scopes(&m.paths.settings(), None, &m.managed, &m.registry_policy);
    if let (Some(text), Some(user)) = (settings, files.first_mut()) {
        user.load = scopes::classify_text(&user.path, text);
    }
    let found = plugins::load_plugins(&files, &m.plugins_dir, plugins::PluginBudget::DOCTOR);
    let t = Table::with_plugins(&files, &found, &m.ctx);
    let os = m.ctx.os;
    let user_copy = crate::hookcmd::normalize_path(&m.paths.binary(os).to_string_lossy(), os);
    let by = |kind: HookKind| {
        let rows: Vec<_> = t.doing(kind).filter(|r| t.runs(r)).collect();
        let plugin = rows.iter().find_map(|r| r.plugin.as_ref());
        match plugin {
            Some(p) => Some(Elsewhere::Plugin(p.id.clone())),
            None => {
                let managed: Vec<_> = rows.iter().filter(|r| r.scope.is_policy()).collect();
                let first = managed.first()?;
                Some(Elsewhere::Managed {
                    path: first.path.clone(),
                    runs_user_copy: managed.iter().any(|r| {
                        r.invocation
                            .as_ref()
                            .is_some_and(|i| i.program == user_copy)
                    }),
                })
            }
        }
    };
    let mut found: Option<Elsewhere> = None;
    for kind in kinds {
        let next = by(*kind)?;
        found = Some(match (found, next) {
            (
                Some(Elsewhere::Managed {
                    runs_user_copy: a, ..
                }),
                Elsewhere::Managed {
                    path,
                    runs_user_copy: b,
                },
            ) => Elsewhere::Managed {
                path,
                runs_user_copy: a || b,
            },
            (_, next) => next,
        });
    }
    found
}
