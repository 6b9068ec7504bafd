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

/// What the record at `path` notes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Noted {
    pub containers: Vec<EmptyContainer>,
    pub rules: Vec<String>,
    pub blank: Option<String>,
    /// settings.json did not exist before install.
    pub created: bool,
}

/// The containers noted in the record at `path`: none when there is no
/// record, or when it cannot be read as one (it is gk's own note; a broken
/// one is replaced by install and removed by uninstall).
#[cfg(test)]
pub fn read(path: &Path) -> Result<Vec<EmptyContainer>> {
    Ok(read_all(path)?.containers)
}

/// Everything the record at `path` notes (see [`read`]).
pub fn read_all(path: &Path) -> Result<Noted> {
    let r = parse_record(read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?.as_deref());
    Ok(Noted {
        containers: r.empty_before_install,
        rules: r.rules_before_install,
        blank: r.blank_before_install,
        created: r.created_by_install,
    })
}

#[cfg(test)]
fn parse(bytes: Option<&[u8]>) -> Vec<EmptyContainer> {
    parse_record(bytes).empty_before_install
}

fn parse_record(bytes: Option<&[u8]>) -> Record {
    record_in(bytes).unwrap_or_default()
}

/// The record `bytes` hold; `None` when there are none or they are no
/// record (empty, not JSON, `{}`).
fn record_in(bytes: Option<&[u8]>) -> Option<Record> {
    bytes.and_then(|b| serde_json::from_slice::<Record>(b).ok())
}

/// The change that adds `filled` to the record at `path` (what is noted
/// already stays: a container is only ever empty before the first install),
/// an unchanged one when there is nothing new to note (the record is still
/// part of the plan: checked at write, and a killed run's temp file beside
/// it swept); also noting `rules` as
/// there before install (added to what is noted already) and, when
/// settings.json was blank, its text; `created`:
/// settings.json is not there yet (a record that exists already keeps
/// what it says: the first install is the one that made the file).
pub fn note_with_rules(
    path: &Path,
    filled: &[EmptyContainer],
    rules: &[String],
    blank: Option<&str>,
    created: bool,
) -> Result<FileChange> {
    let old = read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?;
    let found = record_in(old.as_deref());
    let readable = found.is_some();
    let mut record = found.unwrap_or_default();
    let before = record.clone();
    if record.blank_before_install.is_none() {
        record.blank_before_install = blank.map(str::to_string);
    }
    if old.is_none() && created {
        record.created_by_install = true;
    }
    for c in filled {
        if !record.empty_before_install.iter().any(|n| n.at == c.at) {
            record.empty_before_install.push(c.clone());
        }
    }
    for r in rules {
        if !record.rules_before_install.contains(r) {
            record.rules_before_install.push(r.clone());
        }
    }
    // No record yet: this run is the first to put gk in here, and the
    // record says so even with nothing else to note (gk's rules found
    // later without its hooks, as after a `--fix` that gave them to a
    // plugin, are then gk's own, not the user's). A file there that is no
    // record (empty, not JSON) is replaced; a link to nothing is left as
    // it is unless there is something to note (gk would create a file
    // wherever it points, and uninstall removes the link, not that file).
    let dangling = old.is_none() && std::fs::symlink_metadata(path).is_ok();
    if record == before && (readable || dangling) {
        let mut same = FileChange::text(path, None, None, "install's note");
        same.new.clone_from(&old);
        same.old = old;
        return Ok(same);
    }
    let reason = if record == Record::default() {
        "that gk was installed here, for uninstall"
    } else {
        "what settings.json held before gk, for uninstall"
    };
    record.about = ABOUT.to_string();
    let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
    let mut change = FileChange::text(path, None, Some(text), reason);
    change.old = old;
    Ok(change)
}

/// Is there a record at `path` that gk can read, so gk was installed here?
/// A file that is no record (empty, not JSON, `{}`) says nothing.
pub fn is_there(path: &Path) -> Result<bool> {
    let bytes = read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?;
    Ok(record_in(bytes.as_deref()).is_some())
}

/// The change that removes the record at `path`; an unchanged one when
/// there is none (still checked at write, and a killed run's temp file
/// beside it swept).
pub fn remove(path: &Path) -> Result<FileChange> {
    let mut change = FileChange::text(path, None, None, "install's note, used up");
    change.old = read_current(path, crate::hooks::config::MAX_CONFIG_BYTES)?;
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
        assert_eq!(read(&path).unwrap(), vec![]);
        // The first run to put gk in writes the record, even with nothing
        // else to note; after that, nothing new to note changes nothing.
        let here = note_with_rules(&path, &[], &[], None, false).unwrap();
        assert_eq!((here.old.is_none(), here.new.is_some()), (true, true));
        std::fs::write(&path, here.new.as_ref().unwrap()).unwrap();
        assert_eq!(read(&path).unwrap(), vec![]);
        let nothing = note_with_rules(&path, &[], &[], None, false).unwrap();
        assert!(!nothing.changes_something());
        std::fs::remove_file(&path).unwrap();
        let first = note_with_rules(&path, &[c(&["hooks"], " ")], &[], None, false).unwrap();
        assert_eq!(first.old, None);
        std::fs::write(&path, first.new.as_ref().unwrap()).unwrap();
        assert_eq!(read(&path).unwrap(), vec![c(&["hooks"], " ")]);
        // Noted already: nothing to change; a new one is added after it.
        let same = note_with_rules(&path, &[c(&["hooks"], "")], &[], None, false).unwrap();
        assert!(!same.changes_something());
        assert_eq!(same.old, same.new);
        let second =
            note_with_rules(&path, &[c(&["hooks", "Stop"], "")], &[], None, false).unwrap();
        assert_eq!(
            parse(second.new.as_deref()),
            vec![c(&["hooks"], " "), c(&["hooks", "Stop"], "")]
        );
        assert!(remove(&path).unwrap().new.is_none());
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(read(&path).unwrap(), vec![]);
    }
}
