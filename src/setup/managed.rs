//! The managed channel: gk registered for every user of a machine by a
//! drop-in in the client's managed folder (`managed-settings.d/gk.json`
//! beside the managed settings file), running one machine-wide program
//! ([`crate::paths::default_managed_program`]).
//!
//! The drop-in is rendered from the same description as a user install
//! (the three hooks, their events, `statusMessage` and timeouts: the
//! groups [`settings_edit::add_hooks`] writes), in the exec form: the
//! client loads hooks from a drop-in in that form (measured on 2.1.332),
//! no shell starts, and no `$HOME` is needed in a file every user shares.
//!
//! Install and uninstall are the same pair of pure edits as for a user's
//! settings.json: install puts gk's entries into the drop-in's text (a new
//! file when there is none), uninstall takes them out; a file that holds
//! nothing else afterwards is removed, one an administrator added keys to
//! keeps them. Only the permission rules, the status line and the Task
//! State Convention stay per user: a drop-in cannot carry them for every
//! home folder (`gk doctor --fix` adds them for one user).
//!
//! This file holds what is the drop-in's own (where it lives, what it
//! registers, the record of the folders gk made); the one planner
//! ([`crate::setup::planner`], channel [`DropIn`]) decides which of these
//! a plan takes in or out, beside the program part every channel shares
//! ([`crate::setup::binary`]).

use std::path::{Path, PathBuf};

use crate::change::fs::read_text;
use crate::change::plan::{FileChange, Plan};
use crate::edit::settings_edit::{self, WantedHooks};
use crate::error::{Error, Result};
use crate::hookcmd::{exec_at, ClientVersion, CommandContext, SWITCH_EVENTS_SINCE};
use crate::machine::Machine;
use crate::platform::Os;

/// The drop-in's name: loaded by the client (`*.json`, no leading dot);
/// drop-ins are applied in name order after the managed file, which only
/// matters for single values (hooks of every file add up), and gk's holds
/// none.
pub const DROPIN_NAME: &str = "gk.json";

/// Where `gk install --managed` writes: `<managed folder>/managed-settings.d/gk.json`.
pub fn dropin_path(managed_file: &Path) -> PathBuf {
    crate::registry::scopes::dropin_dir(managed_file).join(DROPIN_NAME)
}

/// gk's hooks in the exec form, running `program`, a path of `os`'s
/// (`C:\…` for Windows, `/…` elsewhere: absolute there, wherever gk
/// runs). A drop-in serves clients of every version, so it carries the
/// three hooks every client knows, and the switch guard (PreModelSwitch,
/// PostModelSwitch) only when `switch_guard` asks for it: a client older
/// than [`SWITCH_EVENTS_SINCE`] opens a warning at every start for an
/// event it does not know, in a drop-in too (measured). Without it, gk's
/// entries for those events are taken out.
pub fn wanted_hooks(program: &Path, os: Os, switch_guard: bool) -> Result<WantedHooks> {
    let Some(path) = program
        .to_str()
        .filter(|p| crate::paths::is_absolute_on(os, p))
    else {
        return Err(Error::refused(format!(
            "{} is not an absolute path in valid Unicode, so no drop-in can name it",
            program.display()
        )));
    };
    // The hooks of a client that knows the switch events, or of one that
    // knows none of the hooks that came later.
    let client = match switch_guard {
        true => SWITCH_EVENTS_SINCE,
        false => ClientVersion(0, 0, 0),
    };
    Ok(WantedHooks::for_client(Some(client), |kind| {
        exec_at(kind, path)
    }))
}

/// The platform a drop-in is written for: this machine's, or the one
/// `--platform` names (for `--output` only: the drop-in then runs that
/// platform's machine-wide program, [`crate::paths::default_managed_program`]).
#[derive(Debug, Clone)]
pub struct Target {
    pub os: Os,
    /// The program every user's hooks run.
    pub program: PathBuf,
    /// How commands are read on `os` (which entries are gk's).
    pub ctx: CommandContext,
    /// Register the switch guard too (`--with-switch-guard`), see
    /// [`wanted_hooks`].
    pub switch_guard: bool,
}

impl Target {
    /// The hooks the drop-in registers ([`wanted_hooks`]).
    pub fn hooks(&self) -> Result<WantedHooks> {
        wanted_hooks(&self.program, self.os, self.switch_guard)
    }

    /// This machine's drop-in.
    pub fn here(m: &Machine) -> Target {
        Target {
            os: m.os(),
            program: m.managed_program.clone(),
            ctx: m.ctx.clone(),
            switch_guard: false,
        }
    }

