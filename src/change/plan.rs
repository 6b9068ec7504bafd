//! What a command is about to do to the user's files, as data: a [`Plan`] of
//! [`FileChange`]s, each holding the old and the new bytes. A plan is made
//! completely (every file read, every new text computed) before anything is
//! shown or written, so an error anywhere means nothing is written at all.
//! [`super::render`] shows a plan; [`super::apply`] writes it.

use std::path::{Path, PathBuf};

/// How a file is replaced when it already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaceStrategy {
    /// Atomic rename over the old file (fine on Unix, also for a running binary).
    InPlace,
    /// Move the old file aside first (`<name>.gk-old-<stamp>`): Windows cannot
    /// overwrite or delete an executable that is running, but can rename it.
    /// The moved copy is deleted at once unless it is still running.
    MoveAsideFirst,
    /// As `InPlace`, and no backup is kept: a task record. Its old content
    /// is worth nothing once replaced, and the state folder, which Claude
    /// may read and write, must hold task records and nothing else.
    NoBackup,
    /// As `NoBackup`, for a record in the state folder: a link at its name
    /// is never followed, at the plan or at the write. Claude writes that
    /// folder, so a link planted there (even between the plan and the
    /// write) must not make gk write or create a file somewhere else; the
    /// record is passed over instead, as one written again since the plan.
    FolderRecord,
    /// As `InPlace`, and no backup is kept: gk's own bookkeeping (the
    /// install record), which gives nothing back. Unlike a task record, a
    /// change since the plan stops the run: another run wrote it.
    OwnNoBackup,
    /// Remove a copy an earlier run moved aside, unless it is still running
    /// (then it stays, is reported, and a later run tries again).
    RemoveUnlessRunning,
}

impl ReplaceStrategy {
    /// A task record: no backup, and one written again since the plan is
    /// left as it is now (its session is at work) rather than stopping the
    /// run.
    pub fn is_record(self) -> bool {
        matches!(self, Self::NoBackup | Self::FolderRecord)
    }
}

/// One file a plan touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: PathBuf,
    /// Content when the plan was made; `None` when the file did not exist.
    pub old: Option<Vec<u8>>,
    /// Content to write; `None` removes the file.
    pub new: Option<Vec<u8>>,
    /// A program, not a text: described rather than diffed, no backup kept.
    pub binary: bool,
    /// Unix mode for a file that is created (an existing file keeps its own).
    pub create_mode: u32,
    pub strategy: ReplaceStrategy,
    /// Why this change is made, shown after the action ("register gk's hooks").
    pub reason: String,
}

/// What a [`FileChange`] amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Create,
    Edit,
    ReplaceBinary,
    Remove,
    NothingToDo,
}

impl ChangeKind {
    pub fn label(self) -> &'static str {
        match self {
            ChangeKind::Create => "create",
            ChangeKind::Edit => "edit",
            ChangeKind::ReplaceBinary => "replace",
            ChangeKind::Remove => "remove",
            ChangeKind::NothingToDo => "unchanged",
        }
    }
}

impl FileChange {
    /// A text file change (created with mode 0644 when new).
    pub fn text(
        path: impl Into<PathBuf>,
        old: Option<String>,
        new: Option<String>,
        reason: &str,
    ) -> FileChange {
        FileChange {
            path: path.into(),
            old: old.map(String::into_bytes),
            new: new.map(String::into_bytes),
            binary: false,
            create_mode: 0o644,
            strategy: ReplaceStrategy::InPlace,
            reason: reason.to_string(),
        }
    }

    pub fn kind(&self) -> ChangeKind {
        match (&self.old, &self.new) {
            (None, None) => ChangeKind::NothingToDo,
            (None, Some(_)) => ChangeKind::Create,
            (Some(_), None) => ChangeKind::Remove,
            (Some(a), Some(b)) if a == b => ChangeKind::NothingToDo,
            (Some(_), Some(_)) if self.binary => ChangeKind::ReplaceBinary,
            (Some(_), Some(_)) => ChangeKind::Edit,
        }
    }

    pub fn changes_something(&self) -> bool {
        self.kind() != ChangeKind::NothingToDo
    }
}

