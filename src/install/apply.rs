//! The one path by which gk changes a user's files: show the plan, ask,
//! then write each file safely. Install, uninstall, enable/disable and
//! `gk doctor --fix` all end here.
//!
//! Writing a file means: re-read it and refuse if it differs from what the
//! plan was made from (Claude Code rewrites settings.json on its own), keep
//! a backup beside it (`<name>.gk-backup-<stamp>`, same permissions, one
//! stamp per run), then write atomically — a temp file in the same folder,
//! written, synced, given the old file's mode, renamed over the target; the
//! temp file is removed if anything fails. A symlink is written through to
//! its target, so the link stays a link.

use std::fs;
use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};

use crate::cli::{ChangeArgs, ColorChoice};
use crate::error::{Error, Result};
use crate::install::plan::{render, ChangeKind, FileChange, Plan, ReplaceStrategy, Style};

/// How the user asked the change to be made (`--yes`, `--dry-run`, `--check`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeOptions {
    pub yes: bool,
    pub dry_run: bool,
    pub check: bool,
}

impl From<&ChangeArgs> for ChangeOptions {
    fn from(a: &ChangeArgs) -> Self {
        ChangeOptions {
            yes: a.yes,
            dry_run: a.dry_run,
            check: a.check,
        }
    }
}

/// How a run of [`execute`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every file already as planned; nothing written, no backup.
    NothingToDo,
    /// `--dry-run`: plan shown, nothing written.
    DryRun,
    /// `--check`: `true` when something would change.
    Check { pending: bool },
    /// The user answered no.
    Declined,
    /// Files written; the backups and moved-aside files made on the way.
    Written { kept: Vec<PathBuf> },
}

impl Outcome {
    /// The process exit code for this outcome (0 success, 1 otherwise).
    pub fn exit_code(&self) -> u8 {
        match self {
            Outcome::NothingToDo | Outcome::DryRun | Outcome::Written { .. } => 0,
            Outcome::Check { pending } => u8::from(*pending),
            Outcome::Declined => 1,
        }
    }
}

/// Whether to colour output on stdout.
pub fn style_for(color: ColorChoice) -> Style {
    let color = match color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    };
    Style { color }
}

/// Show `plan`, ask (unless `--yes`), and write it. Prints the plan on
/// stdout; returns an error (nothing written) when confirmation is needed
/// but stdin is not a terminal, or when a file changed since the plan.
pub fn execute(plan: &Plan, opts: &ChangeOptions, color: ColorChoice) -> Result<Outcome> {
    let style = style_for(color);
    print!("{}", render(plan, style));
    let _ = std::io::stdout().flush();

    if plan.is_empty_of_changes() {
        return Ok(if opts.check {
            Outcome::Check { pending: false }
        } else {
            Outcome::NothingToDo
        });
    }
    if opts.check {
        return Ok(Outcome::Check { pending: true });
    }
    if opts.dry_run {
        println!("\ndry run: nothing written.");
        return Ok(Outcome::DryRun);
    }
    if !opts.yes {
        if !std::io::stdin().is_terminal() {
            return Err(Error::new(
                "refusing to change files without confirmation: stdin is not a terminal \
                 (pass --yes to apply, or --dry-run to only look); nothing written",
            ));
        }
        let answer = dialoguer::Confirm::new()
            .with_prompt("apply these changes?")
            .default(false)
            .interact()
            .map_err(|e| Error::new(format!("could not read the answer: {e}")))?;
        if !answer {
            println!("nothing written.");
            return Ok(Outcome::Declined);
        }
    }
    let stamp = run_stamp();
    let kept = write_plan(plan, &stamp, &|_| {})?;
    for change in plan.changes.iter().filter(|c| c.changes_something()) {
        println!("{:<9} {}", done_label(change.kind()), change.path.display());
    }
    for path in &kept {
        println!("kept      {}", path.display());
    }
    Ok(Outcome::Written { kept })
}

fn done_label(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Create => "created",
        ChangeKind::Edit => "edited",
        ChangeKind::ReplaceBinary => "replaced",
        ChangeKind::Remove => "removed",
        ChangeKind::NothingToDo => "unchanged",
    }
}

/// One timestamp per run, used in every backup name of that run.
pub fn run_stamp() -> String {
    chrono::Local::now().format("%Y%m%d-%H%M%S").to_string()
}

