//! gk's backups: before a command changes a file, a copy of the file as it
//! was goes into one per-user folder ([`crate::paths::backup_dir`]), never
//! beside the file. Beside it, a backup of a project's settings would sit
//! in a committable `.claude/` folder, and one of `<claude dir>/settings.json`
//! in the folder Claude reads; both hold the credentials of `env`.
//!
//! A backup is named after the whole path of the file and the time of the
//! run, so a person can tell which file it was and when:
//! `home%ann%.claude%settings.json.gk-backup-20261101-093000` is
//! `/home/ann/.claude/settings.json` as it was at 09:30:00 on 1 November
//! 2026 (`/` and `\` become `%`, a `%` in a name becomes `%%`, a drive's
//! `:` is dropped). The newest [`KEEP`] backups of each file are kept, the
//! older ones removed. A backup has the file's own permissions (never more
//! readable than the file); on Unix the folder is private (0700).

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// How many backups of one file are kept.
pub const KEEP: usize = 3;

/// What separates a file's name from the time in a backup's name (also the
/// mark of the backups older gk versions left beside the file).
pub const MARK: &str = ".gk-backup-";

/// Longest file-name part taken from the path (file systems allow 255
/// bytes per name); a longer one keeps its end and a fingerprint of the whole.
const MAX_KEY_BYTES: usize = 180;

/// The backup folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backups {
    dir: PathBuf,
}

/// Where a backup is written before it gets its name (not a backup name:
/// [`Backups::list`] never shows it).
const INCOMING: &str = ".incoming";

/// Whether `path` names a backup gk made (in the folder, or beside a file
/// by an older gk). Backups are never themselves backed up or diffed.
pub fn is_backup(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().contains(MARK))
}

/// The part of a backup's name that says which file it is.
pub fn file_key(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut parts = Vec::new();
    // `.` names no folder (`./gk.json` is `gk.json`): a key starting with
    // it would be a hidden file's name.
    for part in text
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
    {
        let mut escaped = String::with_capacity(part.len());
        for c in part.chars() {
            match c {
                '%' => escaped.push_str("%%"),
                ':' => {}
                // Not allowed in a Windows file name (`\\?\C:\…` has a `?`).
                '<' | '>' | '"' | '|' | '?' | '*' => escaped.push('_'),
                c if c.is_control() => escaped.push('_'),
                c => escaped.push(c),
            }
        }
        parts.push(escaped);
    }
    let key = parts.join("%");
    if key.len() <= MAX_KEY_BYTES {
        return key;
    }
    let mut start = key.len() - (MAX_KEY_BYTES - 20);
    while !key.is_char_boundary(start) {
        start += 1;
    }
    let hash = crate::change::plan::fingerprint(text.as_bytes());
    format!("{hash:016x}…{}", &key[start..])
}

/// `(stamp, n)` of a backup name (`…-20261101-093000` or `…-20261101-093000-2`),
/// for ordering a file's backups oldest first.
fn age_key(suffix: &str) -> (String, u64) {
    let mut parts = suffix.rsplitn(2, '-');
    let last = parts.next().unwrap_or_default();
    match (parts.next(), last.parse::<u64>()) {
        // A stamp's own time part has six digits; a counter fewer.
        (Some(stamp), Ok(n)) if last.len() < 6 => (stamp.to_string(), n),
        _ => (suffix.to_string(), 1),
    }
}

impl Backups {
    pub fn at(dir: impl Into<PathBuf>) -> Backups {
        Backups { dir: dir.into() }
    }

