//! The file system layer of the change engine: bounded reads of what a
//! plan is made from, temp files beside their targets (locked by the run
//! that writes them until their rename), atomic replacement, links followed
//! to write and never to delete, and the removal of temp files that killed
//! runs left behind (see [`remove_leftovers`]).
//!
//! A temp file is `<name>.gk-tmp-<pid>`, locked by the run that writes it
//! until its rename. A run killed on the way leaves it behind; the next run
//! that writes the same file removes it once it can tell that run is over.

use std::ffi::OsString;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::bounded::nearest_folder;
use crate::change::plan::Plan;
use crate::error::{Error, Result};

/// One timestamp per run, used in every backup name of that run.
pub fn run_stamp() -> String {
    chrono::Local::now().format("%Y%m%d-%H%M%S").to_string()
}

/// Current bytes of `path` (through symlinks); `None` when it does not
/// exist. Read by the bounded reader: a named pipe, a device or a file over
/// `limit` bytes is refused with one line naming it (nothing is written).
pub fn read_current(path: &Path, limit: u64) -> Result<Option<Vec<u8>>> {
    match crate::bounded::read(path, limit) {
        Ok(c) => Ok(Some(c.bytes)),
        Err(crate::bounded::ReadError::NotFound) => Ok(None),
        Err(e) => Err(refusal(path, &e)),
    }
}

/// The one line that refuses a plan over a file that cannot be read.
pub fn refusal(path: &Path, e: &crate::bounded::ReadError) -> Error {
    Error::refused(format!("{}: {}", path.display(), e.reason()))
}

/// Give `from` the name `to` unless `to` exists: `true` when it did. A
/// hard link never replaces a file; where the file system has no hard
/// links, a rename when `to` is free (a write landing between that look
/// and the rename is the one case left, on such file systems only). What
/// is left at `from` is the caller's to remove.
pub(crate) fn put_in_place(from: &Path, to: &Path) -> Result<bool> {
    match fs::hard_link(from, to) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(_) if fs::symlink_metadata(to).is_ok() => Ok(false),
        Err(_) => rename(from, to)
            .map(|()| true)
            .map_err(|e| Error::io("write", to, &e)),
    }
}

/// Remove `path`; one that is already gone (another run removed it) is
/// removed.
///
/// On Windows the file is first renamed to a name of gk's own beside it
/// (`<name>.gk-del-<pid>`), then deleted. Windows deletes a file another
/// program holds open (a run reading it for its plan, an editor, the
/// client) only when that program lets go, and until then the file keeps
/// its name on FAT, network drives and Wine (NTFS frees it at once): a run
/// that planned meanwhile would find it there, and its plan would be
/// undone behind it. Renaming frees the name at once.
pub(crate) fn remove_if_there(path: &Path) -> Result<()> {
    let doomed = if cfg!(windows) {
        // A free name: a file someone keeps under that name is never replaced.
        let aside = free_sibling(path, &format!(".gk-del-{}", std::process::id()));
        match rename(path, &aside) {
            Ok(()) => aside,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            // Not renamed (refused): the delete says why, or works.
            Err(_) => path.to_path_buf(),
        }
    } else {
        path.to_path_buf()
    };
    match fs::remove_file(&doomed) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            // Not deleted after all (a read-only file): back to its name,
            // so the error tells the truth and nothing is left aside.
            if doomed != path {
                let _ = rename(&doomed, path);
            }
            Err(Error::io("remove", path, &e))
        }
        _ => Ok(()),
    }
}

/// Delete a copy that was moved aside; `Some(path)` when it cannot be
/// deleted because it is still running (or otherwise held open).
pub(crate) fn remove_unless_running(path: PathBuf) -> Option<PathBuf> {
    match fs::remove_file(&path) {
        Ok(()) => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => Some(path),
    }
}

/// The file to actually write: the final target when `path` is a symlink,
/// also when that target does not exist yet (it is created through the link).
pub(crate) fn write_target(path: &Path) -> Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to =
                    fs::read_link(&current).map_err(|e| Error::io("follow the link", path, &e))?;
                current = match current.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(Error::new(format!(
        "could not follow the link {}: too many levels of links",
        path.display()
    )))
}

pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// `sibling(path, suffix)`, or with `-2`, `-3`, … added when that name is
/// taken (two runs within one second must not overwrite a backup).
pub(crate) fn free_sibling(path: &Path, suffix: &str) -> PathBuf {
    let first = sibling(path, suffix);
    if fs::symlink_metadata(&first).is_err() {
        return first;
    }
    (2..)
        .map(|n| sibling(path, &format!("{suffix}-{n}")))
        .find(|p| fs::symlink_metadata(p).is_err())
        .unwrap_or(first)
}

/// Rename `path` to a free `<name>.gk-old-<stamp>` beside it; `None` when
/// `path` is no longer there (another run moved or removed it).
pub(crate) fn move_aside(path: &Path, stamp: &str) -> Result<Option<PathBuf>> {
    let dest = free_sibling(path, &format!(".gk-old-{stamp}"));
    match rename(path, &dest) {
        Ok(()) => Ok(Some(dest)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("move aside", path, &e)),
    }
}

/// `fs::rename`, tried again for a moment on Windows while the target is in
/// use. Windows refuses to replace a file another program has open at that
/// instant — Claude Code or an editor reading settings.json, a virus
/// scanner, another gk run that has just renamed its own copy there — with
/// "Access denied" or a sharing violation, and such a program lets go
/// within milliseconds. (Windows 10's POSIX rename, which std falls back
/// to, avoids it on NTFS; FAT, exFAT, network drives and Wine do not have
/// it.) Eight tries over about 0.6 s; elsewhere one.
pub(crate) fn rename(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut waits = RENAME_WAITS_MS.iter();
    loop {
        match fs::rename(from, to) {
            Err(e) if in_use(&e) => match waits.next() {
                Some(ms) => std::thread::sleep(std::time::Duration::from_millis(*ms)),
                None => return Err(e),
            },
            other => return other,
        }
    }
}

/// Whether `path` can be replaced or removed now: on Windows, a program
/// that holds it open without sharing delete access (an editor, a sync
/// client, a virus scanner) makes the rename over it fail, after the
/// plan's other files were written. Asked of every file before any is
/// written, by opening it for delete access (nothing is deleted), with
/// the same waits as [`rename`] for a program that lets go at once.
/// Elsewhere always `Ok`.
#[cfg(windows)]
pub(crate) fn can_be_replaced(path: &Path) -> std::io::Result<()> {
    use std::os::windows::fs::OpenOptionsExt;
    /// `DELETE` access; share read, write and delete (`FILE_SHARE_*`).
    const DELETE: u32 = 0x0001_0000;
    const SHARE_ALL: u32 = 0x1 | 0x2 | 0x4;
    let mut waits = RENAME_WAITS_MS.iter();
    loop {
        match fs::OpenOptions::new()
            .access_mode(DELETE)
            .share_mode(SHARE_ALL)
            .open(path)
        {
            Err(e) if in_use(&e) => match waits.next() {
                Some(ms) => std::thread::sleep(std::time::Duration::from_millis(*ms)),
                None => return Err(e),
            },
            // Gone, or anything else: the write finds out and says so.
            _ => return Ok(()),
        }
    }
}

#[cfg(not(windows))]
pub(crate) fn can_be_replaced(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(windows)]
pub(crate) const RENAME_WAITS_MS: [u64; 7] = [5, 10, 20, 40, 80, 160, 320];
#[cfg(not(windows))]
pub(crate) const RENAME_WAITS_MS: [u64; 0] = [];

/// `ERROR_ACCESS_DENIED`, `ERROR_SHARING_VIOLATION`, `ERROR_LOCK_VIOLATION`.
#[cfg(windows)]
pub(crate) fn in_use(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(5 | 32 | 33))
}

#[cfg(not(windows))]
pub(crate) fn in_use(_e: &std::io::Error) -> bool {
    false
}