/// Current bytes of `path` (through symlinks); `None` when it does not exist.
pub fn read_current(path: &Path) -> Result<Option<Vec<u8>>> {
    // A named pipe or a device in a file's place would block or never end.
    if let Ok(meta) = fs::metadata(path) {
        if !meta.is_file() {
            return Err(Error::new(format!(
                "{} is not a regular file; nothing written",
                path.display()
            )));
        }
    }
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("read", path, &e)),
    }
}

/// Refuse when a file is no longer what the plan was made from.
pub fn verify_unchanged(change: &FileChange) -> Result<()> {
    let now = read_current(&change.path)?;
    if now != change.old {
        return Err(Error::new(format!(
            "{} changed since the plan was made (another program wrote it); \
             nothing more written, run the command again",
            change.path.display()
        )));
    }
    Ok(())
}

/// Write every change of `plan`. All files are checked against the plan
/// first, along with everything that would make a write fail (a read-only
/// file, a folder that cannot be written): every new content is written to
/// a temp file beside its target before any target is touched, so such a
/// failure leaves every file as it was. Then each file is checked again
/// just before its own backup and rename. `before_write` runs right before
/// each file's last check (a seam for tests). Returns the backups and
/// moved-aside files made.
pub(crate) fn write_plan(
    plan: &Plan,
    stamp: &str,
    before_write: &dyn Fn(&Path),
) -> Result<Vec<PathBuf>> {
    let pending: Vec<&FileChange> = plan
        .changes
        .iter()
        .filter(|c| c.changes_something())
        .collect();
    let mut targets = Vec::new();
    for change in &pending {
        verify_unchanged(change)?;
        let target = write_target(&change.path)?;
        refuse_read_only(change, &target)?;
        targets.push(target);
    }
    let mut staged: Vec<Option<PathBuf>> = Vec::new();
    for (change, target) in pending.iter().zip(&targets) {
        match stage(change, target) {
            Ok(tmp) => staged.push(tmp),
            Err(e) => {
                discard(&staged);
                return Err(e);
            }
        }
    }
    let mut kept = Vec::new();
    for (i, change) in pending.iter().enumerate() {
        before_write(&change.path);
        let done = verify_unchanged(change)
            .and_then(|()| commit(change, &targets[i], staged[i].as_deref(), stamp));
        match done {
            Ok(k) => kept.extend(k),
            Err(e) => {
                discard(&staged[i..]);
                return Err(e);
            }
        }
    }
    Ok(kept)
}

/// A text file without write permission is the user saying "leave this
/// alone" (and on Windows it cannot be replaced): refuse before writing.
/// A program is replaced by rename whatever its mode, so it is not asked.
fn refuse_read_only(change: &FileChange, target: &Path) -> Result<()> {
    if change.binary || change.old.is_none() {
        return Ok(());
    }
    match fs::metadata(target) {
        Ok(meta) if meta.permissions().readonly() => Err(Error::new(format!(
            "{} is read-only; make it writable to let gk change it (nothing written)",
            change.path.display()
        ))),
        _ => Ok(()),
    }
}

/// Write the new content of `change` to a temp file beside `target`, with
/// the mode the target will have. `None` when the change removes the file.
fn stage(change: &FileChange, target: &Path) -> Result<Option<PathBuf>> {
    let Some(bytes) = &change.new else {
        return Ok(None);
    };
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent).map_err(|e| Error::io("create folder", parent, &e))?;
    }
    let mut mode = existing_mode(target).unwrap_or(change.create_mode);
    if change.binary {
        // A copy put there by hand may lack the x bits; the hooks must run.
        mode |= 0o111;
    }
    write_temp(target, bytes, mode).map(Some)
}

/// Remove temp files that will not be renamed into place.
fn discard(staged: &[Option<PathBuf>]) {
    for tmp in staged.iter().flatten() {
        let _ = fs::remove_file(tmp);
    }
}

