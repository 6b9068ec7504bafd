//! Install's note for uninstall: `<claude dir>/hooks/gk-install.json`.
//!
//! Uninstall takes out gk's entries and the event array and `hooks` object
//! that this leaves empty (and gk's permission rules, with the
//! `permissions.allow` array and `permissions` object that leaves empty),
//! because install creates them when they are missing. But a
//! `"hooks": {}`, `"Stop": []` or `"allow": []` may have been there, empty,
//! before install filled it, and nothing in the file after install tells
//! the two apart. So when install (or `gk doctor --fix`, which registers
//! the hooks the same way) fills an empty container, it notes which one and
//! the bytes between its brackets here, and uninstall empties it back to
//! those bytes instead of removing it, then removes this file. Nothing else
//! is kept: the file holds no settings values, only container names and
//! whitespace. Without the file (installed by an older gk, or deleted),
//! uninstall removes emptied containers as before.
//!
//! The same goes for gk's two permission rules: a user may have had them
//! before the first install (or installed with `--no-permissions` beside
//! rules of their own). Install notes those that were there before it,
//! and uninstall leaves them in place.
//!
//! A note is about one settings file, and names it: Claude folders whose
//! hooks folders are one (a link from one to the other) keep a note each
//! in the one record, and uninstalling one takes out its note only (and
//! the record with the last note).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::change::fs::read_current;
use crate::change::plan::FileChange;
use crate::edit::settings_edit::EmptyContainer;
use crate::error::Result;

const ABOUT: &str = "Written by gk install: that gk was installed here, containers of settings.json that were empty before gk put its hooks in them, permission rules that were there before gk, and whether gk created settings.json. gk uninstall gives them back as they were and removes this file.";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Record {
    about: String,
    /// The note of the first settings file gk was installed into here.
    #[serde(flatten)]
    first: Entry,
    /// Notes of other settings files whose Claude folders share this hooks
    /// folder (a link to one folder from two): each folder's own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    others: Vec<Entry>,
}

/// What one settings file held before gk was installed into it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Entry {
    /// The settings file this note is about; none in a record written
    /// before a record could hold more than one (it is then about whichever
    /// settings file installs or uninstalls beside it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    settings: Option<String>,
    #[serde(default)]
    empty_before_install: Vec<EmptyContainer>,
    /// gk's permission rules that settings.json held before the first
    /// install: uninstall leaves them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    rules_before_install: Vec<String>,
    /// The whole of a settings.json that was blank (empty, or whitespace)
    /// before install: uninstall gives it back instead of `{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blank_before_install: Option<String>,
    /// settings.json was not there before install: uninstall removes a
    /// file left holding nothing (`{}`) instead of keeping it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    created_by_install: bool,
}

impl Entry {
    /// Is this the note of `settings`?
    fn is_for(&self, settings: &Path) -> bool {
        self.settings
            .as_deref()
            .is_none_or(|noted| same_place(Path::new(noted), settings))
    }
}

impl Record {
    /// The note of `settings`, if the record has one.
    fn entry(&self, settings: &Path) -> Option<&Entry> {
        std::iter::once(&self.first)
            .chain(&self.others)
            .find(|e| e.is_for(settings))
    }

    /// The note of `settings`, added (after the others) when there is none.
    fn entry_mut(&mut self, settings: &Path) -> &mut Entry {
        if self.first.is_for(settings) {
            return &mut self.first;
        }
        let at = match self.others.iter().position(|e| e.is_for(settings)) {
            Some(at) => at,
            None => {
                self.others.push(Entry::default());
                self.others.len() - 1
            }
        };
        &mut self.others[at]
    }

    /// The record without the note of `settings`; `None` when nothing is
    /// left in it.
    fn without(mut self, settings: &Path) -> Option<Record> {
        if self.first.is_for(settings) {
            if self.others.is_empty() {
                return None;
            }
            self.first = self.others.remove(0);
        } else {
            self.others.retain(|e| !e.is_for(settings));
        }
        Some(self)
    }
}

/// Are `a` and `b` one settings file: the same spelling, the same file,
/// or (one not there yet) the same name in the same folder, through links.
fn same_place(a: &Path, b: &Path) -> bool {
    if a == b || crate::registry::scopes::same_file(a, b) {
        return true;
    }
    let folder = |p: &Path| p.parent().and_then(|d| std::fs::canonicalize(d).ok());
    a.file_name() == b.file_name() && folder(a).is_some_and(|d| Some(d) == folder(b))
}

/// What the record at `path` notes of one settings file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Noted {
    pub containers: Vec<EmptyContainer>,
    pub rules: Vec<String>,
    pub blank: Option<String>,
    /// settings.json did not exist before install.
    pub created: bool,
}

/// The containers the record at `path` notes for `settings`: none when
/// there is no record, or when it cannot be read as one (it is gk's own
/// note; a broken one is replaced by install and removed by uninstall).
#[cfg(test)]
pub fn read(path: &Path, settings: &Path) -> Result<Vec<EmptyContainer>> {
    Ok(read_all(path, settings)?.containers)
}