#[cfg(unix)]
pub(crate) fn existing_mode(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
pub(crate) fn existing_mode(_path: &Path) -> Option<u32> {
    None
}

#[cfg(unix)]
pub(crate) fn set_mode(file: &fs::File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
pub(crate) fn set_mode(_file: &fs::File, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

/// Temp file in the same folder, write, sync, set mode, rename over `path`.
#[cfg(test)]
pub fn atomic_write(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let (tmp, _lock) = write_temp(path, bytes, mode)?;
    rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io("write", path, &e)
    })
}

/// Can this process create or replace a file at `path`: the nearest folder
/// above it that exists is a folder it may write (the missing ones are
/// made there). `Err` names that folder (or the file in the way) and why
/// not. Asked of the system (`access(2)`) on Unix, so nothing is written
/// to find out; elsewhere a temp file is made there and removed.
///
/// On Windows a folder another run is removing at that instant refuses
/// every look with "Access denied" until it is gone, so an answer of "in
/// use" is asked again for a moment, as [`rename`] does; a folder the user
/// may not write still says so, about 0.6 s later.
pub fn can_create(path: &Path) -> std::result::Result<(), (PathBuf, std::io::Error)> {
    let mut waits = RENAME_WAITS_MS.iter();
    loop {
        let answer = can_create_now(path);
        let again = match &answer {
            Err((dir, e)) => in_use(e) || vanished(dir, e),
            Ok(()) => false,
        };
        match waits.next() {
            Some(ms) if again => std::thread::sleep(std::time::Duration::from_millis(*ms)),
            _ => return answer,
        }
    }
}

/// A folder that was there at the look and gone at the probe (not a
/// missing drive, which has no folder above it, nor a link to nothing,
/// which stays).
fn vanished(dir: &Path, e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound
        && dir.parent().is_some()
        && fs::symlink_metadata(dir).is_err()
}

fn can_create_now(path: &Path) -> std::result::Result<(), (PathBuf, std::io::Error)> {
    let dir = nearest_folder(path)?;
    may_write(&dir).map_err(|e| (dir, e))
}

#[cfg(unix)]
fn may_write(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt as _;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    // SAFETY: a NUL-terminated path that outlives the call; access(2) only reads it.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// A probe file made and removed; the system's own answer when it cannot
/// be made (so a folder being removed reads as "in use", not as a right
/// the user lacks).
#[cfg(not(unix))]
fn may_write(dir: &Path) -> std::io::Result<()> {
    let probe = sibling(
        &dir.join(".gk-probe"),
        &format!("{TEMP_SUFFIX}{}", std::process::id()),
    );
    let open = || {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
    };
    let file = match open() {
        // Left by a killed run that had this process id: ours to remove.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let _ = fs::remove_file(&probe);
            open()?
        }
        other => other?,
    };
    drop(file);
    let _ = fs::remove_file(&probe);
    Ok(())
}

/// The suffix of a temp file before the writer's process id.
pub(crate) const TEMP_SUFFIX: &str = ".gk-tmp-";

/// `bytes` in a new temp file beside `path` (written, synced, given `mode`),
/// and its handle, holding an exclusive lock for as long as it is open;
/// nothing is left behind when that fails.
pub(crate) fn write_temp(path: &Path, bytes: &[u8], mode: u32) -> Result<(PathBuf, fs::File)> {
    write_temp_with(path, bytes, mode, true)
}

/// [`write_temp`], synced to the disk only when `sync` is set.
pub(crate) fn write_temp_with(
    path: &Path,
    bytes: &[u8],
    mode: u32,
    sync: bool,
) -> Result<(PathBuf, fs::File)> {
    let tmp = sibling(path, &format!("{TEMP_SUFFIX}{}", std::process::id()));
    let result = (|| -> std::io::Result<fs::File> {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        // Where locks are not supported the process id still tells.
        lock_temp(&file);
        set_mode(&file, mode)?;
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        Ok(file)
    })();
    match result {
        Ok(file) => Ok((tmp, file)),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(Error::io("write", path, &e))
        }
    }
}

/// Lock a temp file for as long as it is open, so other runs see it is
/// alive ([`lock_sign`]). Unix: an exclusive flock of the whole file
/// (advisory: readers are not held up). Windows locks are mandatory — a
/// lock over the data would make every reader of the file fail until the
/// handle closes, and after the rename that file is settings.json, read by
/// Claude Code — so there the lock covers one byte far past the end of any
/// file, which the whole-file shared lock of [`lock_sign`] still meets.
#[cfg(not(windows))]
pub(crate) fn lock_temp(file: &fs::File) {
    let _ = file.try_lock();
}

