//! One gk run writes its plan at a time: the lock [`super::apply::execute`]
//! holds from the moment the answer is yes until the last file of the plan
//! is written. Under it every file of the plan is checked against the plan
//! before any is written (`write_plan_with`'s first pass), so two runs
//! whose plans share files (an install and an uninstall started together)
//! never interleave their writes: each either finds every file as its plan
//! found it, or stops with nothing written. The files end in a state some
//! order of the runs gives.
//!
//! The lock is an exclusive lock of `gk.lock` in gk's backup folder (made
//! private like the folder; its bytes are never read), so it is the user's
//! (an administrator's managed runs as root share root's). The system drops
//! it when the process ends, however it ends. A file system without locks
//! gives no lock, and gk writes as it did without one.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The lock file's name in the backup folder.
pub const LOCK_NAME: &str = "gk.lock";

/// How long a run waits for another to finish writing. A plan is written in
/// well under a second (a program copy in a few); a run holding it longer
/// is stuck on something else (a disk, a virus scanner).
const WAIT: Duration = Duration::from_secs(60);

/// Held until dropped.
#[derive(Debug)]
pub struct RunLock {
    _file: Option<fs::File>,
    path: PathBuf,
}

impl RunLock {
    /// Wait (at most a minute) for the lock in `dir` (created, private,
    /// when missing) and hold it.
    pub fn take(dir: &Path) -> Result<RunLock> {
        let folder = super::backup::Backups::at(dir.to_path_buf());
        folder.prepare()?;
        let path = dir.join(LOCK_NAME);
        let started = Instant::now();
        loop {
            if let Some(lock) = try_take(&path)? {
                return Ok(lock);
            }
            // `gk uninstall --purge` removes the whole folder, lock and
            // all, when it ends: a run that waited on it makes it again.
            if fs::symlink_metadata(dir).is_err() {
                folder.prepare()?;
            }
            if started.elapsed() >= WAIT {
                return Err(Error::new(format!(
                    "another gk run has been writing files for over {} s (it holds {}); nothing written, run the command again when it has ended",
                    WAIT.as_secs(),
                    path.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Remove the lock file while holding it (`gk uninstall --purge`, which
    /// leaves nothing of gk's): a run waiting on it finds its file gone and
    /// takes a new one (on Unix; see [`still_at`]).
    pub fn remove(self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// One try: `Some` when taken; `None` when another run holds it (or the
/// file was just removed by a purge, or cannot be opened yet).
fn try_take(path: &Path) -> Result<Option<RunLock>> {
    let mut open = fs::OpenOptions::new();
    open.read(true).write(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Never through a link: the lock is a file of gk's own.
        open.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let file = match open.open(path) {
        Ok(f) => f,
        // A link or a folder there is not gk's lock: write without one,
        // as on a file system without locks.
        Err(_) if fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) => {
            return Ok(Some(RunLock {
                _file: None,
                path: path.to_path_buf(),
            }))
        }
        // Windows: a lock file removed while open cannot be opened until
        // its last handle closes. Wait for it.
        Err(_) => return Ok(None),
    };
    match file.try_lock() {
        Ok(()) if still_at(&file, path) => Ok(Some(RunLock {
            _file: Some(file),
            path: path.to_path_buf(),
        })),
        Ok(()) => Ok(None),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(_)) => Ok(Some(RunLock {
            _file: None,
            path: path.to_path_buf(),
        })),
    }
}

/// Whether `path` still names the file locked (a purge may have removed it
/// between the open and the lock). Unix only; elsewhere `true`.
fn still_at(file: &fs::File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), fs::symlink_metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_waits_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::take(dir.path()).unwrap();
        assert!(try_take(&dir.path().join(LOCK_NAME)).unwrap().is_none());
        drop(first);
        let second = try_take(&dir.path().join(LOCK_NAME)).unwrap();
        assert!(second.is_some_and(|l| l._file.is_some()));
    }

    /// Two `gk uninstall --purge` at once: the first removes the whole
    /// folder, lock and all; the second, waiting, makes it again and goes
    /// on (it waited its full minute, then said another run held it).
    #[test]
    fn a_run_waiting_when_the_folder_is_purged_takes_a_new_lock() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("backups");
        let first = RunLock::take(&dir).unwrap();
        let waiting = {
            let dir = dir.clone();
            std::thread::spawn(move || RunLock::take(&dir))
        };
        std::thread::sleep(Duration::from_millis(100));
        // The folder goes at once (a purge removes the lock, then the
        // folder; removing them one by one here let the waiting run take
        // a new lock in between, and the folder's removal then failed).
        fs::rename(&dir, root.path().join("purged")).unwrap();
        let second = waiting.join().unwrap().unwrap();
        drop(first);
        assert!(second._file.is_some());
        assert!(dir.join(LOCK_NAME).exists());
    }

    #[test]
    fn a_removed_lock_is_not_taken_through_its_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_NAME);
        let first = RunLock::take(dir.path()).unwrap();
        let old = fs::File::open(&path).unwrap();
        first.remove();
        // The old file is free now, but no longer the lock.
        assert!(old.try_lock().is_ok());
        if cfg!(unix) {
            assert!(!still_at(&old, &path));
        } else {
            // Windows: a removed file's name stays taken until its last
            // handle closes; a waiting run takes the lock after that.
            drop(old);
        }
        assert!(RunLock::take(dir.path()).is_ok());
    }
}