    /// `os`'s drop-in, written from any machine: that platform's default
    /// machine-wide program path and spelling (this machine's own
    /// `GK_MANAGED_PROGRAM` is not that platform's, even when it is this one).
    pub fn for_platform(m: &Machine, os: Os) -> Target {
        Target {
            os,
            program: crate::paths::default_managed_program(os),
            ctx: CommandContext {
                os,
                ..m.ctx.clone()
            },
            switch_guard: false,
        }
    }
}

/// The drop-in as `gk install --managed` writes it where there is none.
pub fn render_dropin(t: &Target, at: &Path) -> Result<String> {
    settings_edit::add_hooks(at, "", &t.hooks()?, &t.ctx)
}

/// The files `gk install --managed` writes: the program (not with
/// `output`) and the drop-in.
pub fn targets(m: &Machine, output: Option<&Path>) -> Vec<PathBuf> {
    match output {
        Some(file) => vec![file.to_path_buf()],
        None => vec![m.managed_program.clone(), dropin_path(&m.managed)],
    }
}

/// The folders a managed install may have to make, inner ones first: the
/// drop-in folder and the managed folder (the client's), and on Windows
/// gk's own program folder. Uninstall removes one only when the install
/// record says gk made it ([`RECORD_NAME`]) and it is left empty.
pub fn folders(m: &Machine) -> Vec<PathBuf> {
    let dropins = crate::registry::scopes::dropin_dir(&m.managed);
    let mut out = vec![dropins.clone()];
    out.extend(dropins.parent().map(Path::to_path_buf));
    if m.os().is_windows() {
        out.extend(m.managed_program.parent().map(Path::to_path_buf));
    }
    out
}

/// The record of the folders `gk install --managed` made, kept in the
/// drop-in folder: a name starting with a dot, which the client does not
/// load as a drop-in. `{"made_folders": ["<folder>", …]}`. Uninstall
/// removes a folder only when this record names it, so a managed folder
/// an administrator made before gk stays, empty or not.
pub const RECORD_NAME: &str = ".gk-install.json";

/// Where the record of made folders lives.
pub fn record_path(m: &Machine) -> PathBuf {
    crate::registry::scopes::dropin_dir(&m.managed).join(RECORD_NAME)
}

/// The folders of [`folders`] a record's text names (anything else in it,
/// or a record that does not parse, names none: such a folder stays).
fn recorded(m: &Machine, record: Option<&str>) -> Vec<PathBuf> {
    let named: Vec<PathBuf> = record
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        .and_then(|v| {
            v.get("made_folders")?.as_array().map(|a| {
                a.iter()
                    .filter_map(|p| p.as_str().map(PathBuf::from))
                    .collect()
            })
        })
        .unwrap_or_default();
    folders(m)
        .into_iter()
        .filter(|d| named.contains(d))
        .collect()
}

/// The record's change for an install: the folders this install makes
/// (those of [`folders`] not there now) with those an earlier install
/// recorded; no record when gk made none.
fn record_change(m: &Machine) -> Result<Option<FileChange>> {
    let at = record_path(m);
    // Never written through a link: a record is a file of gk's own.
    if super::is_link(&at) {
        return Ok(None);
    }
    let old = read_text(&at)?;
    let before = recorded(m, old.as_deref());
    let made: Vec<PathBuf> = folders(m)
        .into_iter()
        .filter(|d| before.contains(d) || std::fs::symlink_metadata(d).is_err())
        .collect();
    if made.is_empty() {
        return Ok(None);
    }
    let names: Vec<String> = made
        .iter()
        .map(|d| d.to_string_lossy().into_owned())
        .collect();
    let mut text = serde_json::to_string_pretty(&serde_json::json!({ "made_folders": names }))
        .map_err(|e| Error::new(e.to_string()))?;
    text.push('\n');
    Ok(Some(FileChange::text(
        &at,
        old,
        Some(text),
        "the folders gk made, so uninstall removes those and no other",
    )))
}

/// The managed channel as the planner reads it
/// ([`crate::setup::planner::Channel::Managed`]): the drop-in (in the
/// managed folder, or at `output`), what it registers, and, without
/// `output`, the machine-wide program and the record of the folders gk
/// made. It has no permission rules, status line, CLAUDE.md or state
/// file: a drop-in cannot carry them for every home folder.
#[derive(Debug, Clone)]
pub struct DropIn<'a> {
    pub m: &'a Machine,
    pub target: Target,
    /// `--output FILE`: the drop-in alone, written there.
    pub output: Option<&'a Path>,
}