#[cfg(windows)]
pub(crate) fn lock_temp(file: &fs::File) {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{
        LockFileEx, LOCKFILE_EXCLUSIVE_LOCK, LOCKFILE_FAIL_IMMEDIATELY,
    };
    use windows_sys::Win32::System::IO::{OVERLAPPED, OVERLAPPED_0, OVERLAPPED_0_0};
    // Byte 2^62: no file gk writes comes near it.
    let mut at = OVERLAPPED {
        Anonymous: OVERLAPPED_0 {
            Anonymous: OVERLAPPED_0_0 {
                Offset: 0,
                OffsetHigh: 1 << 30,
            },
        },
        ..OVERLAPPED::default()
    };
    // SAFETY: the handle is open and owned by `file` for the whole call;
    // `at` lives across it and, with no event and a synchronous handle, the
    // call completes before it returns.
    unsafe {
        LockFileEx(
            file.as_raw_handle(),
            LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY,
            0,
            1,
            0,
            &mut at,
        );
    }
}

/// Remove the temp files that runs killed on their way left beside the
/// files of `plan` (and beside their links' targets), and return them. A
/// leftover is `<name>.gk-tmp-<pid>`, a regular file; it goes only when
/// there is no sign its run is alive and at least one that it is over:
///
/// - its lock (every run of this gk locks its temp files until the
///   rename; the system drops the lock when the process dies, however it
///   died) can be taken: the writer is gone; held: alive.
/// - Unix: no process has its id (`kill(pid, 0)`, no process started):
///   over; a process has it: alive (or the id was reused, and the file
///   waits for a later run).
///
/// On Windows only the lock is asked (no process API is called); on a
/// file system without locks only the process id. Nothing is removed
/// when neither can tell.
pub fn remove_leftovers(plan: &Plan) -> Vec<PathBuf> {
    // The names a leftover could be left for, by folder: one listing of
    // each folder however many of its files the plan changes.
    let mut by_dir: std::collections::BTreeMap<PathBuf, std::collections::HashSet<OsString>> =
        Default::default();
    for change in &plan.changes {
        let mut places = vec![change.path.clone()];
        if let Ok(target) = write_target(&change.path) {
            if target != change.path {
                places.push(target);
            }
        }
        for place in places {
            if let Some((dir, name)) = dir_and_name(&place) {
                by_dir.entry(dir).or_default().insert(name);
            }
        }
    }
    let mut removed = Vec::new();
    for (dir, names) in by_dir {
        for tmp in leftovers_in(&dir, &names) {
            if !removed.contains(&tmp) && fs::remove_file(&tmp).is_ok() {
                removed.push(tmp);
            }
        }
    }
    removed
}

/// Remove the temp files that dead runs left for `path` (see
/// [`remove_leftovers`]); for writers outside a plan (the backup folder).
pub(crate) fn remove_dead_temps(path: &Path) {
    if let Some((dir, name)) = dir_and_name(path) {
        for tmp in leftovers_in(&dir, &[name].into_iter().collect()) {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// `path`'s folder (`.` for a bare name) and file name.
pub(crate) fn dir_and_name(path: &Path) -> Option<(PathBuf, OsString)> {
    let (dir, name) = (path.parent()?, path.file_name()?);
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    Some((dir.to_path_buf(), name.to_os_string()))
}

/// The dead runs' temp files in `dir` left for one of `names`: one listing.
pub(crate) fn leftovers_in(
    dir: &Path,
    names: &std::collections::HashSet<OsString>,
) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let file_name = e.file_name();
            let text = file_name.to_str()?;
            let at = text.rfind(TEMP_SUFFIX)?;
            let pid: u32 = text[at + TEMP_SUFFIX.len()..].parse().ok()?;
            if !names.contains(std::ffi::OsStr::new(&text[..at])) {
                return None;
            }
            let regular = e.file_type().is_ok_and(|t| t.is_file());
            (regular && run_is_over(&e.path(), pid)).then(|| e.path())
        })
        .collect()
}

/// What one sign says about the run that wrote a temp file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sign {
    Alive,
    Over,
    Unknown,
}

/// The decision, a pure function of the two signs: remove only when no sign
/// says alive and one says over.
pub(crate) fn over_by(lock: Sign, pid: Sign) -> bool {
    !matches!((lock, pid), (Sign::Alive, _) | (_, Sign::Alive))
        && (lock == Sign::Over || pid == Sign::Over)
}

pub(crate) fn run_is_over(tmp: &Path, pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    over_by(lock_sign(tmp), pid_sign(pid))
}