    /// The folder for this process (see [`crate::paths::backup_dir`]).
    pub fn from_env(env: &crate::env::Env) -> Result<Backups> {
        crate::paths::backup_dir_from_env(env)
            .map(Backups::at)
            .ok_or_else(|| {
                Error::refused(
                    "found no folder for gk's backups (set HOME, or XDG_DATA_HOME / LOCALAPPDATA)",
                )
            })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Create the folder (private on Unix). Called before any file of a
    /// plan is written, so a folder that cannot be made stops the run first.
    pub fn prepare(&self) -> Result<()> {
        let dir = &self.dir;
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
            builder.mode(0o700);
            builder
                .create(dir)
                .map_err(|e| Error::io("create the backup folder", dir, &e))?;
            // It may have been there already with other permissions. Only
            // the folder itself is made private, never what a link there
            // leads to (a folder gk did not make, perhaps shared): the open
            // refuses a link (O_NOFOLLOW) and the mode is set on the handle,
            // so no link swapped in after a check is followed either.
            use std::os::unix::fs::OpenOptionsExt;
            match fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_DIRECTORY)
                .open(dir)
            {
                Ok(handle) => handle
                    .set_permissions(fs::Permissions::from_mode(0o700))
                    .map_err(|e| Error::io("make private the backup folder", dir, &e))?,
                // A link (ELOOP, or ENOTDIR for a link to a folder on some
                // systems): the backups go where it leads, its mode as it is.
                Err(_) if fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) => {}
                Err(e) => return Err(Error::io("make private the backup folder", dir, &e)),
            }
        }
        #[cfg(not(unix))]
        builder
            .create(dir)
            .map_err(|e| Error::io("create the backup folder", dir, &e))?;
        Ok(())
    }

    /// Copy `file` as it is now into the folder, with its permissions, and
    /// drop all but the newest [`KEEP`] backups of it. Returns the copy.
    ///
    /// The copy is written whole to a temp file first (locked, synced, the
    /// file's mode; see `apply::write_temp`) and only then given its name,
    /// by a hard link that fails when the name is taken: a run killed
    /// half-way leaves no half backup under a backup's name (its temp file
    /// goes with the next run), and two runs in the same second take
    /// `<stamp>` and `<stamp>-2` without touching each other's copy.
    pub fn keep(&self, file: &Path, stamp: &str) -> Result<PathBuf> {
        let key = file_key(file);
        let (bytes, mode) = read_with_mode(file).map_err(|e| Error::io("back up", file, &e))?;
        let incoming = self.dir.join(INCOMING);
        super::fs::remove_dead_temps(&incoming);
        let (tmp, lock) = super::fs::write_temp(&incoming, &bytes, mode)?;
        let name = format!("{key}{MARK}{stamp}");
        let named = self.name_copy(&tmp, &name, self.next_counter(&key, stamp));
        drop(lock);
        let _ = fs::remove_file(&tmp);
        let dest = named.map_err(|e| Error::io("back up", file, &e))?;
        self.prune(&key);
        Ok(dest)
    }

    /// The counter a new backup of `key` made at `stamp` starts from: one
    /// past the highest of that second still in the folder. Not the first
    /// free one: once pruning has removed `<stamp>`, a copy given that name
    /// again would sort as the oldest and be the next one removed.
    fn next_counter(&self, key: &str, stamp: &str) -> u64 {
        self.aged(key)
            .into_iter()
            .filter_map(|((s, n), _)| (s == stamp).then_some(n))
            .max()
            .map_or(1, |n| n + 1)
    }

    /// Give the finished copy `tmp` the first free name of `name`-`first`,
    /// `name`-`first + 1`, … (`name` alone for 1). A name another run took
    /// in the meantime is never overwritten. Where the file system has no
    /// hard links the copy is renamed onto a name that is free just before.
    fn name_copy(&self, tmp: &Path, name: &str, first: u64) -> std::io::Result<PathBuf> {
        for n in first..first.saturating_add(10_000) {
            let candidate = if n == 1 {
                self.dir.join(name)
            } else {
                self.dir.join(format!("{name}-{n}"))
            };
            match fs::hard_link(tmp, &candidate) {
                Ok(()) => return Ok(candidate),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(_) if fs::symlink_metadata(&candidate).is_err() => {
                    fs::rename(tmp, &candidate)?;
                    return Ok(candidate);
                }
                Err(_) => continue,
            }
        }
        Err(std::io::Error::other("no free backup name"))
    }

    /// The backups of the file whose key is `key`, oldest first.
    fn of(&self, key: &str) -> Vec<PathBuf> {
        self.aged(key).into_iter().map(|(_, p)| p).collect()
    }

    /// [`Backups::of`], each with its `(stamp, counter)`.
    fn aged(&self, key: &str) -> Vec<((String, u64), PathBuf)> {
        let prefix = format!("{key}{MARK}");
        let mut found: Vec<((String, u64), PathBuf)> = self
            .list()
            .into_iter()
            .filter_map(|p| {
                let name = p.file_name()?.to_string_lossy().into_owned();
                let suffix = name.strip_prefix(&prefix)?.to_string();
                Some((age_key(&suffix), p))
            })
            .collect();
        found.sort();
        found
    }

    /// Remove all but the newest [`KEEP`] backups of one file. A backup
    /// that cannot be removed stays; the next run tries again.
    fn prune(&self, key: &str) {
        let all = self.of(key);
        let extra = all.len().saturating_sub(KEEP);
        for old in &all[..extra] {
            let _ = fs::remove_file(old);
        }
    }

    /// Every backup in the folder, in name order (each file's together,
    /// oldest first within a second's counter aside).
    pub fn list(&self) -> Vec<PathBuf> {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .filter(|p| is_backup(p))
            .collect();
        found.sort();
        found
    }
}

