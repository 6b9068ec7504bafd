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

use std::path::{Path, PathBuf};

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

/// Who asks: the record's path and the settings file whose note is
/// wanted.
#[derive(Clone, Copy)]
struct Here<'a> {
    record: &'a Path,
    settings: &'a Path,
}

impl Here<'_> {
    /// Is the asking folder's `hooks` a folder of its own (not a link), so
    /// the record in it is physically this folder's?
    fn own_hooks(self) -> bool {
        (self.settings.parent())
            .and_then(|d| std::fs::symlink_metadata(d.join("hooks")).ok())
            .is_some_and(|m| m.is_dir())
    }

    /// Is the folder that physically holds this hooks folder (after
    /// links) a Claude folder other than the asking one: its settings.json
    /// is there and is not the asking one's? Then a note that names no
    /// file is most likely that folder's (two folders sharing one hooks
    /// folder); otherwise (a dotfiles folder with no settings of its own)
    /// it is the asking folder's.
    fn another_folder_holds_the_record(self) -> bool {
        let Some(holder) = (self.record.parent())
            .and_then(|d| std::fs::canonicalize(d).ok())
            .and_then(|d| d.parent().map(|p| p.join("settings.json")))
        else {
            return false;
        };
        std::fs::symlink_metadata(&holder).is_ok() && !same_place(&holder, self.settings)
    }

    /// Is `e` the note of another Claude folder that runs from this hooks
    /// folder: it names a settings file that is there, whose folder's
    /// `hooks` is the folder that holds the record?
    fn lives_elsewhere(self, e: &Entry) -> bool {
        let Some(name) = e.settings.as_deref().map(Path::new) else {
            return false;
        };
        let here = self.record.parent();
        std::fs::symlink_metadata(name).is_ok()
            && (name.parent().zip(here)).is_some_and(|(dir, here)| {
                crate::registry::scopes::same_file(&dir.join("hooks"), here)
            })
    }
}

/// A note found for a settings file, and whether its "install created
/// settings.json" may be believed (a note found by anything but its own
/// name is not trusted to delete a file).
#[derive(Clone, Copy)]
struct Found {
    at: usize,
    sure: bool,
}

impl Record {
    fn entries(&self) -> impl Iterator<Item = &Entry> {
        std::iter::once(&self.first).chain(&self.others)
    }

    /// Where the note of `here.settings` is (0: `first`, then `others`):
    /// the one that names it; else one from before notes named their file
    /// (sure only in a folder whose `hooks` is its own, not a link); else,
    /// in a folder whose `hooks` is its own, the first note no other folder
    /// running from there owns (it came with the folder, copied or moved).
    fn find(&self, here: Here) -> Option<Found> {
        let named = |e: &Entry| {
            (e.settings.as_deref()).is_some_and(|n| same_place(Path::new(n), here.settings))
        };
        if let Some(at) = self.entries().position(named) {
            return Some(Found { at, sure: true });
        }
        let own = here.own_hooks();
        if let Some(at) = self.entries().position(|e| e.settings.is_none()) {
            let sure = own || !here.another_folder_holds_the_record();
            return Some(Found { at, sure });
        }
        let came = |e: &Entry| !here.lives_elsewhere(e);
        (self.entries().position(came))
            .filter(|_| own)
            .map(|at| Found { at, sure: false })
    }

    /// The note of `here.settings`, if the record has one, as it may be
    /// believed.
    fn entry(&self, here: Here) -> Option<Entry> {
        let found = self.find(here)?;
        let mut e = self.entries().nth(found.at)?.clone();
        e.created_by_install &= found.sure;
        Some(e)
    }

    /// The note of `here.settings` (named so), added after the others when
    /// there is none; and whether there was one.
    fn entry_mut(&mut self, here: Here) -> (&mut Entry, bool) {
        let found = self.find(here);
        let e = match found {
            Some(Found { at: 0, .. }) => &mut self.first,
            Some(Found { at, .. }) => &mut self.others[at - 1],
            None => {
                self.others.push(Entry::default());
                self.others.last_mut().expect("just pushed")
            }
        };
        if found.is_some_and(|f| !f.sure) {
            e.created_by_install = false;
        }
        e.settings = Some(here.settings.to_string_lossy().into_owned());
        (e, found.is_some())
    }