impl DropIn<'_> {
    /// Where the drop-in is written.
    pub fn at(&self) -> PathBuf {
        self.output
            .map_or_else(|| dropin_path(&self.m.managed), Path::to_path_buf)
    }

    /// The machine-wide program every user's hooks run (`None` with
    /// `output`: it is not copied then).
    pub fn program(&self) -> Option<&Path> {
        match self.output {
            Some(_) => None,
            None => Some(&self.m.managed_program),
        }
    }

    /// [`crate::setup::parts::Part::Registrations`] put in: gk's entries
    /// in the drop-in's text (a new file when there is none), the rest of
    /// it kept.
    pub fn put_in(&self) -> Result<FileChange> {
        let at = self.at();
        let wanted = self.target.hooks()?;
        let old = read_text(&at)?;
        let text = old.as_deref().unwrap_or("");
        let new = settings_edit::add_hooks(&at, text, &wanted, &self.target.ctx)?;
        let reason = match self.target.switch_guard {
            true => {
                "register gk's prompt, Stop and session hooks and the switch guard for every user"
            }
            false => "register gk's prompt, Stop and session hooks for every user",
        };
        Ok(FileChange::text(&at, old, Some(new), reason))
    }

    /// The record of the folders this install makes, beside the drop-in
    /// (none with `output`, or when gk makes none).
    pub fn record_in(&self) -> Result<Option<FileChange>> {
        match self.output {
            Some(_) => Ok(None),
            None => record_change(self.m),
        }
    }

    /// What the plan of `gk install --managed` tells the administrator.
    pub fn install_notes(&self) -> Vec<String> {
        let t = &self.target;
        let mut notes = vec![switch_guard_note(t.switch_guard)];
        if self.output.is_some() {
            notes.push(format!(
                "note: the drop-in runs {}; put a gk program built for {} there on every machine with your own tools (it is not copied by --output)",
                t.program.display(),
                os_name(t.os)
            ));
            notes.push(format!(
                "note: deploy {} as {} (the file name may differ; it must end in .json and not start with a dot)",
                self.at().display(),
                dropin_spelling(t.os)
            ));
        }
        notes
    }
}

/// What the plan of `gk install --managed` says of the switch guard.
fn switch_guard_note(switch_guard: bool) -> String {
    let since = SWITCH_EVENTS_SINCE;
    match switch_guard {
        true => format!(
            "note: the drop-in registers the switch guard (PreModelSwitch, PostModelSwitch), as --with-switch-guard asks: a Claude Code older than {since} shows a warning about an unknown hook event at every start"
        ),
        false => format!(
            "note: the switch guard (PreModelSwitch, PostModelSwitch) is left out: a drop-in serves every Claude Code version, and one older than {since} shows a warning about an unknown hook event at every start; add --with-switch-guard where every machine runs {since} or later"
        ),
    }
}

/// Where the client of `os` reads gk's drop-in, spelled as on `os`
/// (`C:\Program Files\ClaudeCode\managed-settings.d\gk.json`), wherever gk runs.
pub fn dropin_spelling(os: Os) -> String {
    let file = crate::paths::default_managed_path(os);
    let file = file.to_string_lossy();
    let sep = if os.is_windows() { '\\' } else { '/' };
    let dir = file.rsplit_once(sep).map_or("", |(dir, _)| dir);
    format!("{dir}{sep}managed-settings.d{sep}{DROPIN_NAME}")
}

/// A platform's name as the docs and `--platform` spell it.
pub fn os_name(os: Os) -> &'static str {
    match os {
        Os::Windows => "Windows",
        Os::MacOs => "macOS",
        Os::Linux => "Linux",
    }
}

/// The platform whose spelling `text`'s gk entries use: this machine's
/// when it finds some (or none at all), else the first other platform
/// whose reading finds them (a drop-in written with `--platform`).
fn target_of(m: &Machine, at: &Path, text: &str) -> Result<Target> {
    let here = Target::here(m);
    if settings_edit::remove_hooks(at, text, &here.ctx)? != text {
        return Ok(here);
    }
    for os in [Os::Windows, Os::MacOs, Os::Linux] {
        let t = Target::for_platform(m, os);
        if settings_edit::remove_hooks(at, text, &t.ctx)? != text {
            return Ok(t);
        }
    }
    Ok(here)
}