/// Everything one command is about to do, in the order it will be done.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Shown as the first line ("gk install", "gk doctor --fix").
    pub title: String,
    pub changes: Vec<FileChange>,
    /// What to say after the title when nothing changes; `None`: "nothing
    /// to do, every file is up to date".
    pub idle: Option<String>,
    /// Keep a backup of every text file changed (see `super::backup`);
    /// only `gk uninstall --purge`, which removes gk's backups, says no.
    pub keep_backups: bool,
    /// Folders of gk's own to make private to the user (the state folder):
    /// created 0700 when missing, set to 0700 when others may read them.
    pub folders: Vec<FolderChange>,
    /// Folders of gk's that the plan's removals may leave empty: each is
    /// removed after the files are written, only when it is empty then
    /// (never through a link, never with anything in it).
    pub empty_folders: Vec<PathBuf>,
}

/// A folder a plan makes private ([`Plan::folders`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderChange {
    pub path: PathBuf,
    /// Its mode now; `None`: it is missing.
    pub mode: Option<u32>,
}

impl FolderChange {
    /// What making `path` private takes, as it is now: `None` when nothing
    /// (already private; or a link or a file there, which is left alone;
    /// or, where there are no modes, it exists).
    pub fn private(path: &Path) -> Option<FolderChange> {
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(FolderChange {
                path: path.to_path_buf(),
                mode: None,
            }),
            Ok(meta) if meta.is_dir() => {
                let mode = folder_mode(&meta)?;
                (mode & 0o077 != 0).then(|| FolderChange {
                    path: path.to_path_buf(),
                    mode: Some(mode),
                })
            }
            _ => None,
        }
    }
}

#[cfg(unix)]
fn folder_mode(meta: &std::fs::Metadata) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    Some(meta.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn folder_mode(_meta: &std::fs::Metadata) -> Option<u32> {
    None
}

impl Plan {
    pub fn new(title: &str) -> Plan {
        Plan {
            title: title.to_string(),
            changes: Vec::new(),
            idle: None,
            keep_backups: true,
            folders: Vec::new(),
            empty_folders: Vec::new(),
        }
    }

    /// Say `message` instead of "nothing to do, every file is up to date"
    /// when nothing changes ("gk is not installed in …; nothing to remove").
    pub fn when_idle(mut self, message: impl Into<String>) -> Plan {
        self.idle = Some(message.into());
        self
    }

    pub fn push(&mut self, change: FileChange) {
        self.changes.push(change);
    }

    pub fn is_empty_of_changes(&self) -> bool {
        !self.changes.iter().any(FileChange::changes_something) && self.folders.is_empty()
    }
}

/// FNV-1a 64: enough to tell two builds apart on screen (not a security check).
/// The bytes are often a whole program (tens of MB in a debug build, which
/// the tests install again and again), so the loop is written for an
/// unoptimised build too: a word read at a time, plain `while` loops, and
/// the multiplication done in `u128` and cut to 64 bits (what
/// `wrapping_mul` gives, without a call per byte).
pub fn fingerprint(bytes: &[u8]) -> u64 {
    const PRIME: u128 = 0x0100_0000_01b3;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let whole = bytes.len() - bytes.len() % 8;
    let mut i = 0;
    while i < whole {
        let mut w = u64::from_le_bytes([
            bytes[i],
            bytes[i + 1],
            bytes[i + 2],
            bytes[i + 3],
            bytes[i + 4],
            bytes[i + 5],
            bytes[i + 6],
            bytes[i + 7],
        ]);
        let mut k = 0;
        while k < 8 {
            hash = (u128::from(hash ^ (w & 0xff)) * PRIME) as u64;
            w >>= 8;
            k += 1;
        }
        i += 8;
    }
    while i < bytes.len() {
        hash = (u128::from(hash ^ u64::from(bytes[i])) * PRIME) as u64;
        i += 1;
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    /// FNV-1a 64 one byte at a time, as it is defined.
    fn fnv1a(bytes: &[u8]) -> u64 {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for b in bytes {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash
    }

    #[test]
    fn the_word_at_a_time_fingerprint_is_fnv_1a() {
        // The published FNV-1a 64 values.
        assert_eq!(fingerprint(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fingerprint(b"foobar"), 0x8594_4171_f739_67e8);
        // Every length around the word size, every byte value.
        let bytes: Vec<u8> = (0..=255u8).cycle().take(1_000).collect();
        for len in 0..=40 {
            assert_eq!(fingerprint(&bytes[..len]), fnv1a(&bytes[..len]), "{len}");
        }
        assert_eq!(fingerprint(&bytes), fnv1a(&bytes));
    }
}
