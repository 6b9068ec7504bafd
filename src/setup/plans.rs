//! The plans of `gk install`, `gk uninstall` and `--purge`: every file
//! read, every new text computed from what gk wants ([`super`]), nothing
//! written (a plan goes through [`crate::change::apply`]).

use std::path::Path;

use super::parts::{Part, Parts, Site};
use super::*;
use crate::change::backup;
use crate::change::fs::{read_current, read_text};
use crate::change::plan::{self, FileChange, Plan};
use crate::edit::{claude_md, settings_edit, settings_keys};
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

/// [`plan_install`] with the settings extras chosen by the caller.
pub fn plan_install_with(
    m: &Machine,
    shell: ShellForm,
    program: &[u8],
    extras: &Extras,
) -> Result<(Plan, Vec<String>)> {
    let mut plan = Plan::new("gk install");
    let mut notes = Vec::new();
    let site = Site {
        client: extras.client,
        ..Site::of(m)
    };
    let bin = m.paths.binary(m.os);
    let settings = m.paths.settings();
    let old_settings = read_text(&settings)?;
    // gk's plugin (or any plugin), or managed settings, registering all of
    // gk's hooks: the client runs a user settings copy beside either, so
    // install registers none and takes out the ones an earlier install
    // wrote.
    let elsewhere = registered_elsewhere(m, old_settings.as_deref());
    // A plugin runs the gk on PATH: a copy in hooks/ would be a second
    // program no hook runs (and one that drifts from the first), unless
    // the status line, which a plugin cannot carry, runs it.
    let copy = extras.statusline || !matches!(elsewhere, Some(Elsewhere::Plugin(_)));
    if copy {
        if let Some(change) = site.program(|| Ok(program.to_vec()), |_| true)? {
            plan.push(change);
        }
    }
    plan.push(site.state_file("task state, created only when missing")?);
    plan.push(site.claude_md(false, "Task State Convention block")?);

    if let Some(text) = &old_settings {
        notes.extend(left_as_they_are(&settings, text));
    }
    // Read back before anything else: a <claude dir> no command can name
    // stops the install here, wherever the hooks are registered.
    site.hooks(shell)?;
    notes.extend(switch_guard_note(extras.client));
    let old_text = match (&elsewhere, &old_settings) {
        (Some(by), Some(text)) => {
            let without = settings_edit::remove_hooks(&settings, text, &m.ctx)?;
            if without != *text {
                notes.push(format!(
                    "note: {by} registers gk's hooks; the ones an earlier install put in {} are taken out (both would run)",
                    settings.display()
                ));
            }
            without
        }
        _ => old_settings.clone().unwrap_or_default(),
    };
    match &elsewhere {
        Some(by @ Elsewhere::Plugin(_)) if !copy => notes.push(format!(
            "note: {by} registers gk's hooks and runs the gk on PATH, so install registers none and copies no program; it adds what a plugin cannot carry: the permission rules for the task records and the Task State Convention"
        )),
        Some(by) => notes.push(format!(
            "note: {by} registers gk's hooks, so install does not; it adds what that cannot carry: the permission rules, the Task State Convention, the program for the status line"
        )),
        None => {}
    }
    let mut parts = Parts::default();
    if elsewhere.is_none() {
        parts.insert(Part::Registrations);
    }
    parts.insert(Part::PermissionRules);
    if extras.statusline {
        parts.insert(Part::StatusLine);
    }
    let taken_out = old_settings.as_deref().is_some_and(|t| t != old_text);
    let (new_settings, filled, line, mut done) = site.user_settings(
        parts,
        shell,
        extras.rules.as_ref(),
        old_settings.as_deref(),
        old_text,
    )?;
    done.taken_out = taken_out;
    notes.extend(settings_notes(m, shell, line, &new_settings));
    plan.folders.extend(state_folder(m, extras));
    let before = rules_there_before(m, &settings, old_settings.as_deref())?;
    let blank = old_settings.clone().filter(|t| t.trim().is_empty());
    let created = old_settings.is_none();
    let reason = install_reason(&done, elsewhere.is_some());
    plan.push(FileChange::text(
        &settings,
        old_settings,
        Some(new_settings),
        &reason,
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
        created,
    )? {
        plan.push(change);
    }
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
    let bin = m.paths.binary(m.os);
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
        || (crate::records::check_path(m.os, dir, Some(&m.ctx.home), m.paths.dir()).is_ok()
            && crate::records::scan(dir).is_ok());
    ours.then(|| plan::FolderChange::private(dir)).flatten()
}

/// What install's edit of settings.json does, in the words of its plan:
/// only the parts its diff shows (an install that only adds the status
/// line says only that).
fn install_reason(done: &Done, elsewhere: bool) -> String {
    let mut parts = Vec::new();
    if done.taken_out {
        parts.push("take out gk's hooks (registered elsewhere)");
    }
    if done.hooks {
        parts.push("register the prompt, Stop and session hooks");
    }
    if done.rules {
        parts.push("let Claude write its task records");
    }
    if done.statusline {
        parts.push("show the task state in the status line");
    }
    match (parts.is_empty(), elsewhere) {
        (false, _) => parts.join("; "),
        (true, false) => "gk's hooks, permission rules and status line".into(),
        (true, true) => "the hooks are registered elsewhere".into(),
    }
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
    match registered_elsewhere(m, None) {
        Some(Elsewhere::Plugin(id)) => notes.push(format!(
            "note: plugin {id} still registers gk's hooks; `claude plugin uninstall {id}` removes it (gk never edits a plugin's files)"
        )),
        Some(by @ Elsewhere::Managed(_)) => notes.push(format!(
            "note: {by} still registers gk's hooks for every user; `gk uninstall --managed`, run as administrator, takes out a managed install"
        )),
        None => {}
    }
    let record = m.paths.install_record();
    if let Some(change) = uninstall_settings(m, extras)? {
        plan.push(change);
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
        if crate::version::embedded_version(&bytes).is_some() {
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

/// Uninstall's change to settings.json: gk's hook entries, the
/// permission rules it added (`extras.rules`; the user's own copies stay)
/// and a status line that runs gk taken out, the containers install filled
/// kept as the record says; a file install created with nothing else left
/// in it goes. `None` when there is no settings.json.
fn uninstall_settings(m: &Machine, extras: &Extras) -> Result<Option<FileChange>> {
    let settings = m.paths.settings();
    let Some(old) = read_text(&settings)? else {
        return Ok(None);
    };
    let noted = record::read_all(&m.paths.install_record())?;
    let keep = noted.containers;
    let mut new = settings_edit::remove_hooks_keeping(&settings, &old, &m.ctx, &keep)?;
    let hooks = new != old;
    let without_hooks = new.clone();
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
    let without_line = on_disk_places(Some(&old), &new, |t| {
        settings_keys::remove_statusline(&settings, t, &m.ctx, &keep)
    })?;
    let rules = new != without_hooks;
    let line = without_line != new;
    new = without_line;
    let nothing_left =
        serde_json::from_str::<serde_json::Value>(&new).ok() == Some(serde_json::json!({}));
    // Nothing left but `{}` in a file that was blank before install.
    if let (Some(blank), true) = (&noted.blank, nothing_left) {
        new = blank.clone();
    }
    // A file install created, with nothing left in it, goes (never
    // through a link: that is the user's).
    let gone = noted.created && nothing_left && !is_link(&settings);
    Ok(Some(FileChange::text(
        &settings,
        Some(old),
        (!gone).then_some(new),
        &if gone {
            "install created it, and nothing else is in it".to_string()
        } else {
            uninstall_reason(hooks, rules, line)
        },
    )))
}

/// What uninstall's edit of settings.json takes out, in the words of its
/// plan: only the parts there.
fn uninstall_reason(hooks: bool, rules: bool, line: bool) -> String {
    let parts: Vec<&str> = [
        (hooks, "hook entries"),
        (rules, "permission rules"),
        (line, "status line"),
    ]
    .into_iter()
    .filter_map(|(there, what)| there.then_some(what))
    .collect();
    match parts.as_slice() {
        [] => "gk's entries".into(),
        [one] => format!("remove gk's {one}"),
        [rest @ .., last] => format!("remove gk's {} and {last}", rest.join(", ")),
    }
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
    /// Managed settings: the file or drop-in of the first hook found.
    Managed(std::path::PathBuf),
}

impl std::fmt::Display for Elsewhere {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Elsewhere::Plugin(id) => write!(f, "plugin {id}"),
            Elsewhere::Managed(path) => write!(f, "the managed settings file {}", path.display()),
        }
    }
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
    use crate::registry::{plugins, scopes, Table};
    let mut files = scopes::load_scopes(&m.paths.settings(), None, &m.managed, &m.registry_policy);
    if let (Some(text), Some(user)) = (settings, files.first_mut()) {
        user.load = scopes::classify_text(&user.path, text);
    }
    let found = plugins::load_plugins(&files, &m.plugins_dir, plugins::PluginBudget::DOCTOR);
    let t = Table::with_plugins(&files, &found, &m.ctx);
    let by = |kind: HookKind| {
        let rows: Vec<_> = t.doing(kind).filter(|r| t.runs(r)).collect();
        let plugin = rows.iter().find_map(|r| r.plugin.as_ref());
        match plugin {
            Some(p) => Some(Elsewhere::Plugin(p.id.clone())),
            None => rows
                .iter()
                .find(|r| r.scope == scopes::Scope::Managed)
                .map(|r| Elsewhere::Managed(r.path.clone())),
        }
    };
    let mut found = None;
    for kind in HookKind::ALWAYS {
        found = Some(by(kind)?);
    }
    found
}