/// Everything the record at `path` notes for `settings` (see [`read`]).
pub fn read_all(path: &Path, settings: &Path) -> Result<Noted> {
    let r = parse_record(read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?.as_deref());
    let e = r.entry(settings).cloned().unwrap_or_default();
    Ok(Noted {
        containers: e.empty_before_install,
        rules: e.rules_before_install,
        blank: e.blank_before_install,
        created: e.created_by_install,
    })
}

fn parse_record(bytes: Option<&[u8]>) -> Record {
    record_in(bytes).unwrap_or_default()
}

/// The record `bytes` hold; `None` when there are none or they are no
/// record (empty, not JSON, `{}`).
fn record_in(bytes: Option<&[u8]>) -> Option<Record> {
    bytes.and_then(|b| serde_json::from_slice::<Record>(b).ok())
}

fn record_text(mut record: Record) -> String {
    record.about = ABOUT.to_string();
    serde_json::to_string_pretty(&record).unwrap_or_default() + "\n"
}

/// The change that adds `filled` to what the record at `path` notes for
/// `settings` (what is noted already stays: a container is only ever
/// empty before the first install), an unchanged one when there is nothing
/// new to note (the record is still part of the plan: checked at write,
/// and a killed run's temp file beside it swept); also noting `rules` as
/// there before install (added to what is noted already) and, when
/// settings.json was blank, its text; `created`: settings.json is not
/// there yet (a note that exists already keeps what it says: the first
/// install is the one that made the file). Another settings file's note
/// (a Claude folder sharing this hooks folder) is kept as it is.
pub fn note_with_rules(
    path: &Path,
    settings: &Path,
    filled: &[EmptyContainer],
    rules: &[String],
    blank: Option<&str>,
    created: bool,
) -> Result<FileChange> {
    let old = read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?;
    let found = record_in(old.as_deref());
    let noted = found.as_ref().is_some_and(|r| r.entry(settings).is_some());
    let mut record = found.unwrap_or_default();
    let before = record.clone();
    let entry = record.entry_mut(settings);
    let fresh = !noted;
    if entry.settings.is_none() || fresh {
        entry.settings = Some(settings.to_string_lossy().into_owned());
    }
    if entry.blank_before_install.is_none() {
        entry.blank_before_install = blank.map(str::to_string);
    }
    if fresh && created {
        entry.created_by_install = true;
    }
    for c in filled {
        if !entry.empty_before_install.iter().any(|n| n.at == c.at) {
            entry.empty_before_install.push(c.clone());
        }
    }
    for r in rules {
        if !entry.rules_before_install.contains(r) {
            entry.rules_before_install.push(r.clone());
        }
    }
    let something = *entry
        != Entry {
            settings: entry.settings.clone(),
            ..Entry::default()
        };
    // No note yet: this run is the first to put gk in here, and the
    // record says so even with nothing else to note (gk's rules found
    // later without its hooks, as after a `--fix` that gave them to a
    // plugin, are then gk's own, not the user's). A file there that is no
    // record (empty, not JSON) is replaced; a link to nothing is left as
    // it is unless there is something to note (gk would create a file
    // wherever it points, and uninstall removes the link, not that file).
    let dangling = old.is_none() && std::fs::symlink_metadata(path).is_ok();
    if record == before || (dangling && !something) {
        let mut same = FileChange::text(path, None, None, "install's note");
        same.new.clone_from(&old);
        same.old = old;
        return Ok(same);
    }
    let reason = if something {
        "what settings.json held before gk, for uninstall"
    } else {
        "that gk was installed here, for uninstall"
    };
    let mut change = FileChange::text(path, None, Some(record_text(record)), reason);
    change.old = old;
    Ok(change)
}

/// Is there a record at `path` that gk can read, with a note of
/// `settings`, so gk was installed there? A file that is no record (empty,
/// not JSON, `{}`) says nothing, nor does another settings file's note.
pub fn is_there(path: &Path, settings: &Path) -> Result<bool> {
    let bytes = read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?;
    Ok(record_in(bytes.as_deref()).is_some_and(|r| r.entry(settings).is_some()))
}

/// The settings files, other than `settings`, whose notes the record at
/// `path` holds and that are still there: Claude folders sharing this
/// hooks folder, where gk is installed too.
pub fn others(path: &Path, settings: &Path) -> Result<Vec<std::path::PathBuf>> {
    let bytes = read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?;
    let Some(record) = record_in(bytes.as_deref()) else {
        return Ok(Vec::new());
    };
    Ok(std::iter::once(&record.first)
        .chain(&record.others)
        .filter(|e| !e.is_for(settings))
        .filter_map(|e| e.settings.as_deref().map(std::path::PathBuf::from))
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .collect())
}