/// The backups an older gk left beside the files it changed in `dir`
/// (`settings.json.gk-backup-<stamp>`).
pub fn left_beside(dir: &Path) -> Vec<PathBuf> {
    Backups::at(dir).list()
}

/// The bytes of `file` (a settings file or CLAUDE.md: bounded like every
/// read of gk's) and its permission bits (0 where there are none).
fn read_with_mode(file: &Path) -> std::io::Result<(Vec<u8>, u32)> {
    let (handle, meta) = crate::bounded::open(file).map_err(crate::bounded::ReadError::into_io)?;
    let mut bytes = Vec::new();
    handle
        .take(crate::bounded::TEXT_LIMIT + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > crate::bounded::TEXT_LIMIT {
        return Err(std::io::Error::other(format!(
            "larger than {}",
            crate::bounded::size_text(crate::bounded::TEXT_LIMIT)
        )));
    }
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    };
    #[cfg(not(unix))]
    let mode = {
        let _ = meta;
        0
    };
    Ok((bytes, mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_another_run_took_is_never_overwritten_and_no_half_copy_is_left() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("settings.json");
        fs::write(&file, "mine").unwrap();
        let b = Backups::at(tmp.path().join("gk/backups"));
        b.prepare().unwrap();
        let name = format!("{}{MARK}s", file_key(&file));
        // Another run's backup of the same second, and a killed run's temp.
        fs::write(b.dir().join(&name), "theirs").unwrap();
        let dead = b.dir().join(format!("{INCOMING}.gk-tmp-2000000000"));
        fs::write(&dead, "half").unwrap();
        let first = b.keep(&file, "s").unwrap();
        let second = b.keep(&file, "s").unwrap();
        assert_eq!(first, b.dir().join(format!("{name}-2")));
        assert_eq!(second, b.dir().join(format!("{name}-3")));
        assert_eq!(fs::read_to_string(b.dir().join(&name)).unwrap(), "theirs");
        assert_eq!(fs::read_to_string(&first).unwrap(), "mine");
        assert!(!dead.exists(), "a dead run's temp file stays");
        let mut names: Vec<String> = fs::read_dir(b.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(names.iter().all(|n| n.starts_with(&name)), "{names:?}");
    }

    #[test]
    fn a_key_names_the_whole_path() {
        assert_eq!(
            file_key(Path::new("/home/ann/.claude/settings.json")),
            "home%ann%.claude%settings.json"
        );
        assert_eq!(
            file_key(Path::new(r"C:\Users\Ann\.claude\settings.json")),
            "C%Users%Ann%.claude%settings.json"
        );
        // A verbatim path (a link's target on Windows): a usable name still.
        assert_eq!(
            file_key(Path::new(r"\\?\C:\Users\Ann\settings.json")),
            "_%C%Users%Ann%settings.json"
        );
        // `%` itself is doubled, so a `%` in a name is told from a folder
        // (only a name that starts or ends with `%` can still meet another
        // path's key; the worst that does is prune the two files together).
        assert_ne!(file_key(Path::new("/a%b/c")), file_key(Path::new("/a/b%c")));
        let deep = format!("/{}/settings.json", "sub/".repeat(100));
        let key = file_key(Path::new(&deep));
        assert!(key.len() <= MAX_KEY_BYTES + 4, "{}", key.len());
        assert!(key.ends_with("%sub%sub%settings.json"), "{key}");
        // An empty part (`//`) is no `%` of a name.
        assert_ne!(file_key(Path::new("/a//b")), file_key(Path::new("/a%b")));
        assert_ne!(key, file_key(Path::new(&format!("/x{}", &deep[1..]))));
    }

    #[test]
    fn ages_order_stamps_then_counters() {
        let mut names = vec![
            "20261101-093000-10",
            "20261101-093000",
            "20261102-080000",
            "20261101-093000-2",
        ];
        names.sort_by_key(|n| age_key(n));
        assert_eq!(
            names,
            [
                "20261101-093000",
                "20261101-093000-2",
                "20261101-093000-10",
                "20261102-080000"
            ]
        );
    }

    #[test]
    fn only_the_newest_three_of_each_file_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let b = Backups::at(tmp.path().join("data/gk/backups"));
        b.prepare().unwrap();
        let file = tmp.path().join("settings.json");
        let other = tmp.path().join("CLAUDE.md");
        fs::write(&other, "mine").unwrap();
        b.keep(&other, "20261101-000000").unwrap();
        for (i, stamp) in ["20261101-000001", "20261101-000002", "20261101-000003"]
            .iter()
            .enumerate()
        {
            fs::write(&file, format!("v{i}")).unwrap();
            b.keep(&file, stamp).unwrap();
        }
        fs::write(&file, "v3").unwrap();
        let last = b.keep(&file, "20261101-000003").unwrap();
        assert!(last.to_string_lossy().ends_with("-000003-2"), "{last:?}");
        let kept = b.of(&file_key(&file));
        let texts: Vec<String> = kept
            .iter()
            .map(|p| fs::read_to_string(p).unwrap())
            .collect();
        assert_eq!(texts, ["v1", "v2", "v3"]);
        // The other file's backup is not touched by this file's pruning.
        assert_eq!(b.of(&file_key(&other)).len(), 1);
        assert_eq!(b.list().len(), 4);
    }

    #[test]
    fn many_runs_in_one_second_keep_the_newest_three_not_a_reused_name() {
        // Five runs in the same second: after the fourth, `<stamp>` itself
        // was pruned; the fifth must not take that name back (it would sort
        // as the oldest and be dropped at once, keeping an older copy).
        let tmp = tempfile::tempdir().unwrap();
        let b = Backups::at(tmp.path().join("backups"));
        b.prepare().unwrap();
        let file = tmp.path().join("settings.json");
        for i in 0..5 {
            fs::write(&file, format!("v{i}")).unwrap();
            b.keep(&file, "20261101-093000").unwrap();
        }
        let texts: Vec<String> = b
            .of(&file_key(&file))
            .iter()
            .map(|p| fs::read_to_string(p).unwrap())
            .collect();
        assert_eq!(texts, ["v2", "v3", "v4"]);
    }

    /// A backup folder that is a link (to a folder gk did not make, maybe
    /// shared): the backups go there, but its mode is not changed.
    #[cfg(unix)]
    #[test]
    fn a_linked_backup_folder_is_used_but_never_chmod_ed() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let shared = tmp.path().join("shared");
        fs::create_dir(&shared).unwrap();
        fs::set_permissions(&shared, fs::Permissions::from_mode(0o755)).unwrap();
        let dir = tmp.path().join("backups");
        std::os::unix::fs::symlink(&shared, &dir).unwrap();
        let b = Backups::at(&dir);
        b.prepare().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&shared), 0o755, "the link's target keeps its mode");
        let file = tmp.path().join("settings.json");
        fs::write(&file, "{}").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
        let copy = b.keep(&file, "20261101-000000").unwrap();
        assert_eq!(mode(&copy), 0o600);
        assert!(shared.join(copy.file_name().unwrap()).is_file());
    }

    #[cfg(unix)]
    #[test]
    fn a_backup_is_never_more_readable_than_the_file_and_the_folder_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("backups");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let b = Backups::at(&dir);
        b.prepare().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        let file = tmp.path().join("settings.json");
        for m in [0o600, 0o640, 0o644] {
            fs::write(&file, "{}").unwrap();
            fs::set_permissions(&file, fs::Permissions::from_mode(m)).unwrap();
            let copy = b.keep(&file, &format!("20261101-00000{}", m % 10)).unwrap();
            assert_eq!(mode(&copy), m);
        }
    }
}