    /// The record without the note of `here.settings`, and without notes
    /// of folders that no longer run from this hooks folder (gone, their
    /// settings.json gone, or their `hooks` no longer a link here): only
    /// live folders' notes and unnamed ones (whose folder is not known)
    /// stay; `None` when nothing is left in it.
    fn without(self, here: Here) -> Option<Record> {
        let own = self.find(here).map(|f| f.at);
        let stays = |e: &Entry| e.settings.is_none() || here.lives_elsewhere(e);
        let mut left = (self.entries().enumerate())
            .filter(|&(i, e)| Some(i) != own && stays(e))
            .map(|(_, e)| e.clone());
        let first = left.next()?;
        Some(Record {
            about: self.about.clone(),
            first,
            others: left.collect(),
        })
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
    /// There is a note of this settings file: gk was installed there.
    pub there: bool,
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

/// The record at `path`, read once: what a plan reads of it and the change
/// it makes to it come from the same bytes (and the write is checked
/// against them).
pub struct Loaded<'p> {
    path: &'p Path,
    bytes: Option<Vec<u8>>,
}

/// Reads the record at `path` (within the config read budget).
pub fn load(path: &Path) -> Result<Loaded<'_>> {
    Ok(Loaded {
        path,
        bytes: read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?,
    })
}

impl Loaded<'_> {
    fn here<'a>(&'a self, settings: &'a Path) -> Here<'a> {
        Here {
            record: self.path,
            settings,
        }
    }

    /// What the record notes for `settings`: nothing when there is no
    /// record, or when it cannot be read as one (it is gk's own note; a
    /// broken one is replaced by install and removed by uninstall).
    pub fn noted(&self, settings: &Path) -> Noted {
        // Only a record that parses counts (a default one would "find" its
        // empty first note for any folder).
        let Some(e) = record_in(self.bytes.as_deref()).and_then(|r| r.entry(self.here(settings)))
        else {
            return Noted::default();
        };
        Noted {
            containers: e.empty_before_install,
            rules: e.rules_before_install,
            blank: e.blank_before_install,
            created: e.created_by_install,
            there: true,
        }
    }

    /// The change that adds `filled` to what the record notes for
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
        &self,
        settings: &Path,
        filled: &[EmptyContainer],
        rules: &[String],
        blank: Option<&str>,
        created: bool,
    ) -> FileChange {
        let path = self.path;
        let old = self.bytes.clone();
        let found = record_in(old.as_deref());
        let here = self.here(settings);
        // Only a record that parses can hold a note (a default one's empty
        // first note would be "found" for any folder).
        let parsed = found.is_some();
        let mut record = found.unwrap_or_default();
        let before = record.clone();
        let (entry, was_there) = record.entry_mut(here);
        let fresh = !(parsed && was_there);
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
            return same;
        }
        let reason = if something {
            "what settings.json held before gk, for uninstall"
        } else {
            "that gk was installed here, for uninstall"
        };
        let mut change = FileChange::text(path, None, Some(record_text(record)), reason);
        change.old = old;
        change
    }

    /// The settings files of other Claude folders that run from this hooks
    /// folder (a link from one to the other) and whose notes the record
    /// holds: gk is installed there too, and their hooks run the program
    /// here.
    pub fn others(&self, settings: &Path) -> Vec<PathBuf> {
        let Some(record) = record_in(self.bytes.as_deref()) else {
            return Vec::new();
        };
        let here = self.here(settings);
        let own = record.find(here).map(|f| f.at);
        (record.entries().enumerate())
            .filter(|&(i, e)| Some(i) != own && here.lives_elsewhere(e))
            .filter_map(|(_, e)| e.settings.as_deref().map(PathBuf::from))
            .collect()
    }

    /// The change that removes the note of `settings` from the record,
    /// and the record with it when no other settings file's note is left
    /// in it (a file there that is no record goes too); an unchanged one
    /// when there is none (still checked at write, and a killed run's temp
    /// file beside it swept).
    pub fn remove(&self, settings: &Path) -> FileChange {
        let (path, old) = (self.path, self.bytes.clone());
        let mut change = FileChange::text(path, None, None, "install's note, used up");
        // gk's own note: nothing to give back, so no backup of it; and
        // another run's write since the plan stops this one (the note may
        // now name another folder whose hooks run the program).
        change.strategy = crate::change::plan::ReplaceStrategy::OwnNoBackup;
        let here = self.here(settings);
        match record_in(old.as_deref()) {
            // No note of this settings file: the record stays as it is.
            Some(r) if r.entry(here).is_none() => change.new.clone_from(&old),
            Some(r) => {
                if let Some(left) = r.without(here) {
                    // Rewritten as install writes it (one rename over it, a
                    // backup kept, and a run that changed it since the plan
                    // stops this one), never removed and written anew: the
                    // other folders' notes are in it.
                    change.new = Some(record_text(left).into_bytes());
                    change.reason = "install's note: this folder's part used up".into();
                    change.strategy = crate::change::plan::ReplaceStrategy::InPlace;
                }
            }
            None => {}
        }
        change.old = old;
        change
    }
}

// The same, from the record's path, for the tests.