/// The change that removes the note of `settings` from the record at
/// `path`, and the record with it when no other settings file's note is
/// left in it (a file there that is no record goes too); an unchanged one
/// when there is none (still checked at write, and a killed run's temp
/// file beside it swept).
pub fn remove(path: &Path, settings: &Path) -> Result<FileChange> {
    let old = read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?;
    let mut change = FileChange::text(path, None, None, "install's note, used up");
    match record_in(old.as_deref()) {
        // No note of this settings file: the record stays as it is.
        Some(r) if r.entry(settings).is_none() => change.new.clone_from(&old),
        Some(r) => {
            if let Some(left) = r.without(settings) {
                change.new = Some(record_text(left).into_bytes());
                change.reason = "install's note: this folder's part used up".into();
            }
        }
        None => {}
    }
    change.old = old;
    // gk's own note: nothing to give back, so no backup of it.
    change.strategy = crate::change::plan::ReplaceStrategy::NoBackup;
    Ok(change)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(at: &[&str], inside: &str) -> EmptyContainer {
        EmptyContainer {
            at: at.iter().map(|s| s.to_string()).collect(),
            inside: inside.into(),
        }
    }

    #[test]
    fn notes_merge_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gk-install.json");
        let s = dir.path().join("settings.json");
        assert_eq!(read(&path, &s).unwrap(), vec![]);
        // The first run to put gk in writes the record, even with nothing
        // else to note; after that, nothing new to note changes nothing.
        let here = note_with_rules(&path, &s, &[], &[], None, false).unwrap();
        assert_eq!((here.old.is_none(), here.new.is_some()), (true, true));
        std::fs::write(&path, here.new.as_ref().unwrap()).unwrap();
        assert_eq!(read(&path, &s).unwrap(), vec![]);
        let nothing = note_with_rules(&path, &s, &[], &[], None, false).unwrap();
        assert!(!nothing.changes_something());
        std::fs::remove_file(&path).unwrap();
        let first = note_with_rules(&path, &s, &[c(&["hooks"], " ")], &[], None, false).unwrap();
        assert_eq!(first.old, None);
        std::fs::write(&path, first.new.as_ref().unwrap()).unwrap();
        assert_eq!(read(&path, &s).unwrap(), vec![c(&["hooks"], " ")]);
        // Noted already: nothing to change; a new one is added after it.
        let same = note_with_rules(&path, &s, &[c(&["hooks"], "")], &[], None, false).unwrap();
        assert!(!same.changes_something());
        assert_eq!(same.old, same.new);
        let second =
            note_with_rules(&path, &s, &[c(&["hooks", "Stop"], "")], &[], None, false).unwrap();
        assert_eq!(
            parse_record(second.new.as_deref())
                .first
                .empty_before_install,
            vec![c(&["hooks"], " "), c(&["hooks", "Stop"], "")]
        );
        assert!(remove(&path, &s).unwrap().new.is_none());
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(read(&path, &s).unwrap(), vec![]);
    }

    #[test]
    fn two_settings_files_sharing_the_record_keep_their_own_notes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gk-install.json");
        std::fs::create_dir_all(dir.path().join("a")).unwrap();
        std::fs::create_dir_all(dir.path().join("b")).unwrap();
        let a = dir.path().join("a/settings.json");
        let b = dir.path().join("b/settings.json");
        let rule = vec!["Write(x)".to_string()];
        let write = |c: &FileChange| std::fs::write(&path, c.new.as_ref().unwrap()).unwrap();
        write(&note_with_rules(&path, &a, &[], &[], None, true).unwrap());
        assert!(is_there(&path, &a).unwrap());
        assert!(!is_there(&path, &b).unwrap());
        write(&note_with_rules(&path, &b, &[c(&["hooks"], "")], &rule, None, false).unwrap());
        let (na, nb) = (read_all(&path, &a).unwrap(), read_all(&path, &b).unwrap());
        assert_eq!(
            (na.created, na.rules.len(), na.containers.len()),
            (true, 0, 0)
        );
        assert_eq!(
            (nb.created, &nb.rules, nb.containers.len()),
            (false, &rule, 1)
        );
        // The same folder spelt through a link is the same note.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("l")).unwrap();
            assert!(is_there(&path, &dir.path().join("l/settings.json")).unwrap());
        }
        std::fs::write(&b, "{}").unwrap();
        assert_eq!(others(&path, &a).unwrap(), vec![b.clone()]);
        // Uninstall from one folder leaves the other's note.
        let gone_a = remove(&path, &a).unwrap();
        write(&gone_a);
        assert!(!is_there(&path, &a).unwrap());
        assert_eq!(read_all(&path, &b).unwrap(), nb);
        // Nothing noted of a folder: the record stays as it is.
        assert!(!remove(&path, &a).unwrap().changes_something());
        assert!(remove(&path, &b).unwrap().new.is_none());
    }

    #[test]
    fn a_record_from_before_it_named_its_file_is_about_any_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gk-install.json");
        let s = dir.path().join("settings.json");
        let older = r#"{"about": "x", "empty_before_install": [], "created_by_install": true}"#;
        std::fs::write(&path, older).unwrap();
        assert!(read_all(&path, &s).unwrap().created);
        // The next install names it.
        let named = note_with_rules(&path, &s, &[], &[], None, false).unwrap();
        let named = parse_record(named.new.as_deref());
        assert_eq!(named.first.settings.as_deref(), s.to_str());
        assert!(named.first.created_by_install);
        assert!(remove(&path, &s).unwrap().new.is_none());
    }
}