pub(crate) fn lock_sign(tmp: &Path) -> Sign {
    let Ok((file, _)) = crate::bounded::open(tmp) else {
        return Sign::Unknown;
    };
    match file.try_lock_shared() {
        Ok(()) => Sign::Over,
        Err(fs::TryLockError::WouldBlock) => Sign::Alive,
        Err(fs::TryLockError::Error(_)) => Sign::Unknown,
    }
}

/// Is a process with this id alive? `kill` with signal 0 only asks.
#[cfg(unix)]
pub(crate) fn pid_sign(pid: u32) -> Sign {
    // 0 and ids beyond pid_t would name process groups or wrap: ask nothing.
    let Ok(id) = libc::pid_t::try_from(pid) else {
        return Sign::Unknown;
    };
    if id <= 0 {
        return Sign::Unknown;
    }
    // SAFETY: signal 0 sends nothing; it only checks the id.
    if unsafe { libc::kill(id, 0) } == 0 {
        return Sign::Alive;
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::ESRCH) => Sign::Over,
        // EPERM: it exists, owned by someone else.
        _ => Sign::Alive,
    }
}

#[cfg(not(unix))]
pub(crate) fn pid_sign(_pid: u32) -> Sign {
    Sign::Unknown
}

/// The file's text as it is now; `None` when it does not exist; an error
/// (plan refused, nothing written) when it is not UTF-8, not a regular file
/// or over [`crate::bounded::TEXT_LIMIT`].
pub fn read_text(path: &Path) -> Result<Option<String>> {
    read_text_within(path, crate::bounded::TEXT_LIMIT)
}

/// [`read_text`] with another size limit.
pub fn read_text_within(path: &Path, limit: u64) -> Result<Option<String>> {
    read_current(path, limit)?
        .map(|bytes| text_of(path, bytes))
        .transpose()
}

pub(crate) fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String> {
    let utf16 = bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]);
    String::from_utf8(bytes).map_err(|_| {
        Error::refused(if utf16 {
            format!(
                "{} is UTF-16 text (as Windows PowerShell 5.1's `>` writes it); save it as UTF-8 and run the command again",
                path.display()
            )
        } else {
            format!("{} is not UTF-8 text; save it as UTF-8 and run the command again", path.display())
        })
    })
}

#[cfg(test)]
mod can_create_tests {
    use super::*;

    #[test]
    fn a_folder_gone_between_the_look_and_the_probe_is_asked_again_but_a_missing_drive_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let gone = tmp.path().join("managed");
        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert!(vanished(&gone, &e));
        std::fs::create_dir(&gone).unwrap();
        assert!(!vanished(&gone, &e), "still there: the answer stands");
        let root = gone.ancestors().last().unwrap();
        assert!(!vanished(root, &e), "no folder above: nothing to wait for");
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(!vanished(tmp.path().join("x").as_path(), &denied));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_nothing_on_the_way_is_the_answer_at_once() {
        let tmp = tempfile::tempdir().unwrap();
        let link = tmp.path().join("state");
        std::os::unix::fs::symlink(tmp.path().join("unmounted/state"), &link).unwrap();
        for path in [link.join("record.json"), link.join("gk/record.json")] {
            let (at, e) = can_create(&path).unwrap_err();
            assert_eq!(at, link, "{}", path.display());
            assert!(
                e.to_string()
                    .contains("unmounted/state, which is not there"),
                "{e}"
            );
            // Not waited on as a folder another run is removing.
            assert!(!vanished(&at, &e));
            assert_eq!(
                crate::bounded::in_the_way(&e).unwrap(),
                format!(
                    "is a link to {}, which is not there",
                    tmp.path().join("unmounted/state").display()
                )
            );
        }
        assert!(!tmp.path().join("unmounted").exists(), "nothing is made");
        // The link's target made: the answer is yes.
        std::fs::create_dir_all(tmp.path().join("unmounted/state")).unwrap();
        assert!(can_create(&link.join("gk/record.json")).is_ok());
    }

    #[test]
    fn a_file_under_missing_folders_is_asked_of_the_nearest_folder_and_nothing_is_made() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("managed/managed-settings.d/gk.json");
        assert!(can_create(&target).is_ok());
        assert!(
            !tmp.path().join("managed").exists(),
            "nothing is made to find out"
        );
    }
}