#[cfg(test)]
pub fn read(path: &Path, settings: &Path) -> Result<Vec<EmptyContainer>> {
    Ok(read_all(path, settings)?.containers)
}

#[cfg(test)]
pub fn read_all(path: &Path, settings: &Path) -> Result<Noted> {
    Ok(load(path)?.noted(settings))
}

#[cfg(test)]
pub fn note_with_rules(
    path: &Path,
    settings: &Path,
    filled: &[EmptyContainer],
    rules: &[String],
    blank: Option<&str>,
    created: bool,
) -> Result<FileChange> {
    Ok(load(path)?.note_with_rules(settings, filled, rules, blank, created))
}

#[cfg(test)]
pub fn others(path: &Path, settings: &Path) -> Result<Vec<PathBuf>> {
    Ok(load(path)?.others(settings))
}

#[cfg(test)]
pub fn remove(path: &Path, settings: &Path) -> Result<FileChange> {
    Ok(load(path)?.remove(settings))
}

#[cfg(test)]
fn parse_record(bytes: Option<&[u8]>) -> Record {
    record_in(bytes).unwrap_or_default()
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

    /// `c` written as the plan would write it (the record's new text).
    #[cfg(unix)]
    fn write(c: &FileChange) {
        std::fs::write(&c.path, c.new.as_ref().unwrap()).unwrap();
    }

    /// Two Claude folders, `a` and `b`, `b/hooks` a link to `a/hooks`
    /// (where the record is), and their settings files.
    #[cfg(unix)]
    fn shared(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
        std::fs::create_dir_all(dir.join("a/hooks")).unwrap();
        std::fs::create_dir_all(dir.join("b")).unwrap();
        std::os::unix::fs::symlink(dir.join("a/hooks"), dir.join("b/hooks")).unwrap();
        let path = dir.join("a/hooks/gk-install.json");
        (
            path,
            dir.join("a/settings.json"),
            dir.join("b/settings.json"),
        )
    }

    #[cfg(unix)]
    #[test]
    fn two_settings_files_sharing_the_record_keep_their_own_notes() {
        let dir = tempfile::tempdir().unwrap();
        let (path, a, b) = shared(dir.path());
        let rule = vec!["Write(x)".to_string()];
        write(&note_with_rules(&path, &a, &[], &[], None, true).unwrap());
        std::fs::write(&a, "{}").unwrap();
        assert!(read_all(&path, &a).unwrap().there);
        assert!(!read_all(&path, &b).unwrap().there);
        write(&note_with_rules(&path, &b, &[c(&["hooks"], "")], &rule, None, false).unwrap());
        std::fs::write(&b, "{}").unwrap();
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
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("l")).unwrap();
        assert_eq!(
            read_all(&path, &dir.path().join("l/settings.json")).unwrap(),
            na
        );
        assert_eq!(others(&path, &a).unwrap(), vec![b.clone()]);
        assert_eq!(others(&path, &b).unwrap(), vec![a.clone()]);
        // Uninstall from one folder leaves the other's note, rewritten in
        // one rename.
        let gone_a = remove(&path, &a).unwrap();
        assert_eq!(
            gone_a.strategy,
            crate::change::plan::ReplaceStrategy::InPlace
        );
        write(&gone_a);
        assert!(!read_all(&path, &a).unwrap().there);
        assert_eq!(read_all(&path, &b).unwrap(), nb);
        // Nothing noted of a folder: the record stays as it is.
        assert!(!remove(&path, &a).unwrap().changes_something());
        assert!(remove(&path, &b).unwrap().new.is_none());
    }

    #[test]
    fn a_note_that_came_with_its_folder_copied_or_moved_is_the_new_folders() {
        // The record names the folder it was written in; the folder is
        // copied (a second profile made from the first) or moved.
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old");
        std::fs::create_dir_all(old.join("hooks")).unwrap();
        let rule = vec!["Write(x)".to_string()];
        let note = note_with_rules(
            &old.join("hooks/gk-install.json"),
            &old.join("settings.json"),
            &[],
            &rule,
            None,
            false,
        )
        .unwrap();
        std::fs::write(old.join("settings.json"), "{}").unwrap();
        std::fs::write(old.join("hooks/gk-install.json"), note.new.unwrap()).unwrap();
        let copy = dir.path().join("copy");
        std::fs::create_dir_all(copy.join("hooks")).unwrap();
        std::fs::copy(
            old.join("hooks/gk-install.json"),
            copy.join("hooks/gk-install.json"),
        )
        .unwrap();
        let (path, settings) = (
            copy.join("hooks/gk-install.json"),
            copy.join("settings.json"),
        );
        assert_eq!(read_all(&path, &settings).unwrap().rules, rule);
        // No other folder runs from the copy's hooks folder.
        assert_eq!(others(&path, &settings).unwrap(), Vec::<PathBuf>::new());
        assert!(remove(&path, &settings).unwrap().new.is_none());
        // The next install there names the copy.
        let named = note_with_rules(&path, &settings, &[], &[], None, false).unwrap();
        let named = parse_record(named.new.as_deref());
        assert_eq!(named.first.settings.as_deref(), settings.to_str());
        assert_eq!(named.first.rules_before_install, rule);
        assert!(named.others.is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_note_from_before_notes_named_their_file_deletes_nothing_through_a_link() {
        // Written by an older gk in `a` (settings.json created by it);
        // `b`'s hooks folder is a link to `a`'s. The note is believed to
        // say "install created settings.json" only in a folder whose hooks
        // folder is its own: `b` never deletes its settings.json for it.
        let dir = tempfile::tempdir().unwrap();
        let (path, a, b) = shared(dir.path());
        let older = r#"{"about": "x", "empty_before_install": [], "created_by_install": true}"#;
        std::fs::write(&path, older).unwrap();
        std::fs::write(&a, "{}").unwrap();
        std::fs::write(&b, "{}").unwrap();
        assert!(read_all(&path, &a).unwrap().created);
        assert!(!read_all(&path, &b).unwrap().created);
        let by_b = note_with_rules(&path, &b, &[], &[], None, false).unwrap();
        std::fs::write(&path, by_b.new.unwrap()).unwrap();
        assert!(!read_all(&path, &b).unwrap().created);
    }

    #[cfg(unix)]
    #[test]
    fn a_note_from_before_in_a_dotfiles_hooks_folder_is_the_one_folders() {
        // ~/.claude/hooks is a link into a dotfiles folder that holds no
        // settings of its own; an older gk created settings.json: the
        // note is believed, so uninstall removes the file it created.
        let dir = tempfile::tempdir().unwrap();
        let dots = dir.path().join("dotfiles/claude/hooks");
        std::fs::create_dir_all(&dots).unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::os::unix::fs::symlink(&dots, dir.path().join(".claude/hooks")).unwrap();
        let path = dir.path().join(".claude/hooks/gk-install.json");
        let older = r#"{"about": "x", "empty_before_install": [], "created_by_install": true}"#;
        std::fs::write(&path, older).unwrap();
        let settings = dir.path().join(".claude/settings.json");
        std::fs::write(&settings, "{}").unwrap();
        assert!(read_all(&path, &settings).unwrap().created);
        let named = note_with_rules(&path, &settings, &[], &[], None, false).unwrap();
        std::fs::write(&path, named.new.unwrap()).unwrap();
        assert!(read_all(&path, &settings).unwrap().created);
    }

    #[cfg(unix)]
    #[test]
    fn a_note_of_a_folder_whose_link_was_taken_away_goes_with_the_next_uninstall() {
        let dir = tempfile::tempdir().unwrap();
        let (path, a, b) = shared(dir.path());
        write(&note_with_rules(&path, &a, &[], &[], None, false).unwrap());
        write(&note_with_rules(&path, &b, &[], &["Write(x)".into()], None, false).unwrap());
        std::fs::write(&a, "{}").unwrap();
        std::fs::write(&b, "{}").unwrap();
        assert_eq!(others(&path, &a).unwrap(), vec![b.clone()]);
        // `b` keeps its settings but no longer runs from here.
        std::fs::remove_file(dir.path().join("b/hooks")).unwrap();
        assert_eq!(others(&path, &a).unwrap(), Vec::<PathBuf>::new());
        assert!(remove(&path, &a).unwrap().new.is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_linked_to_a_shared_hooks_folder_never_takes_a_gone_folders_note() {
        // `b` was installed beside `a`, then removed; `c` links its hooks
        // folder to `a`'s: `b`'s note is not `c`'s, and the next uninstall
        // beside it drops it.
        let dir = tempfile::tempdir().unwrap();
        let (path, a, b) = shared(dir.path());
        write(&note_with_rules(&path, &a, &[], &[], None, false).unwrap());
        write(&note_with_rules(&path, &b, &[], &[], None, true).unwrap());
        std::fs::write(&a, "{}").unwrap();
        std::fs::remove_dir_all(dir.path().join("b")).unwrap();
        let c = dir.path().join("c/settings.json");
        std::fs::create_dir_all(dir.path().join("c")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("a/hooks"), dir.path().join("c/hooks")).unwrap();
        std::fs::write(&c, "{}").unwrap();
        assert!(!read_all(&path, &c).unwrap().there);
        assert!(remove(&path, &a).unwrap().new.is_none());
    }

    #[test]
    fn a_record_from_before_notes_named_their_file_is_the_folders_it_is_in() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("hooks")).unwrap();
        let path = dir.path().join("hooks/gk-install.json");
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