impl DropIn<'_> {
    /// [`crate::setup::parts::Part::Registrations`] taken out: gk's
    /// entries out of the drop-in; the file goes when nothing else is left
    /// in it, one an administrator added keys to keeps them. A drop-in with
    /// none of gk's hooks is not gk's to touch, even when it holds nothing
    /// at all. A file written with `--output --platform` for another
    /// platform is read in that platform's spelling.
    pub fn take_out(&self) -> Result<Option<FileChange>> {
        let at = self.at();
        // A drop-in the plan finds absent, or without gk's hooks, is left
        // so, and checked so when the plan is written: an install that
        // puts it in meanwhile stops this run instead of leaving its
        // drop-in without the program this run takes out.
        let Some(old) = read_text(&at)? else {
            return Ok(Some(FileChange::text(&at, None, None, "no drop-in")));
        };
        let t = match self.output {
            Some(_) => target_of(self.m, &at, &old)?,
            None => self.target.clone(),
        };
        let left = settings_edit::remove_hooks(&at, &old, &t.ctx)?;
        if left == old {
            return Ok(Some(FileChange::text(
                &at,
                Some(old.clone()),
                Some(old),
                "no gk hooks in it",
            )));
        }
        let new = if old == render_dropin(&t, &at)? {
            None
        } else {
            let empty = left.trim().is_empty()
                || serde_json::from_str::<serde_json::Value>(&left).ok()
                    == Some(serde_json::json!({}));
            (!empty).then_some(left)
        };
        let reason = if new.is_some() {
            "remove gk's hook entries (the rest of the file stays)"
        } else {
            "gk's drop-in"
        };
        Ok(Some(FileChange::text(&at, Some(old), new, reason)))
    }

    /// The folders gk made, taken out last (none with `output`): the
    /// record of them goes, and each folder it names that `plan` leaves
    /// empty goes after it. A record gk cannot read (too large, not a
    /// file, not UTF-8) does not stop the uninstall: it stays, and so do
    /// the folders.
    pub fn folders_out(&self, plan: &mut Plan, notes: &mut Vec<String>) {
        if self.output.is_some() {
            return;
        }
        let record_at = record_path(self.m);
        let record = match crate::bounded::read_no_link(&record_at, crate::bounded::TEXT_LIMIT) {
            Ok(c) => String::from_utf8(c.bytes)
                .map(Some)
                .map_err(|_| "not UTF-8 text".to_string()),
            Err(crate::bounded::ReadError::NotFound) => Ok(None),
            Err(e) => Err(e.reason()),
        };
        let record = match record {
            Ok(text) => text,
            Err(why) => {
                notes.push(format!(
                    "left {} in place ({why}): the folders gk's install made stay too",
                    record_at.display()
                ));
                None
            }
        };
        let made = recorded(self.m, record.as_deref());
        if let Some(old) = record {
            plan.push(FileChange::text(
                &record_at,
                Some(old),
                None,
                "gk's record of the folders it made",
            ));
        }
        plan.empty_folders = left_empty(&made, plan);
    }
}

/// Which of `folders` (inner ones first) hold nothing once `plan` has
/// removed its files: each entry is a file the plan removes or a folder
/// found empty before it. A folder of more than 64 entries, a link, or
/// one that cannot be listed is left out (it is never removed).
fn left_empty(folders: &[PathBuf], plan: &Plan) -> Vec<PathBuf> {
    let mut gone: Vec<PathBuf> = plan
        .changes
        .iter()
        .filter(|c| c.new.is_none() && c.changes_something())
        .map(|c| c.path.clone())
        .collect();
    let mut out = Vec::new();
    for dir in folders {
        let is_dir = std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        if !is_dir {
            continue;
        }
        let mut empty = true;
        for (n, entry) in entries.enumerate() {
            let inside = entry.map(|e| e.path());
            if n >= 64 || !inside.is_ok_and(|p| gone.contains(&p)) {
                empty = false;
                break;
            }
        }
        if empty {
            gone.push(dir.clone());
            out.push(dir.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn the_dropin_sits_in_managed_settings_d() {
        assert_eq!(
            dropin_path(Path::new("/etc/claude-code/managed-settings.json")),
            Path::new("/etc/claude-code/managed-settings.d/gk.json")
        );
    }

    #[test]
    fn each_platform_names_its_own_dropin_folder() {
        assert_eq!(
            dropin_spelling(Os::Windows),
            r"C:\Program Files\ClaudeCode\managed-settings.d\gk.json"
        );
        assert_eq!(
            dropin_spelling(Os::MacOs),
            "/Library/Application Support/ClaudeCode/managed-settings.d/gk.json"
        );
        assert_eq!(
            dropin_spelling(Os::Linux),
            "/etc/claude-code/managed-settings.d/gk.json"
        );
    }

    #[test]
    fn a_relative_program_path_is_refused() {
        for guard in [false, true] {
            assert!(wanted_hooks(Path::new("bin/gk"), Os::Linux, guard).is_err());
            assert!(wanted_hooks(Path::new(r"gk\gk.exe"), Os::Windows, guard).is_err());
            assert!(wanted_hooks(Path::new("/usr/local/bin/gk"), Os::Windows, guard).is_err());
            let ok = wanted_hooks(Path::new(r"C:\Program Files\gk\gk.exe"), Os::Windows, guard);
            assert!(ok.is_ok());
        }
    }

    #[test]
    fn the_switch_guard_is_wanted_only_when_asked_for() {
        let program = Path::new("/usr/local/bin/gk");
        let kinds = |guard| wanted_hooks(program, Os::Linux, guard).unwrap().kinds();
        assert_eq!(kinds(false), crate::hookcmd::HookKind::ALWAYS);
        assert_eq!(kinds(true), crate::hookcmd::HookKind::ALL);
    }
}