/// Back up `target`, then put the staged temp file in its place (or remove
/// the file).
fn commit(
    change: &FileChange,
    target: &Path,
    tmp: Option<&Path>,
    stamp: &str,
) -> Result<Vec<PathBuf>> {
    let mut kept = Vec::new();
    if change.old.is_some() && !change.binary {
        kept.push(backup(target, stamp)?);
    }
    let Some(tmp) = tmp else {
        if change.old.is_some() {
            match change.strategy {
                ReplaceStrategy::MoveAsideFirst => {
                    kept.extend(remove_unless_running(move_aside(target, stamp)?));
                }
                // Still running (Windows refuses to delete it): left for a
                // later run, and reported.
                ReplaceStrategy::RemoveUnlessRunning => {
                    kept.extend(remove_unless_running(target.to_path_buf()));
                }
                ReplaceStrategy::InPlace => {
                    fs::remove_file(target).map_err(|e| Error::io("remove", target, &e))?;
                }
            }
        }
        return Ok(kept);
    };
    let aside = if change.old.is_some() && change.strategy == ReplaceStrategy::MoveAsideFirst {
        Some(move_aside(target, stamp)?)
    } else {
        None
    };
    if let Err(e) = fs::rename(tmp, target) {
        // Put the old copy back rather than leave no program at all.
        if let Some(aside) = &aside {
            let _ = fs::rename(aside, target);
        }
        return Err(Error::io("write", target, &e));
    }
    kept.extend(aside.and_then(remove_unless_running));
    Ok(kept)
}

/// Delete a copy that was moved aside; `Some(path)` when it cannot be
/// deleted because it is still running (or otherwise held open).
fn remove_unless_running(path: PathBuf) -> Option<PathBuf> {
    match fs::remove_file(&path) {
        Ok(()) => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => Some(path),
    }
}

