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

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::apply::read_current;
use super::plan::FileChange;
use super::settings_edit::EmptyContainer;
use crate::error::Result;

const ABOUT: &str = "Written by gk install: containers of settings.json that were empty before gk put its hooks in them. gk uninstall gives them back as they were and removes this file.";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Record {
    about: String,
    empty_before_install: Vec<EmptyContainer>,
}

/// The containers noted in the record at `path`: none when there is no
/// record, or when it cannot be read as one (it is gk's own note; a broken
/// one is replaced by install and removed by uninstall).
pub fn read(path: &Path) -> Result<Vec<EmptyContainer>> {
    Ok(parse(
        read_current(path, crate::hooks::MAX_CONFIG_BYTES)?.as_deref(),
    ))
}

fn parse(bytes: Option<&[u8]>) -> Vec<EmptyContainer> {
    bytes
        .and_then(|b| serde_json::from_slice::<Record>(b).ok())
        .map(|r| r.empty_before_install)
        .unwrap_or_default()
}

/// The change that adds `filled` to the record at `path` (what is noted
/// already stays: a container is only ever empty before the first install),
/// or `None` when there is nothing new to note.
pub fn note(path: &Path, filled: &[EmptyContainer]) -> Result<Option<FileChange>> {
    let old = read_current(path, crate::hooks::MAX_CONFIG_BYTES)?;
    let mut noted = parse(old.as_deref());
    let before = noted.len();
    for c in filled {
        if !noted.iter().any(|n| n.at == c.at) {
            noted.push(c.clone());
        }
    }
    if noted.len() == before {
        return Ok(None);
    }
    let record = Record {
        about: ABOUT.to_string(),
        empty_before_install: noted,
    };
    let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
    let mut change = FileChange::text(
        path,
        None,
        Some(text),
        "which settings containers were empty before, for uninstall",
    );
    change.old = old;
    Ok(Some(change))
}

/// The change that removes the record at `path`, when there is one.
pub fn remove(path: &Path) -> Result<Option<FileChange>> {
    Ok(
        read_current(path, crate::hooks::MAX_CONFIG_BYTES)?.map(|old| {
            let mut change = FileChange::text(path, None, None, "install's note, used up");
            change.old = Some(old);
            change
        }),
    )
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
        assert_eq!(note(&path, &[]).unwrap(), None);
        let first = note(&path, &[c(&["hooks"], " ")]).unwrap().unwrap();
        assert_eq!(first.old, None);
        std::fs::write(&path, first.new.as_ref().unwrap()).unwrap();
        assert_eq!(read(&path).unwrap(), vec![c(&["hooks"], " ")]);
        // Noted already: nothing to change; a new one is added after it.
        assert_eq!(note(&path, &[c(&["hooks"], "")]).unwrap(), None);
        let second = note(&path, &[c(&["hooks", "Stop"], "")]).unwrap().unwrap();
        assert_eq!(
            parse(second.new.as_deref()),
            vec![c(&["hooks"], " "), c(&["hooks", "Stop"], "")]
        );
        assert!(remove(&path).unwrap().unwrap().new.is_none());
        std::fs::write(&path, "not json").unwrap();
        assert_eq!(read(&path).unwrap(), vec![]);
    }
}