/// The file to actually write: the final target when `path` is a symlink,
/// also when that target does not exist yet (it is created through the link).
fn write_target(path: &Path) -> Result<PathBuf> {
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

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

/// `sibling(path, suffix)`, or with `-2`, `-3`, … added when that name is
/// taken (two runs within one second must not overwrite a backup).
fn free_sibling(path: &Path, suffix: &str) -> PathBuf {
    let first = sibling(path, suffix);
    if fs::symlink_metadata(&first).is_err() {
        return first;
    }
    (2..)
        .map(|n| sibling(path, &format!("{suffix}-{n}")))
        .find(|p| fs::symlink_metadata(p).is_err())
        .unwrap_or(first)
}

/// Copy `path` to `<path>.gk-backup-<stamp>` with the same permissions.
fn backup(path: &Path, stamp: &str) -> Result<PathBuf> {
    let dest = free_sibling(path, &format!(".gk-backup-{stamp}"));
    fs::copy(path, &dest).map_err(|e| Error::io("back up", path, &e))?;
    // fs::copy carries the permission bits over; say so explicitly anyway.
    if let Ok(meta) = fs::metadata(path) {
        let _ = fs::set_permissions(&dest, meta.permissions());
    }
    Ok(dest)
}

fn move_aside(path: &Path, stamp: &str) -> Result<PathBuf> {
    let dest = free_sibling(path, &format!(".gk-old-{stamp}"));
    fs::rename(path, &dest).map_err(|e| Error::io("move aside", path, &e))?;
    Ok(dest)
}

#[cfg(unix)]
fn existing_mode(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn existing_mode(_path: &Path) -> Option<u32> {
    None
}

#[cfg(unix)]
fn set_mode(file: &fs::File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &fs::File, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

/// Temp file in the same folder, write, sync, set mode, rename over `path`.
pub fn atomic_write(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let tmp = write_temp(path, bytes, mode)?;
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io("write", path, &e)
    })
}

/// `bytes` in a new temp file beside `path` (written, synced, given `mode`);
/// nothing is left behind when that fails.
fn write_temp(path: &Path, bytes: &[u8], mode: u32) -> Result<PathBuf> {
    let tmp = sibling(path, &format!(".gk-tmp-{}", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        set_mode(&file, mode)?;
        file.write_all(bytes)?;
        file.sync_all()
    })();
    match result {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(Error::io("write", path, &e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn edit(path: &Path, old: &str, new: &str) -> FileChange {
        FileChange::text(path, Some(old.into()), Some(new.into()), "test")
    }

    #[test]
    fn a_file_changed_underneath_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        fs::write(&a, "{}").unwrap();
        fs::write(&b, "{}").unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "{}", "{\"x\":1}"));
        plan.push(edit(&b, "{}", "{\"y\":1}"));
        // Another program rewrites b.json between the plan and its write.
        let err = write_plan(&plan, "s", &|p: &Path| {
            if p == b {
                fs::write(&b, "{\"other\":true}").unwrap();
            }
        })
        .unwrap_err();
        assert!(err.message().contains("changed since the plan"), "{err}");
        assert_eq!(fs::read_to_string(&b).unwrap(), "{\"other\":true}");
        assert!(!dir.path().join("b.json.gk-backup-s").exists());
    }

    #[test]
    fn a_change_found_before_any_write_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        fs::write(&a, "{}").unwrap();
        fs::write(&b, "{\"changed\":1}").unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "{}", "{\"x\":1}"));
        plan.push(edit(&b, "{}", "{\"y\":1}"));
        let calls = Cell::new(0);
        assert!(write_plan(&plan, "s", &|_| calls.set(calls.get() + 1)).is_err());
        assert_eq!(calls.get(), 0);
        assert_eq!(fs::read_to_string(&a).unwrap(), "{}");
    }

    #[cfg(unix)]
    #[test]
    fn backup_keeps_mode_and_write_keeps_mode_and_symlink() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        let link = dir.path().join("settings.json");
        fs::write(&real, "{}").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&link, "{}", "{\"a\":1}"));
        let kept = write_plan(&plan, "s1", &|_| {}).unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "{\"a\":1}");
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&real), 0o600);
        assert_eq!(kept.len(), 1);
        assert_eq!(fs::read_to_string(&kept[0]).unwrap(), "{}");
        assert_eq!(mode(&kept[0]), 0o600);
        let leftovers: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains("gk-tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn a_second_run_in_the_same_second_does_not_overwrite_a_backup() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        fs::write(&a, "1").unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "1", "2"));
        write_plan(&plan, "same", &|_| {}).unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "2", "3"));
        let kept = write_plan(&plan, "same", &|_| {}).unwrap();
        assert_eq!(kept, vec![dir.path().join("a.json.gk-backup-same-2")]);
        let first = dir.path().join("a.json.gk-backup-same");
        assert_eq!(fs::read_to_string(first).unwrap(), "1");
        assert_eq!(fs::read_to_string(&kept[0]).unwrap(), "2");
    }

    #[test]
    fn a_failed_write_leaves_no_temp_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        // The target is a non-empty folder: the final rename fails.
        let target = dir.path().join("settings.json");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("x"), "x").unwrap();
        let err = atomic_write(&target, b"{}", 0o644).unwrap_err();
        assert!(err.message().starts_with("could not write "), "{err}");
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["settings.json".to_string()]);
    }

    #[test]
    fn move_aside_first_keeps_the_old_copy() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("gk.exe");
        fs::write(&exe, b"old").unwrap();
        let mut plan = Plan::new("test");
        plan.push(FileChange {
            path: exe.clone(),
            old: Some(b"old".to_vec()),
            new: Some(b"new".to_vec()),
            binary: true,
            create_mode: 0o755,
            strategy: ReplaceStrategy::MoveAsideFirst,
            reason: String::new(),
        });
        let kept = write_plan(&plan, "s", &|_| {}).unwrap();
        assert_eq!(fs::read(&exe).unwrap(), b"new");
        // Nothing was running it: the moved copy is gone, nothing kept.
        assert_eq!(kept, Vec::<PathBuf>::new());
        assert!(!dir.path().join("gk.exe.gk-old-s").exists());
    }

    #[test]
    fn a_file_that_cannot_be_written_stops_the_run_before_any_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        let b = dir.path().join("b.json");
        fs::write(&a, "{}").unwrap();
        fs::write(&b, "{}").unwrap();
        // Something in the way of b's temp file: b cannot be written, which
        // only shows when writing (like a folder without write permission).
        let blocker = sibling(&b, &format!(".gk-tmp-{}", std::process::id()));
        fs::create_dir(&blocker).unwrap();
        let mut plan = Plan::new("test");
        plan.push(edit(&a, "{}", "{\"x\":1}"));
        plan.push(edit(&b, "{}", "{\"y\":1}"));
        assert!(write_plan(&plan, "s", &|_| {}).is_err());
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let blocker_name = blocker.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            names,
            vec!["a.json".to_string(), "b.json".to_string(), blocker_name]
        );
        assert_eq!(fs::read_to_string(&a).unwrap(), "{}");
    }
}
